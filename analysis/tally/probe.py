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

from .errors import TallyError

_READ_LIMIT = 8 << 20   # the probe reads tables up to this size (bounds its cost)
TIMEOUT = float(os.environ.get("TALLY_PROBE_TIMEOUT", "120"))


def _child(path):
    """Make the libhdf5 calls the reader will make (open, attributes, each
    table within the size check); exit 0 (errors are the parent's to report).
    Its stderr goes nowhere: a libhdf5 crash makes glibc print its own line
    ("free(): invalid pointer"), and the user gets the parent's sentence only."""
    os.environ["LIBC_FATAL_STDERR_"] = "1"   # glibc's abort message to fd 2, not /dev/tty
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 2)
        os.close(fd)
    except OSError:
        pass
    try:
        import h5py
        from . import sanity
        with h5py.File(path, "r") as f:
            for v in f.attrs.values():
                del v
            names = []
            f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
            for n in names:
                sanity.dataset_size(path, n, f[n])
                if f[n].id.get_storage_size() <= _READ_LIMIT:   # big tables: their metadata only
                    f[n][()]
                for v in f[n].attrs.values():
                    del v
    except BaseException:   # pylint: disable=broad-except
        pass
    os._exit(0)


def _probe_one(path):
    """None, or one sentence when reading path kills or hangs the reader."""
    pid = os.fork()
    if pid == 0:
        _child(path)
    deadline = time.monotonic() + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return f"{path}: reading it did not end within {TIMEOUT:.0f} s; the file is damaged"
        select.select([], [], [], 0.01)
    if os.WIFSIGNALED(status):
        return (f"{path}: the HDF5 library crashed reading it (signal {os.WTERMSIG(status)}); "
                "the file is damaged")
    return None


def probe(path):
    """{file: sentence} of the files under path (a file or a directory) that
    crash or hang the reader; raises TallyError when path is such a file."""
    if not hasattr(os, "fork") or os.environ.get("TALLY_NO_PROBE"):
        return {}
    if not os.path.isdir(path):
        why = _probe_one(path) if os.path.isfile(path) else None
        if why:
            raise TallyError(why)
        return {}
    bad = {}
    for f in sorted(glob.glob(os.path.join(path, "*.h5"))):
        why = _probe_one(f)
        if why:
            bad[f] = why
    return bad
