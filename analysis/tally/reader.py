"""tally.read(): a file, or a directory holding a job's file or partial files."""
import glob
import os

from . import schema as schema_mod
from .errors import TallyError
from .fileio import read_file
from .merge import merge


def _job_files(directory):
    """(complete files, partial files) in directory."""
    files = sorted(glob.glob(os.path.join(directory, "*.h5")))
    partial = [f for f in files if f.endswith(".partial.h5")]
    return [f for f in files if f not in partial], partial


def read_dir(directory, sch=None):
    """The job in directory: its complete file, else its merged partial files."""
    complete, partial = _job_files(directory)
    if len(complete) == 1:
        return read_file(complete[0], sch)
    if len(complete) > 1:
        raise TallyError(f"{directory} holds {len(complete)} complete Tally files; name the one to read")
    if not partial:
        raise TallyError(f"{directory}: no Tally files (*.h5) in this directory")
    runs = [read_file(p, sch) for p in partial]
    return runs[0] if len(runs) == 1 else merge(runs)


def read(path, schema_path=None):
    """Read a Tally measurement: a .h5 file or a directory of partial files.

    Returns a tally.Run whose .tables are pandas DataFrames.  Raises
    tally.TallyError (one sentence) for anything that is not readable.
    """
    sch = schema_mod.load(schema_path)
    if os.path.isdir(path):
        return read_dir(path, sch)
    return read_file(path, sch)
