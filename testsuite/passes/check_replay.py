#!/usr/bin/python3
"""check_replay.py CASE VISITS PAGES - checks of run_pass_test.sh's
application replay files (tally-run --passes=auto -- mpirun -np 4).

Truth: every visit of region "step" touches PAGES fresh pages, so its page
faults and minor faults are PAGES x VISITS exactly and major faults 0.
With the counter budget 2 the schedule is pass 0 {PAGE-FAULTS, TASK-CLOCK},
pass 1 {MINOR-FAULTS, MAJOR-FAULTS}; run k counted pass k.  replay: the
merged values equal the truth; faults equal each event counted alone
(alone<i>.h5); TASK-CLOCK, in the merged file and counted alone, is
within 5% (+ 2 ms: the region calls around the work and the first
visit's set-up are inside the counted window) of the
thread CPU time pass_app measured around the same work in the same
process (out_multi.txt, run 0; out_alone1.txt).  replay_serial: the same values in one process
without MPI.  replay_mismatch: run 1 made one more visit on every
rank, which /pass_checks and stderr must report (step and MPI_Barrier of
each rank: 13 visits in run 0, 14 in run 1), and nothing else.
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
RANKS = [0] if CASE == "replay_serial" else [0, 1, 2, 3]
EV = ["perf::PAGE-FAULTS", "perf::TASK-CLOCK", "perf::MINOR-FAULTS", "perf::MAJOR-FAULTS"]
PASS_OF = {"perf::PAGE-FAULTS": 0, "perf::TASK-CLOCK": 0, "perf::MINOR-FAULTS": 1,
           "perf::MAJOR-FAULTS": 1}
STEP = "(thread) / step"


def s(b):
    return b.decode() if isinstance(b, bytes) else b


def rows(f, table):
    d = f[table][:]
    return [{k: s(r[k]) for k in d.dtype.names} for r in d]


def step_stats(f):
    """{rank: region_stats row of thread 0's step}"""
    reg = {r["id"]: r["path"] for r in rows(f, "regions")}
    return {int(r["rank"]): r for r in f["region_stats"][:] if reg[r["region"]] == STEP and r["thread"] == 0}


def check_schedule(f):
    sched = rows(f, "passes")
    check(sorted({r["rank"] for r in sched}) == RANKS, f"schedule rows from ranks {RANKS}")
    for k in RANKS:
        mine = [(r["name"], r["pass"], r["npasses"], r["mode"], r["agrees"]) for r in sched if r["rank"] == k]
        want = [(e, PASS_OF[e], 2, "application replay", 1) for e in EV]
        check(mine == want, f"rank {k} schedule {mine}")


def check_merged(f):
    names = [s(n) for n in f["events"]["name"]]
    check(names == EV, f"merged events {names}")
    check(list(f["events"]["index"]) == [0, 1, 2, 3], "event indexes 0..3")
    stats = step_stats(f)
    check(sorted(stats) == RANKS, f"step rows of ranks {sorted(stats)}")
    for k, r in stats.items():
        c = [int(x) for x in r["counters"]]
        check(r["visits"] == VISITS, f"rank {k}: step visits {r['visits']} == {VISITS}")
        check(c[0] == PAGES * VISITS and c[2] == PAGES * VISITS and c[3] == 0,
              f"rank {k}: PAGE-FAULTS {c[0]}, MINOR-FAULTS {c[2]} == {PAGES * VISITS}, MAJOR-FAULTS {c[3]} == 0")
        # CPU time within the wall time of the visits (+5%: the counters start before and stop after
        # the region's clock reads)
        check(0 < c[1] <= 1.05 * r["incl_ns"], f"rank {k}: TASK-CLOCK 0 < {c[1]} <= 1.05 x step time "
              f"{r['incl_ns']} ns")
    vals = [v for v in rows(f, "pass_values") if v["region"] == STEP and v["thread"] == 0]
    check(len(vals) == len(RANKS) * len(EV), f"{len(vals)} pass_values rows for step ({len(RANKS)} rank(s) x 4 events)")
    for v in vals:
        want = int(stats[v["rank"]]["counters"][EV.index(v["event"])])
        check(v["pass"] == PASS_OF[v["event"]] and v["visits"] == VISITS == v["total_visits"]
              and v["value"] == v["estimate"] == want and v["extrapolated"] == 0,
              f"rank {v['rank']} {v['event']}: pass {v['pass']}, visits {v['visits']}, value {v['value']} "
              f"== region_stats {want}, not extrapolated")
    return stats


def app_cpu(path, run):
    """{rank: ns} pass_app printed for run `run` ("-": not a replay run)."""
    out = {}
    for line in open(path):
        if line.startswith("pass_app cpu "):
            kv = dict(w.split("=") for w in line.split()[2:])
            if kv["pass"] == run:
                out[int(kv["rank"])] = int(kv["ns"])
    return out


def check_task_clock(got, truth, what):
    """perf::TASK-CLOCK of the region against the thread CPU time of its work."""
    lo, hi = 0.95 * truth, 1.05 * truth + 2e6
    check(lo <= got <= hi, f"{what}: TASK-CLOCK {got} ns within [{lo:.0f}, {hi:.0f}] "
          f"(the work's thread CPU time {truth} ns)")


def check_alone(stats):
    """Each event counted alone in its own job: faults exact; TASK-CLOCK, here and
    counted alone, against the thread CPU time of the work in its own process."""
    run0 = app_cpu("out_multi.txt", "0")
    check(sorted(run0) == RANKS, f"pass_app's CPU times of run 0 from ranks {sorted(run0)}")
    for i, e in enumerate(EV):
        with tally.raw(f"alone{i}.h5") as g:
            check([s(n) for n in g["events"]["name"]] == [e], f"alone{i}.h5 counted {e} only")
            ref = {k: int(r["counters"][0]) for k, r in step_stats(g).items()}
        for k in RANKS:
            got = int(stats[k]["counters"][i])
            if e == "perf::TASK-CLOCK":   # CPU time: each against its own process's clock
                check_task_clock(got, run0.get(k, -1), f"rank {k} replay")
                check_task_clock(ref[k], app_cpu(f"out_alone{i}.txt", "-").get(k, -1), f"rank {k} alone")
            else:                         # faults of the same pages: exact
                check(got == ref[k], f"rank {k} {e}: replay {got} == alone {ref[k]}")


def check_mismatch(f):
    err = open("err.txt").read()
    check("the 2 runs differ (a non-deterministic program?)" in err, "stderr reports the runs differ")
    check("(the runs differ: see table pass_checks)" in err, "tally-run names the pass_checks table")
    got = sorted((r["check"], r["rank"], r["thread"], r["region"], r["pass"], r["expected"], r["got"])
                 for r in rows(f, "pass_checks"))
    want = sorted(("visits", k, 0, p, 1, VISITS, VISITS + 1)
                  for k in RANKS for p in (STEP, "(thread) / MPI_Barrier"))
    check(got == want, f"pass_checks rows {got}")
    check(all("13 visits in run 0, 14 in run 1" in s(m) for m in f["pass_checks"]["message"]),
          "each row says 13 visits in run 0, 14 in run 1")


with tally.raw("multi.h5") as f:
    check(f.attrs["nranks"] == len(RANKS), f"merged file of {len(RANKS)} rank(s)")
    check_schedule(f)
    if CASE in ("replay", "replay_serial"):
        check(len(f["pass_checks"]) == 0, "the 2 runs match: pass_checks is empty")
        stats = check_merged(f)
        if CASE == "replay":
            check_alone(stats)
    else:
        check_mismatch(f)
sys.exit(done("check_replay"))
