#!/usr/bin/env python3
"""fuzz_reader.py SECONDS FILE... - tally-report against damaged copies of
real runtime-written files.

Each case damages a copy of one FILE: truncation, bit flips, renamed or
missing tables and attributes, attributes and tables of the wrong type,
tables claiming absurd sizes, unknown schema versions, random values in
table fields, and combinations.  tally-report (tally.cli.main, in a forked
child per case) must answer each with exit status 0 (the damage did not
matter) or 2 with exactly one line on stderr: never a traceback, a crash
or a hang.  Prints the figures; exit 1 when any case failed.
Environment: TALLY_FUZZ_SEED (default: time), TALLY_FUZZ_KEEP=DIR keeps
the failing inputs there.
"""
import io
import os
import random
import shutil
import signal
import sys
import tempfile
import time

import h5py   # damages files on purpose, in place (allowed: testsuite/layout/check_h5py.py)
import numpy as np

HANG_S = 60
# The reader's own answer to a libhdf5 that loops on a damaged file is its
# probe's time limit (tally/probe.py, TALLY_PROBE_TIMEOUT, default 120 s):
# it must be well inside HANG_S, or a hang inside libhdf5 that the reader
# does answer ("reading it did not end within N s") counts as a hang here.
PROBE_S = 20


def flip_bits(data, rng):
    b = bytearray(data)
    for _ in range(rng.choice([1, 2, 4, 16, 64])):
        i = rng.randrange(len(b) * 8)
        b[i // 8] ^= 1 << (i % 8)
    return bytes(b)


def truncate(data, rng):
    return data[:rng.randrange(len(data))]


def _objects(f):
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    return names


def structural(path, rng):
    """One h5py-level damage of the file at path, in place; returns its name."""
    with h5py.File(path, "r+") as f:
        ds = _objects(f)
        attrs = list(f.attrs)
        k = rng.randrange(9)
        if k == 0 and ds:
            n = rng.choice(ds)
            f.move(n, n + "_renamed")
            return "rename table " + n
        if k == 1 and ds:
            n = rng.choice(ds)
            del f[n]
            return "delete table " + n
        if k == 2 and attrs:
            a = rng.choice(attrs)
            f.attrs[a + "X"] = f.attrs[a]
            del f.attrs[a]
            return "rename attribute " + a
        if k == 3 and attrs:
            a = rng.choice(attrs)
            f.attrs[a] = rng.choice(["abc", 1.5e300, -7, np.arange(3), b"\xff\xfe", 2**62])
            return "attribute of wrong type " + a
        if k == 4 and ds:
            n = rng.choice(ds)
            del f[n]
            f[n] = rng.choice([np.arange(10), np.array([b"x", b"yy"]), np.zeros((3, 4)), np.float64(2.5)])
            return "table of wrong type " + n
        if k == 5 and ds:
            n = rng.choice(ds)
            dt = f[n].dtype
            del f[n]
            f.create_dataset(n, shape=(rng.choice([2**31, 2**40, 10**13]),), dtype=dt, chunks=(1024,))
            return "absurd size " + n
        if k == 6:
            f.attrs["schema_version"] = rng.choice([999, 0, -1, 2, "abc", 1.5, np.arange(2), 2**40])
            return "schema version %r" % (f.attrs["schema_version"],)
        if k == 7 and ds:
            n = rng.choice(ds)
            d = f[n]
            if d.shape and d.shape[0] and d.dtype.names:
                arr = d[()]
                fld = rng.choice(d.dtype.names)
                raw = arr[fld].view(np.uint8)
                raw[...] = np.frombuffer(os.urandom(raw.size), dtype=np.uint8).reshape(raw.shape)
                d[...] = arr
                return "random values in %s.%s" % (n, fld)
        if k == 8 and attrs:
            a = rng.choice(attrs)
            del f.attrs[a]
            return "delete attribute " + a
    return "no change"


def make_case(src, dst, rng):
    kind = rng.randrange(5)
    with open(src, "rb") as f:
        data = f.read()
    if kind == 0:
        out, what = truncate(data, rng), "truncate"
    elif kind == 1:
        out, what = flip_bits(data, rng), "bit flips"
    else:
        shutil.copyfile(src, dst)
        what = structural(dst, rng)
        if kind == 4:
            with open(dst, "rb") as f:
                out = flip_bits(f.read(), rng)
            what += " + bit flips"
        else:
            return what
    with open(dst, "wb") as f:
        f.write(out)
    return what


def run_case(path, cli, fmt):
    """(rc or 'hang' or 'signal N', stderr text) of tally-report in a child."""
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        os.dup2(err.fileno(), 2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False))
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False))
        rc = 3
        try:
            rc = cli.main([path, "--format", fmt, "--top", "5"])
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 3
        except BaseException:   # a traceback: print it as Python would
            import traceback
            traceback.print_exc()
            rc = 4
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(rc)
    t0 = time.monotonic()
    while True:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - t0 > HANG_S:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            st = None
            break
        time.sleep(0.005)
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    if st is None:
        return "hang", text
    if os.WIFSIGNALED(st):
        return "signal %d" % os.WTERMSIG(st), text
    return os.WEXITSTATUS(st), text


def main():
    seconds = float(sys.argv[1])
    files = sys.argv[2:]
    seed = int(os.environ.get("TALLY_FUZZ_SEED", time.time_ns() % 2**32))
    keep = os.environ.get("TALLY_FUZZ_KEEP")
    rng = random.Random(seed)
    os.environ["TALLY_PROBE_TIMEOUT"] = str(PROBE_S)   # read by tally.probe at each probe (tally/settings.py)
    from tally import cli
    work = tempfile.mkdtemp(prefix="tally-fuzz-")
    counts = {"cases": 0, "exit0": 0, "exit2": 0, "tracebacks": 0, "hangs": 0, "crashes": 0, "bad_message": 0}
    failures = []
    t_end = time.monotonic() + seconds
    try:
        while time.monotonic() < t_end:
            src = rng.choice(files)
            dst = os.path.join(work, "case.h5")
            try:
                what = make_case(src, dst, rng)
            except Exception as e:   # h5py could not apply the damage: try another
                what = None
            if what is None or what == "no change":
                continue
            rc, err = run_case(dst, cli, rng.choice(["text", "json", "csv"]))
            counts["cases"] += 1
            bad = None
            if "Traceback" in err:
                counts["tracebacks"] += 1
                bad = "traceback"
            elif rc == "hang":
                counts["hangs"] += 1
                bad = "hang"
            elif isinstance(rc, str):
                counts["crashes"] += 1
                bad = rc
            elif rc == 0:
                counts["exit0"] += 1
            elif rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith("tally-report: "):
                counts["exit2"] += 1
            else:
                counts["bad_message"] += 1
                bad = "exit %s with %d stderr lines" % (rc, len(err.strip().splitlines()))
            if bad:
                failures.append((what, bad, err.strip().splitlines()[-3:]))
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copyfile(dst, os.path.join(keep, "case%05d.h5" % counts["cases"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("reader fuzz: seed %d, %.0f s, %s" % (seed, seconds, ", ".join("%s %d" % kv for kv in counts.items())))
    for what, bad, tail in failures[:20]:
        print("  FAILED (%s): %s: %s" % (bad, what, " | ".join(tail)))
    if counts["cases"] < 10:
        print("too few cases ran")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
