#!/usr/bin/env python3
"""crafted_files.py BASE.h5 TALLY_REPORT... - tally-report against files
crafted (with h5py, on purpose) to cost it what no real run could.

Each case is a copy of BASE.h5, a file the runtime wrote, made hostile: a
cycle in the region tree, duplicate region ids, a complete file claiming
16,777,216 ranks, a rank of 2**31-2, a table whose storage is an external
file (a planted secret) or a FIFO, a virtual dataset and an external link
to files of secrets, a soft link, a FIFO as the file, 40 tables filled to
just under 64 MiB, a compressed table of 60 MiB of zeros, 4,000 rows of
variable-length strings all pointing at one 1 MiB string, 200,000 one-row
chunks, 50,000 attributes (100 on each of 500 tables), 20,000 tables
(issue 47).  Each must end
with exit status 2 and one line on stderr, within 10 s of CPU time and
200 MB of maximum resident memory (the child's getrusage), never blocked
(ended by itself within 30 s of wall time beyond what the real file takes
on this machine now: the control, Python's start-up and a full report,
1-2 s on an idle machine, ~16 s at load 17 on 2 cores, where a case of
1.8 s CPU once took 39 s), and read nothing outside
the file: the secret never reaches the output, the secret files' access
time never moves (set older than their modification time, so the kernel
updates it on any read under relatime too; checked on a control read
first), and a read of the FIFO would block past the time limit.
Two files a real run can make are answered with exit 0 under the same
limits: a partial file of a job of 16,777,216 ranks, and region names and
a command line holding terminal escapes (printed escaped, never raw).
Then a FIFO and the real file are swapped at one name while tally-report
reads it 12 times: every run within the limits, exit 0 or one line.
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import h5py   # a writer of crafted hostile files on purpose (allowed: testsuite/layout/check_h5py.py)
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import th  # noqa: E402

LIMIT_S = 10
LIMIT_KB = 200 * 1024
WALL_S = 3 * LIMIT_S   # wall time beyond the control's: never blocked (a FIFO blocks for ever)
SLACK = {"s": 0.0}   # the control's wall time: the machine's own slowness now
SECRET = "SECRET-e7c1d2-not-for-the-report"


def plant(path, text):
    """A file of secret text whose atime is older than its mtime."""
    with open(path, "w") as f:
        f.write((text + "\n") * 64)
    st = os.stat(path)
    os.utime(path, (st.st_mtime - 3600, st.st_mtime))


def atime_moves(d):
    """Does a read of a planted file move its atime here (relatime, not noatime)?"""
    p = os.path.join(d, "control")
    plant(p, "control")
    before = os.stat(p).st_atime
    with open(p) as f:
        f.read()
    return os.stat(p).st_atime != before


def set_regions(f, ids, parents):
    r = f["regions"][()]
    r = np.resize(r, len(ids))
    r["id"], r["parent"] = ids, parents
    del f["regions"]
    f["regions"] = r


def cycle(f, d):
    n = len(f["regions"])
    ids = list(range(max(n, 3)))
    set_regions(f, ids, [-1] + [2] + [1] + list(range(2, len(ids) - 1)))   # 1 -> 2 -> 1


def duplicate_ids(f, d):
    n = max(len(f["regions"]), 2)
    set_regions(f, [0] + [0] * (n - 1), [-1] + [0] * (n - 1))


def huge_nranks(f, d):
    f.attrs["nranks"] = np.int32(1 << 24)


def huge_rank(f, d):
    st = f["region_stats"][()]
    st["rank"][-1] = 2**31 - 2
    del f["region_stats"]
    f["region_stats"] = st


def external(target):
    def make(f, d):
        ev = f["events"][()]
        del f["events"]
        f.create_dataset("events", shape=ev.shape, dtype=ev.dtype,
                         external=[(target, 0, h5py.h5f.UNLIMITED)])
    return make


def virtual(f, d):
    src = os.path.join(d, "secret_src.h5")
    with h5py.File(src, "w") as s:
        s["data"] = np.frombuffer((SECRET * 4).encode(), dtype=np.uint8)
    os.utime(src, (os.stat(src).st_mtime - 3600, os.stat(src).st_mtime))
    lay = h5py.VirtualLayout(shape=(len(SECRET) * 4,), dtype=np.uint8)
    lay[:] = h5py.VirtualSource(src, "data", shape=(len(SECRET) * 4,))
    f.create_virtual_dataset("secret", lay)
    return src


def external_link(f, d):
    src = os.path.join(d, "secret_link.h5")
    with h5py.File(src, "w") as s:
        s["events"] = np.frombuffer((SECRET * 4).encode(), dtype=np.uint8)
    os.utime(src, (os.stat(src).st_mtime - 3600, os.stat(src).st_mtime))
    del f["events"]
    f["events"] = h5py.ExternalLink(src, "events")
    return src


def soft_link(f, d):
    f["threads_again"] = h5py.SoftLink("/threads")


def fill_tables(f, d):
    for i in range(40):   # never written: 64 MiB of fill values each
        f.create_dataset(f"fill{i}", shape=((64 << 20) // 8 - 1,), dtype="i8")


def compressed(f, d):
    f.create_dataset("zeros", data=np.zeros((60 << 20) // 8, dtype="i8"), compression="gzip",
                     compression_opts=9, chunks=(1 << 20,))


def partial_of_huge_job(f, d):
    f.attrs["partial"] = np.int32(1)
    f.attrs["partial_rank"] = np.int32(0)
    f.attrs["nranks"] = np.int32(1 << 24)


def escapes(f, d):
    r = f["regions"][()]
    r["name"][-1] = b"\x1b[2J\x1b]0;pwned\x07evil\nname"
    del f["regions"]
    f["regions"] = r
    f.attrs["command"] = "app \x1b[31mred\x1b[0m\rline"


def shared_strings(f, d):
    """4,000 rows of variable-length strings, every one pointing at the same
    1 MiB string: a 5 MB file that decodes to 4 GiB (issue 47).  Written as
    one string and 3,999 empty ones, then each row's heap reference (16
    bytes on disk) made a copy of the first row's."""
    dt = h5py.string_dtype()
    ds = f.create_dataset("shared", shape=(4000,), dtype=dt)
    ds[0] = "x" * (1 << 20)
    ds[1:] = [""] * 3999
    f.flush()
    return ("patch", ds.id.get_offset(), 16, 4000)


