#!/usr/bin/python3
"""check_budget.py FILE TRUTH MODE - the cost budget on budget_app.c.

MODE budget (TALLY_BUDGET=3): "short", whose counter reads cost far more
than its own time, is degraded, and the degraded table says so: its step
(counters off, then visits only: its bookkeeping alone costs more than 3%
of its time without reads), the visit and time it began (after some visits,
before the last), its measured cost above the budget; its visits stay exact
and its counters are those of its counted visits.  The way to visits only
follows the runtime's measured costs: quiet, step 1 goes straight to 3; on a
busy machine a measurement can take it through step 2 (1-in-N sampled reads)
first.  Either path is checked for what it promises: never sampled, only the
visits before step 1 counted; sampled, the estimate marked (sample_n,
sampled_visits) and covering the visits up to step 3, no further.  "long" is not degraded: its page faults are
exact (PAGES per visit, the pages it touched).  MODE off: nothing is
degraded, every visit of "short" counted."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

sys.path.insert(0, os.environ["REGION_PYTHONPATH"])
from tally.reader import read  # noqa: E402

path, truth_path, mode = sys.argv[1:4]
run = read(path)
regions, stats, ranks = run.table("regions"), run.table("region_stats"), run.table("ranks")
deg = run.table("degraded")
PF = "perf::PAGE-FAULTS"
truth = {n: (int(v), int(pp)) for n, v, pp in (line.split() for line in open(truth_path))}


def row_of(name):
    ids = list(regions[regions["path"] == "(thread) / " + name]["id"])
    check(len(ids) == 1, f"{name}: one region ({ids})")
    return stats[(stats["region"] == ids[0]) & (stats["thread"] == 0)].iloc[0], ids[0]


lrow, lid = row_of("long")
srow, sid = row_of("short")
lv, pages = truth["long"]
sv = truth["short"][0]
check(int(lrow["visits"]) == lv and int(srow["visits"]) == sv,
      f"visits exact: long {lrow['visits']}/{lv}, short {srow['visits']}/{sv}")
check(lid not in set(deg["region"]), "long region not degraded")
check(int(lrow["uncounted"]) == 0 and lv * pages <= int(lrow[PF]) <= lv * pages + lv,
      f"long: page faults {lrow[PF]}, want {lv * pages} (+ at most one per visit)")
if mode == "off":
    check(len(deg) == 0, f"budget off: nothing degraded ({len(deg)} rows)")
    check(float(ranks["budget_pct"].iloc[0]) == 0, "budget_pct 0 when off")
else:
    check(float(ranks["budget_pct"].iloc[0]) == 3, f"budget_pct {ranks['budget_pct'].iloc[0]}")
    check(len(deg) == 1 and int(deg["region"].iloc[0]) == sid, f"short alone degraded: {deg.to_dict('records')}")
    check(int(ranks["regions_degraded"].sum()) == len(deg), "ranks.regions_degraded counts the rows")
    if len(deg) == 1:
        d = deg.iloc[0]
        check(int(d["step"]) == 3, f"step {d['step']}: visits only (3), its bookkeeping alone over the budget")
        check(0 < int(d["from_visit"]) < int(d["visits_only_visit"]) < sv,
              f"counters off from visit {d['from_visit']}, visits only from {d['visits_only_visit']}, of {sv}")
        check(int(d["from_ns"]) > 0, f"from {d['from_ns']} ns")
        check(float(d["cost_pct"]) > 3, f"why: records cost {d['cost_pct']}% of its time, over 3%")
        sn, sampled = int(d["sample_n"]), int(d["sampled_visits"])
        fv, v3, cv = int(d["from_visit"]), int(d["visits_only_visit"]), int(d["counted_visits"])
        if sampled == 0:
            print(f"short: counters off, then visits only ({'never sampled' if sn == 0 else f'1 in {sn} chosen, no visit read'})")
            check(cv <= fv + 1, f"counters of {cv} visits, those before it ({fv})")
        else:
            print(f"short: counters off, sampled 1 in {sn} ({sampled} visits read), then visits only")
            check(sn > 1 and sampled <= v3 - fv,
                  f"sampled: 1 in {sn}, {sampled} visits read between visit {fv} and {v3}")
            check(cv == v3, f"estimated counters cover the visits up to visits only: {cv}, want {v3}")
        check(int(srow["uncounted"]) == 0, "short: its counted visits' values kept")
sys.exit(done("check_budget " + mode))
