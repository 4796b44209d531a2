"""tally: read Tally's HDF5 measurement files and report on them.

    import tally
    run = tally.read("job.h5")          # or a directory of partial files
    run.tables["region_stats"]          # pandas DataFrames, one per table
    run.meta                            # run metadata (root attributes)

See docs/report.md in the Tally sources for the report and the exports.
"""
from .errors import TallyError
from .reader import read
from .run import Run

__all__ = ["read", "Run", "TallyError"]
__version__ = "1"