def many_chunks(f, d):
    f.create_dataset("chunky", data=np.arange(200000, dtype="i1"), chunks=(1,))


def many_attrs(f, d):
    """50,000 attributes, 100 on each of 500 one-row tables (50,000 on one
    object take h5py longer than the test may run to make)."""
    g = f.create_group("attrs")
    for k in range(500):
        ds = g.create_dataset(f"d{k}", data=np.zeros(1, dtype="i1"))
        for i in range(100):
            ds.attrs[f"a{i}"] = np.int32(i)


def many_tables(f, d):
    g = f.create_group("many")
    for i in range(20000):
        g.create_dataset(f"t{i}", data=np.zeros(1, dtype="i4"))


# name, what to do to the copy, a secret file it points at (or None), exit status wanted
CASES = [
    ("region cycle", cycle, 2), ("duplicate region ids", duplicate_ids, 2),
    ("complete file of 16,777,216 ranks", huge_nranks, 2), ("rank 2**31-2", huge_rank, 2),
    ("external storage: secret file", "external_file", 2), ("external storage: FIFO", "external_fifo", 2),
    ("virtual dataset", virtual, 2), ("external link", external_link, 2), ("soft link", soft_link, 2),
    ("40 tables of fill values", fill_tables, 2), ("compressed 60 MiB", compressed, 2),
    ("the file is a FIFO", "fifo", 2),
    ("partial file of 16,777,216 ranks", partial_of_huge_job, 0), ("terminal escapes in names", escapes, 0),
    ("4,000 rows sharing one 1 MiB string", shared_strings, 2), ("200,000 one-row chunks", many_chunks, 2),
    ("50,000 attributes", many_attrs, 2), ("20,000 tables", many_tables, 2),
]


def build(base, d, name, how):
    """The case's file; returns (path, secret file or None)."""
    path = os.path.join(d, name.replace(" ", "_").replace(",", "").replace("*", "").replace(":", "") + ".h5")
    if how == "fifo":
        os.mkfifo(path)
        return path, None
    shutil.copyfile(base, path)
    secret = None
    if how == "external_file":
        secret = os.path.join(d, "shadow")
        plant(secret, SECRET)
        how = external(secret)
    elif how == "external_fifo":
        fifo = os.path.join(d, "table.fifo")
        os.mkfifo(fifo)
        how = external(fifo)
    # made in a child: h5py grows by hundreds of MB making 200,000 chunks,
    # and a report started from a process that large would count its size
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _make(path, d, how, rfd, wfd)
        finally:
            os._exit(0)   # never back into the test's loop
    os.close(wfd)
    with os.fdopen(rfd, "rb") as r:
        got = r.read().decode()
    os.waitpid(pid, 0)
    return path, got or secret


