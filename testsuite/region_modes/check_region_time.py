#!/usr/bin/python3
"""check_region_time.py FILE TRUTH MODE - user regions of region_time_app.c.

MODE counters: the default; each region's counters were read (uncounted 0)
and its task-clock lies between the thread CPU time inside it, less
SWITCH_LOSS_NS per context switch of the thread inside it, and its wall
time around the calls.  The switches: the scheduler starts charging a
thread's CPU time when it picks it, perf starts its task-clock only at
its sched-in after the switch (tharness.h, TH_SWITCH_GAP_NS); measured
here: "nap" (5 sleeps, ~30 us of CPU each) had task-clock 83 us against
154 us of CPU, ~14 us a switch.  MODE time: TALLY_REGION_COUNTERS=0; the counters
were never read (uncounted 1, no values: NaN in the reader, as MPI and NVTX
regions without counters), while the times keep their bounds and the root region still
counts.  Times in both: between the wall time inside the region and the
wall time around its begin/end calls; visits exact."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, SWITCH_LOSS_NS  # noqa: E402

sys.path.insert(0, os.environ["REGION_PYTHONPATH"])
from tally.reader import read  # noqa: E402

path, truth_path, mode = sys.argv[1:4]
run = read(path)
regions = run.table("regions")
stats = run.table("region_stats")
events = list(run.table("events")["name"])
check(events == ["perf::TASK-CLOCK"], f"events {events}")
TC = "perf::TASK-CLOCK"   # CNT columns are named after the events
for line in open(truth_path):
    name, visits, inner, outer, cpu, switches = line.split()
    visits, inner, outer, cpu, switches = int(visits), int(inner), int(outer), int(cpu), int(switches)
    low = cpu - switches * SWITCH_LOSS_NS
    ids = list(regions[regions["path"] == "(thread) / " + name]["id"])
    check(len(ids) == 1, f"{name}: one region ({ids})")
    if len(ids) != 1:
        continue
    row = stats[(stats["region"] == ids[0]) & (stats["thread"] == 0)].iloc[0]
    check(int(row["visits"]) == visits, f"{name}: visits {row['visits']}, want {visits}")
    check(inner <= int(row["incl_ns"]) <= outer,
          f"{name}: time {row['incl_ns']} ns outside [{inner}, {outer}] (inside, around the calls)")
    cnt = [row[e] for e in events]   # the reader gives NaN for values never measured
    if mode == "time":
        check(int(row["uncounted"]) == 1, f"{name}: uncounted {row['uncounted']}, want 1 (counters never read)")
        check(all(x != x for x in cnt), f"{name}: counter values {cnt}, want none (not measured)")
    else:
        check(int(row["uncounted"]) == 0, f"{name}: uncounted {row['uncounted']}, want 0 (counters read)")
        check(low <= int(row[TC]) <= outer,
              f"{name}: task-clock {int(row[TC])} outside [{low}, {outer}] "
              f"(CPU inside {cpu} less {switches} switches x {SWITCH_LOSS_NS}, wall around)")
root = stats[(stats["region"] == 0) & (stats["thread"] == 0)].iloc[0]
check(int(root["uncounted"]) == 0 and int(root[TC]) > 0,
      f"root region counted in every mode (uncounted {root['uncounted']}, task-clock {root[TC]})")
sys.exit(done("check_region_time " + mode))
