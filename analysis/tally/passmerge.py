"""Application replay: merge the files of the P runs of one job
(tally-run --passes; docs/passes.md) into one job file.

Run k counted the events of pass k (its `passes` rows, mode 'application
replay'; GPU metrics that need several passes by themselves: 'application
replay (image)', every value from the last run).  The merged file is run
0's file with /events holding every scheduled event in schedule order,
/region_stats counters filled from the run of each event's pass (matched
by rank, thread and region path), one /pass_values row per rank, thread,
region and event (its pass, the visits of that run, the exact value), and
/pass_checks listing every difference between the runs (passcheck.py).
Times and all other tables are run 0's.  Row layouts are the input files'
(the runtime wrote them from schema.def).

    tally-report merge-passes OUT PASS0.h5 PASS1.h5 ...   (exit 3: the runs differ)
    tally-report merge-passes --npasses PASS0.h5          (passes of run 0's schedule)
"""
import os
import sys

import numpy as np

from .errors import TallyError
from .h5table import rows as table, text as s
from .passcheck import Checks, check_runs, region_keys, schedule

IMAGE = "application replay (image)"   # GPU: counter data image, evaluated in the last run


def merged_kernels(files):
    """gpu_kernels: each metric's rows from the run of its pass; with
    counter data images, every row from the last run (the evaluated one)."""
    parts = [table(f, "gpu_kernels") for f in files]
    t = table(files[0], "passes")
    if t is not None and any(s(r["mode"]) == IMAGE for r in t):
        return parts[-1]
    return np.concatenate([p[p["pass"] == k] for k, p in enumerate(parts)])


def merged_events(files, sched):
    """New /events rows and, per event, (run, column in that run's events)."""
    ev0 = table(files[0], "events")
    out, src = np.zeros(len(sched), dtype=ev0.dtype), []
    for i, (name, p) in enumerate(sched):
        evp = table(files[p], "events") if p < len(files) else ev0[:0]
        cols = [j for j, r in enumerate(evp) if s(r["name"]) == name]
        if cols:
            out[i] = evp[cols[0]]
        else:
            out[i]["name"] = name.encode()
        out[i]["index"] = i
        src.append((p, cols[0] if cols else -1))
    return out, src


def merged_stats(files, sched, src):
    """region_stats with one counter column per scheduled event, and the
    (key, event, pass, visits, value) of every region and event."""
    rs0 = table(files[0], "region_stats")
    paths0 = {int(r["id"]): s(r["path"]) for r in table(files[0], "regions")}
    keys = [region_keys(f) for f in files]
    dt = np.dtype([(n, rs0.dtype[n]) if n != "counters" else (n, "<i8", (max(len(sched), 1),))
                   for n in rs0.dtype.names])
    out = np.zeros(len(rs0), dtype=dt)
    vals = []
    for i, r in enumerate(rs0):
        for n in rs0.dtype.names:
            if n != "counters":
                out[i][n] = r[n]
        key = (int(r["rank"]), int(r["thread"]), paths0[int(r["region"])])
        for e, (p, col) in enumerate(src):
            row = keys[p].get(key) if p < len(files) else None
            v = int(row["counters"][col]) if row is not None and col >= 0 else 0
            out[i]["counters"][e] = v
            vals.append((key, sched[e][0], p, int(row["visits"]) if row is not None else 0, v))
    return out, vals


def pass_values(dt, vals):
    """pass_values rows (of the file's dtype dt) for the merged values."""
    out = np.zeros(len(vals), dtype=dt)
    for i, ((rank, thread, path), ev, p, visits, v) in enumerate(vals):
        out[i] = tuple({"rank": rank, "thread": thread, "region": path.encode()[:511],
                        "event": ev.encode()[:255], "pass": p, "visits": visits,
                        "total_visits": visits, "value": v, "estimate": v, "extrapolated": 0}[n]
                       for n in dt.names)
    return out