def _make(path, d, how, rfd, wfd):
    """In the child: the case's change, and the patch it asks for."""
    os.close(rfd)
    with h5py.File(path, "r+") as f:
        got = how(f, d)
    if isinstance(got, tuple) and got[0] == "patch":   # copy the first row's bytes to every row
        _, at, size, rows = got
        with open(path, "r+b") as raw:
            raw.seek(at)
            first = raw.read(size)
            raw.seek(at)
            raw.write(first * rows)
    elif got:
        os.write(wfd, got.encode())


def run(report, path):
    """(exit status, stdout, stderr, seconds, max RSS in kB, CPU seconds) of tally-report path."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(report + [path], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > WALL_S + 10 + SLACK["s"]:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), \
            time.monotonic() - t0, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def one(report, d, base, name, how, want, watch_atime):
    path, secret = build(base, d, name, how)
    atime = os.stat(secret).st_atime if secret else None
    rc, out, err, secs, rss, cpu = run(report, path)
    lines = err.strip().splitlines()
    print(f"{name}: exit {rc}, {secs:.2f} s ({cpu:.2f} s CPU), {rss / 1024:.0f} MB: {err.strip()[:300]}")
    th.check(rc == want, f"{name}: exit {rc}, want {want}")
    th.check(want == 0 or len(lines) == 1, f"{name}: {len(lines)} lines on stderr, want 1")
    th.check(cpu < LIMIT_S, f"{name}: {cpu:.1f} s of CPU, limit {LIMIT_S}")
    th.check(secs < WALL_S + SLACK["s"], f"{name}: {secs:.1f} s, limit {WALL_S} beyond the control's {SLACK['s']:.1f}")
    th.check(rss < LIMIT_KB, f"{name}: {rss / 1024:.0f} MB resident, limit {LIMIT_KB // 1024}")
    th.check(SECRET not in out + err, f"{name}: the secret reached the output")
    th.check("\x1b" not in out + err and "\x07" not in out + err, f"{name}: a raw escape reached the terminal")
    if secret and watch_atime:
        th.check(os.stat(secret).st_atime == atime, f"{name}: {secret} was read (its access time moved)")
    if how is escapes:
        th.check("\\x1b[2J" in out, f"{name}: the region name is not shown escaped")
    os.unlink(path)


def fifo_swap(report, d, base, runs=12):
    """A FIFO and the real file swapped in turn at the name tally-report
    reads (issue 47: a FIFO put there between the check and the open
    blocked 1 run of 12 for 300 s): every run ends within the limit, with
    the report (exit 0) or one line (exit 2)."""
    import threading
    path, reg, fifo = (os.path.join(d, n) for n in ("swap.h5", "swap.reg", "swap.fifo"))
    shutil.copyfile(base, reg)
    os.mkfifo(fifo)
    stop = threading.Event()

    def swap():
        while not stop.is_set():
            for src in (reg, fifo):
                try:
                    os.rename(src, path)
                    time.sleep(0.0005)
                    os.rename(path, src)
                except OSError:
                    pass

    t = threading.Thread(target=swap, daemon=True)
    t.start()
    worst = 0
    try:
        for i in range(runs):
            rc, out, err, secs, rss, cpu = run(report, path)
            worst = max(worst, secs)
            lines = err.strip().splitlines()
            th.check(secs < WALL_S + SLACK["s"] and cpu < LIMIT_S and rss < LIMIT_KB,
                     f"FIFO swap run {i}: {secs:.1f} s ({cpu:.1f} s CPU), {rss / 1024:.0f} MB")
            th.check(rc == 0 or (rc == 2 and len(lines) == 1), f"FIFO swap run {i}: exit {rc}, {len(lines)} lines")
    finally:
        stop.set()
        t.join()
    print(f"FIFO swap: {runs} runs, the slowest {worst:.2f} s (load {os.getloadavg()[0]:.1f})")


def main(argv):
    if len(argv) < 3 or not os.path.isfile(argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    base, report = argv[1], argv[2:]
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with tempfile.TemporaryDirectory() as d:
        watch = atime_moves(d)
        if not watch:
            print("note: this file system does not update access times; the FIFO and the output checks remain")
        rc, _, err, secs, rss, cpu = run(report, base)
        SLACK["s"] = secs
        print(f"control (the real file): exit {rc}, {secs:.2f} s ({cpu:.2f} s CPU), {rss / 1024:.0f} MB, "
              f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        th.check(rc == 0, f"control: exit {rc}: {err}")
        only = os.environ.get("CRAFTED_ONLY", "")   # a word of the cases to run (by hand)
        for name, how, want in CASES:
            if only in name:
                one(report, d, base, name, how, want, watch)
        if only in "FIFO swap":
            fifo_swap(report, d, base)
    return th.done("crafted_files")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
