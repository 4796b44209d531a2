"""tally.read(): a file, or a directory holding a job's file or partial files."""
import glob
import re
import os

from . import schema as schema_mod
from .errors import TallyError
from .fileio import read_file
from .merge import merge


def _job_files(directory):
    """(complete files, partial files) in directory."""
    files = sorted(glob.glob(os.path.join(directory, "*.h5")))
    partial = [f for f in files if re.search(r"\.partial(\.\d+)?\.h5$", f)]
    return [f for f in files if f not in partial], partial


def _is_tally(path, skip):
    """Whether path is a Tally file: an HDF5 file with Tally's
    schema_version attribute; a file the probe found crashing libhdf5
    (skip) counts as one (it is named, not opened)."""
    if path in skip:
        return True
    from .filecheck import open_h5   # non-blocking, regular files only: a FIFO named x.h5 never blocks
    try:
        with open_h5(path) as h:
            return "schema_version" in h.attrs
    except Exception:   # pylint: disable=broad-except  (whatever it is, it is not a Tally file)
        return False


def _complete_files(directory, complete, skip):
    """The Tally files among complete; more than one is an error that
    names them and says what else was left out."""
    tally = [f for f in complete if _is_tally(f, skip)]
    if len(tally) > 1:
        names = ", ".join(os.path.basename(f) for f in tally[:4]) + (", ..." if len(tally) > 4 else "")
        other = len(complete) - len(tally)
        raise TallyError(f"{directory} holds {len(tally)} complete Tally files ({names})"
                         + (f" and {other} other .h5 file{'s' if other > 1 else ''}" if other else "")
                         + "; name the one to read")
    return tally


def read_dir(directory, sch=None, skip=None):
    """The job in directory: its complete file, else its merged partial files.
    skip: {file: sentence} of files known to crash the reader (probe.py)."""
    skip = skip or {}
    complete, partial = _job_files(directory)
    if len(complete) > 1:
        complete = _complete_files(directory, complete, skip)
    if len(complete) == 1 and complete[0] in skip:
        raise TallyError(skip[complete[0]])
    if len(complete) == 1:
        return read_file(complete[0], sch)
    if not partial:
        raise TallyError(f"{directory}: no Tally files (*.h5) in this directory")
    runs, damaged = [], []
    for p in partial:
        if p in skip:
            damaged.append(skip[p])
            continue
        try:
            runs.append(read_file(p, sch))
        except TallyError as e:   # one damaged rank file: report it, merge the others
            damaged.append(str(e))
    if not runs:
        raise TallyError(f"{directory}: none of its {len(partial)} partial files is readable ({damaged[0]})")
    run = runs[0] if len(runs) == 1 else merge(runs)
    run.damaged = damaged
    return run


def read(path, schema_path=None, skip=None, stored_tree=False):
    """Read a Tally measurement: a .h5 file or a directory of partial files.

    Returns a tally.Run whose .tables are pandas DataFrames, its region tree
    one tree per job (tally.graft: OpenMP workers' regions under the path
    where their master entered the parallel region, their idle time a named
    row); stored_tree=True keeps each thread's tree as the runtime wrote it.
    Raises tally.TallyError (one sentence) for anything that is not readable.
    """
    sch = schema_mod.load(schema_path)
    run = read_dir(path, sch, skip) if os.path.isdir(path) else read_file(path, sch)
    if not stored_tree:
        from .graft import one_tree
        one_tree(run)
    return run
