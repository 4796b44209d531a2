"""Starting tally-report (the bin/ launcher, `python3 -m tally`, the
`tally-report` entry point of the pip package) under a Python that has
h5py, always isolated (-I: neither the current directory nor PYTHON*
variables reach sys.path).  Standard library only: this runs before it is
known whether h5py, numpy and pandas are there.

The interpreter, first found: $TALLY_PYTHON (used as given; one line and
exit 2 when it lacks h5py); else the first of the running interpreter, the
one the build was configured with (TALLY_REPORT_PYTHON, tally/_build.py)
and each python3 in an absolute PATH directory that only root or this user
can write (never '.', '' or a relative one), in that order, that has
h5py -- as tally-run chooses (wrappers/tally-run/python.c).  None: one
line naming TALLY_PYTHON, exit 2.  Never a traceback.
"""
import importlib.util
import os
import subprocess

from . import settings
import sys

try:
    from ._build import PYTHON as CONFIGURED
except ImportError:   # installed with pip from the sources: none configured
    CONFIGURED = ""

PROBE = "import importlib.util as u, sys; sys.exit(u.find_spec('h5py') is None)"
BOOT = "import sys; sys.path.insert(0, sys.argv.pop(1)); from tally.launch import boot; sys.exit(boot())"
NEEDED = ("h5py", "numpy", "pandas")
HINT = "set TALLY_PYTHON to a python3 that has h5py, numpy, pandas and matplotlib"


def _trusted(path):
    """Owned by root or this user and writable by nobody else."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_uid in (0, os.geteuid()) and not st.st_mode & 0o022


def _path_pythons():
    """python3 of each PATH directory that only root or this user can
    write: absolute (a relative one, '.' or '', names whatever the current
    directory holds), the directory, the file, the file it resolves to and
    that file's directory closed to others (a planted python3 in a
    group-writable directory after /usr/bin ran as root: issue 47)."""
    out = []
    for d in (settings.env_raw("PATH") or "").split(os.pathsep):
        p = os.path.join(d, "python3")
        if not (os.path.isabs(d) and _trusted(d) and os.access(p, os.X_OK) and not os.path.isdir(p)):
            continue
        real = os.path.realpath(p)
        if _trusted(p) and _trusted(real) and _trusted(os.path.dirname(real)):
            out.append(p)
    return out


def has_h5py(py):
    """True when interpreter py, started isolated, finds h5py."""
    if py == sys.executable and sys.flags.isolated:
        return importlib.util.find_spec("h5py") is not None
    try:
        return subprocess.run([py, "-I", "-c", PROBE], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def choose():
    """(interpreter or None, the one-line reason when None)."""
    given = settings.text("TALLY_PYTHON")
    if given:
        if has_h5py(given):
            return given, ""
        return None, f"TALLY_PYTHON={given!r} cannot import h5py; {HINT}"
    seen, tried = set(), []
    for py in [sys.executable, CONFIGURED] + _path_pythons():
        key = os.path.abspath(py) if py else ""   # not realpath: a venv's python links to the system one
        if not py or key in seen:
            continue
        seen.add(key)
        tried.append(py)
        if has_h5py(py):
            return py, ""
    return None, f"no Python with h5py found (tried {', '.join(tried)}); {HINT}"


def start(pkgdir, argv):
    """Run tally-report's main with argv under the chosen interpreter:
    here when this one is it and runs isolated, else by exec."""
    py, why = choose()
    if py is None:
        print(f"tally-report: {why}", file=sys.stderr)
        return 2
    if py == sys.executable and sys.flags.isolated:
        return boot(argv)
    try:
        os.execv(py, [py, "-I", "-B", "-c", BOOT, pkgdir, *argv])
    except OSError as e:
        print(f"tally-report: cannot run {py}: {e.strerror}; {HINT}", file=sys.stderr)
    return 2


def boot(argv=None):
    """The report itself, once the interpreter is chosen; a missing module
    is one line, exit 2."""
    for name in NEEDED:
        if importlib.util.find_spec(name) is None:
            print(f"tally-report: {sys.executable} has no {name}; {HINT}", file=sys.stderr)
            return 2
    from .cli import main
    return main(argv)


def entry():
    """The console entry point of the pip package (pyproject.toml)."""
    return start(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), sys.argv[1:])
