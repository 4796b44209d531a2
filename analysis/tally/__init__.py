"""tally: read Tally's HDF5 measurement files and report on them.

    import tally
    run = tally.read("job.h5")          # or a directory of partial files
    run.tables["region_stats"]          # pandas DataFrames, one per table
    run.meta                            # run metadata (root attributes)
    with tally.raw("job.h5") as f:      # the rows as stored (numpy), for checks
        f["region_stats"]

See docs/report.md in the Tally sources for the report and the exports.
read and Run are imported on first use, so that tally.launch can choose
an interpreter before h5py is imported.
"""
from .errors import TallyError

__all__ = ["read", "raw", "Run", "TallyError"]
__version__ = "1"


def __getattr__(name):
    if name == "read":
        from .reader import read
        return read
    if name == "raw":
        from .rawfile import raw
        return raw
    if name == "Run":
        from .run import Run
        return Run
    raise AttributeError(f"module 'tally' has no attribute {name!r}")
