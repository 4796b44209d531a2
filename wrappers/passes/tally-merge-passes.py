#!@TALLY_REPORT_PYTHON@
"""tally-merge-passes.py - application replay: merge the files of the P runs
of one job (tally-run --passes; docs/passes.md) into one job file.

  tally-merge-passes.py OUT PASS0.h5 PASS1.h5 ...   merge; exit 0, or 3 when
                                                   the runs differ (reported)
  tally-merge-passes.py --npasses PASS0.h5         passes of run 0's schedule

Run k counted the events of pass k (its `passes` rows, mode 'application
replay'; GPU metrics that need several passes by themselves: 'application
replay (image)', every value from the last run).  OUT is run 0's file with /events holding every scheduled event
in schedule order, /region_stats counters filled from the run of each
event's pass (matched by rank, thread and region path), one /pass_values
row per rank, thread, region and event (its pass, the visits of that run,
the exact value), and /pass_checks listing every difference between the
runs: ranks, region paths, visits, GPU kernel launches, schedules.  Times
and all other tables are run 0's.  Table layouts are taken from the input
files, which the runtime wrote from wrappers/output/schema.def.
"""
import os
import sys

import h5py
import numpy as np

MODE = "application replay"
IMAGE = "application replay (image)"   # GPU: counter data image, evaluated in the last run


def s(b):
    return b.decode() if isinstance(b, bytes) else b


def table(f, name):
    return f[name][:] if name in f else None


def schedule(f, gpu=False):
    """[(name, pass)] of the CPU (or GPU) events in order, and the pass count
    of the job (CPU and GPU), from rank 0's rows."""
    t = table(f, "passes")
    rows = [] if t is None else [r for r in t if s(r["mode"]).startswith(MODE) and r["rank"] == 0]
    mine = sorted((r for r in rows if s(r["name"]).startswith("cuda:::") == gpu), key=lambda r: r["event"])
    return [(s(r["name"]), int(r["pass"])) for r in mine], max([int(r["npasses"]) for r in rows] or [1])


def merged_kernels(files):
    """gpu_kernels: each metric's rows from the run of its pass; with
    counter data images, every row from the last run (the evaluated one)."""
    parts = [f["gpu_kernels"][:] for f in files]
    t = table(files[0], "passes")
    if t is not None and any(s(r["mode"]) == IMAGE for r in t):
        return parts[-1]
    return np.concatenate([p[p["pass"] == k] for k, p in enumerate(parts)])


def region_keys(f):
    """{(rank, thread, path): row} of region_stats, with the region's path."""
    paths = {int(r["id"]): s(r["path"]) for r in f["regions"][:]}
    return {(int(r["rank"]), int(r["thread"]), paths[int(r["region"])]): r for r in f["region_stats"][:]}


def kernel_keys(f):
    t = table(f, "gpu_kernels")
    out = {}
    for r in ([] if t is None else t):
        key = (int(r["rank"]), int(r["device"]), int(r["thread"]), s(r["region"]), s(r["kernel"]))
        out[key] = max(out.get(key, 0), int(r["launches"]))
    return out


class Checks:
    def __init__(self, dtype):
        self.dtype, self.rows = dtype, []

    def add(self, what, k, expected, got, rank=-1, thread=-1, region="", message=""):
        self.rows.append((what, rank, thread, region, k, expected, got, message))

    def compare(self, what, k, ref, other, unit, where):
        """One row per key whose count differs between run 0 and run k."""
        for key in sorted(set(ref) | set(other), key=str):
            a, b = ref.get(key, -1), other.get(key, -1)
            if a == b:
                continue
            rank, thread, region = where(key)
            how = "missing in run %d" % k if b < 0 else "only in run %d" % k if a < 0 else \
                "%d %s in run 0, %d in run %d" % (a, unit, b, k)
            self.add(what, k, a, b, rank, thread, region, "%s: %s" % (what, how))

    def array(self):
        out = np.zeros(len(self.rows), dtype=self.dtype)
        for i, (what, rank, thread, region, k, exp, got, msg) in enumerate(self.rows):
            vals = {"check": what, "rank": rank, "thread": thread, "region": region, "pass": k,
                    "expected": exp, "got": got, "message": msg}
            out[i] = tuple(vals[n].encode()[:self.dtype[n].itemsize - 1] if isinstance(vals[n], str)
                           else vals[n] for n in self.dtype.names)
        return out


