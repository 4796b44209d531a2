"""A damaged file can crash libhdf5 itself (seen: H5A__close on bit-flipped
files; h5dump crashes on the same files), which no Python code can catch.
tally-report therefore first reads the file(s) in a forked child: when the
child dies of a signal or takes too long, the user gets one sentence and
exit status 2 instead of a core dump or a hang (docs/report.md, "Damaged
files"; the fuzzer testsuite/safety/fuzz_reader.py counts crashes)."""
import glob
import os
import select
import signal
import time

from . import filecheck, settings
from .errors import TallyError

_READ_LIMIT = 8 << 20   # the probe reads tables up to this size (bounds its cost)


def _child(path, wfd):
    """Make the libhdf5 calls the reader will make (open, the structure
    checks, attributes, each table within the size check); exit 0 (errors
    are the parent's to report), or 3 with the sentence on wfd when the
    structure checks refuse the file (filecheck.py): then no table data is
    read at all (an external file's, a FIFO's).
    Its stderr goes nowhere: a libhdf5 crash makes glibc print its own line
    ("free(): invalid pointer"), and the user gets the parent's sentence only."""
    os.environ["LIBC_FATAL_STDERR_"] = "1"   # glibc's abort message to fd 2, not /dev/tty
    try:
        fd = os.open(os.devnull, os.O_WRONLY)  # safe-file: /dev/null, no output path
        os.dup2(fd, 2)
        os.close(fd)
    except OSError:
        pass
    try:
        from . import filecheck, sanity
        budget = [filecheck.VLEN_BUDGET]
        with filecheck.open_h5(path) as f:
            try:
                names = filecheck.structure(f, path)
            except TallyError as e:
                os.write(wfd, str(e).encode("utf-8", "replace")[:4000])
                os._exit(3)
            for v in f.attrs.values():
                del v
            for n in names:
                sanity.dataset_size(path, n, f[n])
                if f[n].id.get_storage_size() <= _READ_LIMIT:   # big tables: their metadata only
                    filecheck.read_all(f[n], path, n, budget)
                for v in f[n].attrs.values():
                    del v
    except BaseException:   # pylint: disable=broad-except
        pass
    os._exit(0)


def _probe_one(path):
    """None, or one sentence when reading path kills or hangs the reader."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        _child(path, wfd)
    os.close(wfd)
    try:
        return _wait(path, pid, rfd)
    finally:
        os.close(rfd)


def _wait(path, pid, rfd):
    """The child's verdict (see _probe_one)."""
    limit = settings.count("TALLY_PROBE_TIMEOUT")
    deadline = time.monotonic() + limit
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return f"{path}: reading it did not end within {limit} s; the file is damaged"
        select.select([], [], [], 0.01)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        return os.read(rfd, 4096).decode("utf-8", "replace") or f"{path}: the file is damaged"
    if os.WIFSIGNALED(status):
        return (f"{path}: the HDF5 library crashed reading it (signal {os.WTERMSIG(status)}); "
                "the file is damaged")
    return None


def probe(path):
    """{file: sentence} of the files under path (a file or a directory) that
    crash or hang the reader; raises TallyError when path is such a file."""
    if not hasattr(os, "fork") or settings.flag("TALLY_NO_PROBE"):
        return {}
    if not os.path.isdir(path):
        if os.path.exists(path):
            filecheck.regular_file(path)   # a FIFO would block the child's open
        why = _probe_one(path) if os.path.isfile(path) else None
        if why:
            raise TallyError(why)
        return {}
    bad = {}
    for f in sorted(glob.glob(os.path.join(path, "*.h5"))):
        try:
            filecheck.regular_file(f)
        except TallyError as e:
            bad[f] = str(e)
            continue
        why = _probe_one(f)
        if why:
            bad[f] = why
    return bad
