#!/usr/bin/python3
"""check_passes.py CASE VISITS PAGES - checks of run_pass_test.sh's files.

Truth: every visit of region "step" touches PAGES fresh pages, so a pass's
page faults (and minor faults) are PAGES x the visits that ran the pass,
major faults are 0; the k-th visit ran pass k mod 2.
"""
import os
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402
show_ok()

CASE, VISITS, PAGES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
RANKS = [0] if CASE == "serial" else [0, 1, 2, 3]
EV = ["perf::PAGE-FAULTS", "perf::TASK-CLOCK", "perf::MINOR-FAULTS", "perf::MAJOR-FAULTS"]
PASS_OF = {"perf::PAGE-FAULTS": 0, "perf::TASK-CLOCK": 0, "perf::MINOR-FAULTS": 1,
           "perf::MAJOR-FAULTS": 1}


def s(b):
    return b.decode() if isinstance(b, bytes) else b


def rows(f, table):
    d = f[table][:]
    return [{k: s(r[k]) for k in d.dtype.names} for r in d]


def check_schedule(f, mismatched=()):
    sched = rows(f, "passes")
    ranks = sorted({r["rank"] for r in sched})
    check(ranks == RANKS, f"schedule rows from ranks {ranks}")
    by_rank = {k: [(r["event"], r["name"], r["pass"], r["npasses"], r["rank0_hash"])
                   for r in sched if r["rank"] == k] for k in ranks}
    check(all(by_rank[k] == by_rank[0] for k in ranks), "all ranks recorded rank 0's schedule")
    check([(n, p) for _, n, p, _, _ in by_rank[0]] == [(e, PASS_OF[e]) for e in EV],
          f"schedule: {[(n, p) for _, n, p, _, _ in by_rank[0]]}")
    check(all(r["npasses"] == 2 and r["mode"] == "region rotation" for r in sched), "2 passes, rotation")
    for r in sched:
        bad = r["rank"] in mismatched
        check(r["agrees"] == (0 if bad else 1) and (r["config_hash"] != r["rank0_hash"]) == bad,
              f"rank {r['rank']} {r['name']}: agrees={r['agrees']} own hash "
              f"{'differs' if bad else 'equals'} rank 0's")


def check_values(f):
    vals = rows(f, "pass_values")
    visits = {0: (VISITS + 1) // 2, 1: VISITS // 2}
    stats = {r["rank"]: r for r in step_stats(f)}
    check(len(vals) == len(RANKS) * len(EV), f"{len(vals)} pass_values rows ({len(RANKS)} rank(s) x 4 events)")
    for v in vals:
        p, name = v["pass"], v["event"]
        where = f"rank {v['rank']} {name}"
        check(v["region"] == "(thread) / step" and p == PASS_OF[name], f"{where}: region, pass {p}")
        check(v["visits"] == visits[p] and v["total_visits"] == VISITS,
              f"{where}: visits {v['visits']} of {v['total_visits']} (truth {visits[p]} of {VISITS})")
        check(v["extrapolated"] == (visits[p] != VISITS), f"{where}: extrapolated flag")
        if name in ("perf::PAGE-FAULTS", "perf::MINOR-FAULTS"):
            check(v["value"] == PAGES * visits[p], f"{where}: {v['value']} == {PAGES} x {visits[p]}")
            check(v["estimate"] == PAGES * VISITS, f"{where}: estimate {v['estimate']} == {PAGES * VISITS}")
        elif name == "perf::MAJOR-FAULTS":
            check(v["value"] == 0 and v["estimate"] == 0, f"{where}: {v['value']} == 0")
        else:
            incl = stats[v["rank"]]["incl_ns"]
            # CPU time of the pass's visits cannot exceed the wall time of all visits
            check(0 < v["value"] <= incl, f"{where}: 0 < {v['value']} <= step time {incl} ns")
    return vals


def step_stats(f):
    reg = {r["id"]: r["path"] for r in rows(f, "regions")}
    return [r for r in f["region_stats"][:] if reg[r["region"]] == "(thread) / step" and r["thread"] == 0]


def check_single(vals):
    """Extrapolated totals against a single-pass run of the same events."""
    with tally.raw("single.h5") as g:
        names = [s(n) for n in g["events"]["name"]]
        check(names == EV, f"single-pass run counted {names}")
        check(len(g["pass_values"]) == 0, "single-pass run has no pass values")
        ref = {int(r["rank"]): r["counters"] for r in step_stats(g)}
    for v in vals:
        if v["event"] in ("perf::PAGE-FAULTS", "perf::MINOR-FAULTS"):
            one = int(ref[v["rank"]][EV.index(v["event"])])
            check(abs(v["estimate"] - one) <= 0.02 * one,
                  f"rank {v['rank']} {v['event']}: estimate {v['estimate']} within 2% of single pass {one}")


with tally.raw("multi.h5") as f:
    if CASE == "serial":
        check_schedule(f)
        check_values(f)
    elif CASE == "rotate":
        check_schedule(f)
        check_single(check_values(f))
        check(len(f["events"]) == 0, "the runtime counted no events of its own (the passes did)")
    else:
        err = open("err.txt").read()
        check("rank 3]: CPU pass schedule differs from rank 0's" in err and "using rank 0's" in err,
              "rank 3 reports how its view differs")
        check("1 rank(s) (3) do not agree with rank 0" in err, "rank 0 names rank 3")
        check_schedule(f, mismatched=(3,))
        check_values(f)
sys.exit(done("check_passes"))