def check_runs(files, checks):
    f0 = files[0]
    sched0 = schedule(f0)
    ranks0 = sorted(int(r) for r in f0["ranks"]["rank"])
    regions0, kernels0 = region_keys(f0), kernel_keys(f0)
    for k, f in enumerate(files[1:], 1):
        ranks = sorted(int(r) for r in f["ranks"]["rank"])
        if ranks != ranks0:
            checks.add("ranks", k, len(ranks0), len(ranks),
                       message="ranks: %s in run 0, %s in run %d" % (ranks0, ranks, k))
        if schedule(f) != sched0 or schedule(f, True) != schedule(f0, True):
            desc = [" ".join("%s[%d]" % e for e in schedule(g)[0] + schedule(g, True)[0]) or "none"
                    for g in (f0, f)]
            checks.add("schedule", k, sched0[1], schedule(f)[1],
                       message="schedule: run 0 %d pass(es): %s; run %d %d pass(es): %s"
                       % (sched0[1], desc[0], k, schedule(f)[1], desc[1]))
        vis0 = {key: int(r["visits"]) for key, r in regions0.items()}
        vis = {key: int(r["visits"]) for key, r in region_keys(f).items()}
        checks.compare("visits", k, vis0, vis, "visits", lambda key: key)
        checks.compare("kernel launches", k, kernels0, kernel_keys(f), "launches",
                       lambda key: (key[0], key[2], "%s :: %s" % (key[3], key[4])))


def merged_events(files, sched):
    """New /events rows and, per event, (run, column in that run's events)."""
    ev0 = files[0]["events"][:]
    out, src = np.zeros(len(sched), dtype=ev0.dtype), []
    for i, (name, p) in enumerate(sched):
        evp = files[p]["events"][:] if p < len(files) else ev0[:0]
        cols = [j for j, r in enumerate(evp) if s(r["name"]) == name]
        if cols:
            out[i] = evp[cols[0]]
        else:
            out[i]["name"] = name.encode()
        out[i]["index"] = i
        src.append((p, cols[0] if cols else -1))
    return out, src


def merged_stats(files, sched, src):
    rs0 = files[0]["region_stats"][:]
    paths0 = {int(r["id"]): s(r["path"]) for r in files[0]["regions"][:]}
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


def pass_values(f, vals):
    dt = f["pass_values"].dtype
    out = np.zeros(len(vals), dtype=dt)
    for i, ((rank, thread, path), ev, p, visits, v) in enumerate(vals):
        out[i] = tuple({"rank": rank, "thread": thread, "region": path.encode()[:511],
                        "event": ev.encode()[:255], "pass": p, "visits": visits,
                        "total_visits": visits, "value": v, "estimate": v, "extrapolated": 0}[n]
                       for n in dt.names)
    return out


def replace(f, name, data):
    attrs = dict(f[name].attrs) if name in f else {}
    if name in f:
        del f[name]
    d = f.create_dataset(name, data=data)
    for k, v in attrs.items():
        d.attrs[k] = v


def merge(out, paths):
    files = [h5py.File(p, "r") for p in paths]
    sched, npasses = schedule(files[0])
    checks = Checks(files[0]["pass_checks"].dtype)
    if len(files) != npasses:
        checks.add("passes", len(files), npasses, len(files),
                   message="the schedule has %d pass(es), %d run(s) were merged" % (npasses, len(files)))
    check_runs(files, checks)
    for name, p in sched:
        if p >= len(files):
            checks.add("event", p, 1, 0, message="%s: its pass %d was not run" % (name, p))
    events, src = merged_events(files, sched)
    stats, vals = merged_stats(files, sched, src)
    tmp = out + ".tmp"
    with open(paths[0], "rb") as a, open(tmp, "wb") as b:
        b.write(a.read())
    with h5py.File(tmp, "r+") as f:
        if sched:
            replace(f, "events", events)
            replace(f, "region_stats", stats)
            replace(f, "pass_values", pass_values(f, vals))
        if schedule(files[0], True)[0]:
            replace(f, "gpu_kernels", merged_kernels(files))
        replace(f, "pass_checks", checks.array())
    for f in files:
        f.close()
    os.replace(tmp, out)
    return checks.rows


def main(argv):
    if len(argv) == 3 and argv[1] == "--npasses":
        with h5py.File(argv[2], "r") as f:
            print(schedule(f)[1])
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    rows = merge(argv[1], argv[2:])
    if rows:
        print("tally-run --passes: the %d runs differ (a non-deterministic program?): %d difference(s), "
              "listed in table pass_checks of %s; values of the differing regions are not comparable:"
              % (len(argv) - 2, len(rows), argv[1]), file=sys.stderr)
        for r in rows[:20]:
            where = "" if r[1] < 0 else "rank %d thread %d %s: " % (r[1], r[2], r[3])
            print("  %s%s" % (where, r[7]), file=sys.stderr)
        if len(rows) > 20:
            print("  ... %d more" % (len(rows) - 20), file=sys.stderr)
    return 3 if rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
