"""Application replay: what must agree between the runs of one job.

The runs of `tally-run --passes` should be identical but for the events
they count.  check_runs() compares run k with run 0 (ranks, schedules,
region visits, GPU kernel launches) and records each difference as a row
of the pass_checks table (docs/passes.md).
"""
import numpy as np

from .h5table import rows as table, text as s

MODE = "application replay"


def schedule(f, gpu=False):
    """[(name, pass)] of the CPU (or GPU) events in order, and the pass count
    of the job (CPU and GPU), from rank 0's rows of passes."""
    t = table(f, "passes")
    rows = [] if t is None else [r for r in t if s(r["mode"]).startswith(MODE) and r["rank"] == 0]
    mine = sorted((r for r in rows if s(r["name"]).startswith("cuda:::") == gpu), key=lambda r: r["event"])
    return [(s(r["name"]), int(r["pass"])) for r in mine], max([int(r["npasses"]) for r in rows] or [1])


def region_keys(f):
    """{(rank, thread, path): row} of region_stats, with the region's path."""
    paths = {int(r["id"]): s(r["path"]) for r in table(f, "regions")}
    return {(int(r["rank"]), int(r["thread"]), paths[int(r["region"])]): r for r in table(f, "region_stats")}


def kernel_keys(f):
    """{(rank, device, thread, region, kernel): launches} of gpu_kernels."""
    t = table(f, "gpu_kernels")
    out = {}
    for r in ([] if t is None else t):
        key = (int(r["rank"]), int(r["device"]), int(r["thread"]), s(r["region"]), s(r["kernel"]))
        out[key] = max(out.get(key, 0), int(r["launches"]))
    return out


class Checks:
    """The rows of pass_checks, collected."""

    def __init__(self):
        self.rows = []

    def add(self, what, k, expected, got, rank=-1, thread=-1, region="", message=""):
        """One difference: what, run k, the count in run 0 and in run k."""
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

    def array(self, dtype):
        """The rows as a structured array of dtype (the file's pass_checks)."""
        out = np.zeros(len(self.rows), dtype=dtype)
        for i, (what, rank, thread, region, k, exp, got, msg) in enumerate(self.rows):
            vals = {"check": what, "rank": rank, "thread": thread, "region": region, "pass": k,
                    "expected": exp, "got": got, "message": msg}
            out[i] = tuple(vals[n].encode()[:dtype[n].itemsize - 1] if isinstance(vals[n], str)
                           else vals[n] for n in dtype.names)
        return out


def _ranks(f):
    return sorted(int(r) for r in table(f, "ranks")["rank"])


def _check_schedule(f0, f, k, checks):
    sched0, sched = schedule(f0), schedule(f)
    if sched != sched0 or schedule(f, True) != schedule(f0, True):
        desc = [" ".join("%s[%d]" % e for e in schedule(g)[0] + schedule(g, True)[0]) or "none"
                for g in (f0, f)]
        checks.add("schedule", k, sched0[1], sched[1],
                   message="schedule: run 0 %d pass(es): %s; run %d %d pass(es): %s"
                   % (sched0[1], desc[0], k, sched[1], desc[1]))


def check_runs(files, checks):
    """Compare every run with run 0 (files: open h5py files in run order)."""
    f0 = files[0]
    ranks0 = _ranks(f0)
    regions0, kernels0 = region_keys(f0), kernel_keys(f0)
    vis0 = {key: int(r["visits"]) for key, r in regions0.items()}
    for k, f in enumerate(files[1:], 1):
        ranks = _ranks(f)
        if ranks != ranks0:
            checks.add("ranks", k, len(ranks0), len(ranks),
                       message="ranks: %s in run 0, %s in run %d" % (ranks0, ranks, k))
        _check_schedule(f0, f, k, checks)
        vis = {key: int(r["visits"]) for key, r in region_keys(f).items()}
        checks.compare("visits", k, vis0, vis, "visits", lambda key: key)
        checks.compare("kernel launches", k, kernels0, kernel_keys(f), "launches",
                       lambda key: (key[0], key[2], "%s :: %s" % (key[3], key[4])))
