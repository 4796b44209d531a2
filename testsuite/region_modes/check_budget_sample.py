#!/usr/bin/python3
"""check_budget_sample.py FILE TRUTH MODE [BUDGET] - the cost budget's
sampled step on budget_sample_app.c (events perf::PAGE-FAULTS and
perf::TASK-CLOCK).

MODE off (TALLY_BUDGET=off): every visit read; nothing degraded; medium's
page faults exact (the pages it touched, plus at most 1% for faults of
its own), its task-clock within the bound below with no sampling error.
Writes budget.txt: the budget that puts "medium" in the sampled step with
the widest margin both ways, from this run's measured costs: a read R and
a visit's bookkeeping V (ranks.counter_read_ns, visit_ns) and medium's
own mean time M (its time a visit less its two reads; under load it
includes the waits for the CPU, as the runtime's does): degraded when
2R + V > B M, visits only when V > B M, so B is their geometric middle,
sqrt(V (2R + V)) / M (x4 or more either way when a read costs 8 V or
more; the test fails when reads cost less than 1.5 V, where the step has
no room).

MODE sample (TALLY_BUDGET=BUDGET): "medium" is degraded, then sampled
(step 2): the degraded table says from which visit and time its counter
reads went off and its sampled reads began, 1 in sample_n >= 2, why (its
records' cost above the budget, at 1 in N within it), its sampled
visits (fewer than 3/4 of those it stands for: the values are scaled);
every visit counted (counted_visits = visits).  Its page faults, an
estimate, within TOL of the pages it touched: TOL = max(3%, 4 standard
errors of the sample's mean, 0.45 / sqrt(sampled visits): the visits touch
1 to 4 pages, mean 2.5, sd 1.12) plus the 1% of MODE off.  Its task-clock, an
estimate, within TOL of its CPU time measured inside it, widened by
TH_SWITCH_GAP_NS per context switch around its visits and by its visits
x 2 reads (a sampled visit's task-clock holds part of its two reads, the
estimate scales them to every visit).  "long" keeps exact counters (64
page faults a visit, + at most 1) and is not in the degraded table; the
report marks medium '~e' and says "1 counters sampled"."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, SWITCH_GAP_NS  # noqa: E402

sys.path.insert(0, os.environ["REGION_PYTHONPATH"])
from tally.reader import read  # noqa: E402
from tally import report  # noqa: E402

path, truth_path, mode = sys.argv[1:4]
budget = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
run = read(path)
regions, stats, ranks = run.table("regions"), run.table("region_stats"), run.table("ranks")
deg = run.table("degraded")
PF, TC = "perf::PAGE-FAULTS", "perf::TASK-CLOCK"
truth = {w[0]: [int(x) for x in w[1:]] for w in (line.split() for line in open(truth_path))}
lv, lpages = truth["long"]
mv, mpages, mcpu, spin, switches = truth["medium"]
R, V = int(ranks["counter_read_ns"].iloc[0]), int(ranks["visit_ns"].iloc[0])
print(f"{mode}: a read {R} ns, a visit {V} ns, medium {mv} visits {mpages} pages {mcpu} ns CPU, "
      f"{switches} switches")


def row_of(name):
    ids = list(regions[regions["path"] == "(thread) / " + name]["id"])
    check(len(ids) == 1, f"{name}: one region ({ids})")
    return stats[(stats["region"] == ids[0]) & (stats["thread"] == 0)].iloc[0], ids[0]


def within(value, want, tol, extra=0.0):
    return abs(value - want) <= tol * want + extra


lrow, lid = row_of("long")
mrow, mid = row_of("medium")
check(int(lrow["visits"]) == lv and int(mrow["visits"]) == mv,
      f"visits exact: long {lrow['visits']}/{lv}, medium {mrow['visits']}/{mv}")
check(lid not in set(deg["region"]), "long region not degraded")
check(int(lrow["uncounted"]) == 0 and lv * lpages <= int(lrow[PF]) <= lv * lpages + lv,
      f"long: page faults {lrow[PF]} exact, want {lv * lpages} (+ at most one a visit)")
faults, tclock = int(mrow[PF]), int(mrow[TC])
slack = switches * SWITCH_GAP_NS + mv * 2 * R
if mode == "off":
    check(len(deg) == 0, f"budget off: nothing degraded ({len(deg)} rows)")
    check(mpages <= faults <= mpages * 1.01, f"medium: page faults {faults}, want {mpages} (+1%)")
    check(within(tclock, mcpu, 0.0, slack),
          f"medium: task-clock {tclock} ns, CPU inside {mcpu} +- {slack} (switches, reads)")
    check(2 * R + V >= 4 * V, f"a read ({R} ns) costs more than 1.5x a visit's bookkeeping ({V} ns)")
    own = int(mrow["incl_ns"]) / mv - 2 * R
    check(own > spin, f"medium's own time {own:.0f} ns a visit, its spin {spin} ns and more")
    b = 100.0 * math.sqrt(V * (2 * R + V)) / own
    b = min(100.0, max(0.1, round(b, 2)))
    print(f"budget for the sampled step: {b}% (degraded above {100.0 * (2 * R + V) / own:.2f}%, "
          f"visits only below {100.0 * V / own:.2f}% of medium's {own:.0f} ns)")
    with open("budget.txt", "w") as f:
        f.write(f"{b}\n")
    sys.exit(done("check_budget_sample off"))

check(float(ranks["budget_pct"].iloc[0]) == budget, f"budget_pct {ranks['budget_pct'].iloc[0]}, want {budget}")
check(list(deg["region"]) == [mid], f"medium alone degraded: {deg.to_dict('records')}")
check(int(ranks["regions_degraded"].sum()) == len(deg), "ranks.regions_degraded counts the rows")
if list(deg["region"]) == [mid]:
    d = {k: (float(v) if k.endswith("pct") else int(v)) for k, v in deg.iloc[0].items()}
    print("degraded:", d)
    n, sampled, covered = d["sample_n"], d["sampled_visits"], mv - d["from_visit"]
    check(d["step"] == 2, f"step {d['step']}: counters sampled (2)")
    check(0 < d["from_visit"] < d["sampled_from_visit"] < mv,
          f"counters off from visit {d['from_visit']}, sampled from {d['sampled_from_visit']}, of {mv}")
    check(0 < d["from_ns"] < d["sampled_from_ns"], f"from {d['from_ns']} ns, sampled from {d['sampled_from_ns']} ns")
    check(d["visits_only_visit"] == 0 and d["visits_only_ns"] == 0, "not visits only")
    check(n >= 2, f"1 in {n}")
    check(d["cost_pct"] > budget, f"why: records cost {d['cost_pct']:.2f}% of its time, over {budget}%")
    check(0 < d["sample_cost_pct"] <= budget, f"why N: at 1 in {n} {d['sample_cost_pct']:.2f}% <= {budget}%")
    check(200 <= sampled <= 0.75 * covered, f"{sampled} sampled visits: at least 200, under 3/4 of {covered}")
    check(sampled >= 0.8 * (mv - d["sampled_from_visit"]) / n,
          f"{sampled} sampled visits: about 1 in {n} of the {mv - d['sampled_from_visit']} since sampling began")
    check(d["counted_visits"] == mv, f"counters hold all visits: {d['counted_visits']} of {mv}")
    check(d["timed_visits"] == mv, f"time of all visits: {d['timed_visits']} of {mv}")
    tol = max(0.03, 4 * 0.45 / math.sqrt(max(sampled, 1))) + 0.01
    check(within(faults, mpages, tol), f"medium: page faults {faults} (estimate), want {mpages} +- {tol:.1%}")
    check(within(tclock, mcpu, tol, slack),
          f"medium: task-clock {tclock} ns (estimate), CPU inside {mcpu} +- {tol:.1%} + {slack} (switches, reads)")
    print(f"estimates: page faults {faults / mpages - 1:+.2%}, task-clock {tclock / mcpu - 1:+.2%} "
          f"(tolerance {tol:.1%}), {sampled} sampled of {covered}")
    secs = report.build(run)
    text = "\n".join(str(v) for s in secs for v in s.frame.to_numpy().ravel())
    check("~e medium" in text, "the report marks medium '~e' (an estimate)")
    check("1 counters sampled" in text, "the report's budget line: 1 counters sampled")
sys.exit(done("check_budget_sample " + mode))