def _replace(f, name, data):
    """Table name of f rewritten with data, its attributes (doc) kept."""
    table(f, name)   # a table of schema.def
    attrs = dict(f[name].attrs) if name in f else {}
    if name in f:
        del f[name]
    d = f.create_dataset(name, data=data)
    for k, v in attrs.items():
        d.attrs[k] = v


def _job_checks(files, sched, npasses):
    checks = Checks()
    if len(files) != npasses:
        checks.add("passes", len(files), npasses, len(files),
                   message="the schedule has %d pass(es), %d run(s) were merged" % (npasses, len(files)))
    check_runs(files, checks)
    for name, p in sched:
        if p >= len(files):
            checks.add("event", p, 1, 0, message="%s: its pass %d was not run" % (name, p))
    return checks


def merge(out, paths):
    """Merge the runs' files (paths, in run order) into out (written under
    a temporary name, then renamed); returns the pass_checks rows."""
    import h5py
    from . import filecheck
    files = [h5py.File(p, "r") for p in paths]
    try:
        for p, f in zip(paths, files):
            filecheck.structure(f, p)   # crafted runs: nothing outside the files read
        sched, npasses = schedule(files[0])
        checks = _job_checks(files, sched, npasses)
        events, src = merged_events(files, sched)
        stats, vals = merged_stats(files, sched, src)
        gpu = schedule(files[0], True)[0]
        kernels = merged_kernels(files) if gpu else None
    finally:
        for f in files:
            f.close()

    def fill(f):
        if sched:
            _replace(f, "events", events)
            _replace(f, "region_stats", stats)
            _replace(f, "pass_values", pass_values(f["pass_values"].dtype, vals))
        if kernels is not None:
            _replace(f, "gpu_kernels", kernels)
        _replace(f, "pass_checks", checks.array(f["pass_checks"].dtype))

    _write_through_fd(out, paths[0], fill)
    return checks.rows


def _write_through_fd(out, first, fill):
    """out as a copy of first changed by fill(h5py file): written through
    a descriptor created here (a fresh name, O_EXCL|O_NOFOLLOW, in the
    directory opened without following links), h5py on that descriptor,
    then renamed to out between the same directory descriptor: a name
    swapped in the directory never redirects a write."""
    import h5py
    import secrets
    from . import outfiles
    flags = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_RDWR | getattr(os, "O_CLOEXEC", 0)
    with outfiles.OutDir(os.path.dirname(out) or ".") as d:
        for _ in range(100):
            tmp = f".{os.path.basename(out)}.{secrets.token_hex(6)}.tmp"
            try:
                fd = os.open(tmp, flags, 0o644, dir_fd=d.fd)  # safe-file: O_EXCL in OutDir's fd
                break
            except FileExistsError:
                continue
        else:
            raise TallyError(f"{out}: no free temporary name beside it")
        try:
            with os.fdopen(fd, "r+b") as b:
                with open(first, "rb") as a:
                    b.write(a.read())
                b.flush()
                with h5py.File(b, "r+") as f:
                    fill(f)
            os.replace(tmp, os.path.basename(out), src_dir_fd=d.fd, dst_dir_fd=d.fd)  # safe-file: within OutDir's fd
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=d.fd)  # safe-file: our temporary, in OutDir's fd
            except OSError:
                pass
            raise


def npasses(path):
    """The pass count of the schedule run 0 recorded in its file."""
    import h5py
    with h5py.File(path, "r") as f:
        return schedule(f)[1]


def report_differences(out, nruns, rows, stream=sys.stderr):
    """The differences between the runs, in words (at most 20 listed)."""
    print("tally-run --passes: the %d runs differ (a non-deterministic program?): %d difference(s), "
          "listed in table pass_checks of %s; values of the differing regions are not comparable:"
          % (nruns, len(rows), out), file=stream)
    for r in rows[:20]:
        where = "" if r[1] < 0 else "rank %d thread %d %s: " % (r[1], r[2], r[3])
        print("  %s%s" % (where, r[7]), file=stream)
    if len(rows) > 20:
        print("  ... %d more" % (len(rows) - 20), file=stream)
