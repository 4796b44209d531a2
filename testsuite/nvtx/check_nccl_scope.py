#!/usr/bin/env python3
"""check_nccl_scope.py PROCESS_H5 THREAD_H5 - run_nccl_scope.sh's checks,
read with the project's reader (tally.read, tally.nccl):
- process scope: "NCCL calls per rank" has ncclAllReduce 3 calls called
  in 'step / backward' (the worker's, while the main thread was there),
  1 in 'step' (the main thread's own), 2 at the root (no region open in
  the process); 'step' and 'backward' keep 1 visit each summed over the
  threads (the worker's borrowed frames add none), the worker's 'step'
  holds its calls' time (>= 3 x 5 ms) and its root holds its 'step';
- thread scope (the planted fault): the worker's 5 calls at its root,
  none under 'backward'."""
import os
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402
from tally import nccl  # noqa: E402

ok = True


def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and bool(cond)


def where(path):
    """The shown path's last names: 'step / backward', 'step', '' (root)."""
    names = [n for n in path.split(" / ") if n and n != "(thread)"]
    return " / ".join(names)


def calls_by_place(run):
    c = nccl.calls(run)
    c = c[c["function"] == "ncclAllReduce"]
    out = {}
    for place, n in zip(c["called_in"], c["calls"]):
        out[where(str(place))] = out.get(where(str(place)), 0) + int(n)
    return out


proc_path, thread_path = sys.argv[1:3]
run = tally.read(proc_path)
got = calls_by_place(run)
check(got == {"step / backward": 3, "step": 1, "": 2},
      f"process scope: ncclAllReduce calls by calling region {got} (want backward 3, step 1, root 2)")
reg = run.table("regions")
ids = {where(str(p)): int(i) for i, p in zip(reg["id"], reg["path"])}
st = run.region_stats
for name in ("step", "step / backward"):
    rows = st[st["region"] == ids.get(name, -1)]
    check(int(rows["visits"].sum()) == 1, f"'{name}': {int(rows['visits'].sum())} visit(s) over "
          f"{len(rows)} thread(s) (want 1: borrowed frames add none)")
ar = ids.get("step / backward / NCCL::ncclAllReduce", -1)
wrows = st[st["region"] == ar]
check(len(wrows) == 1 and int(wrows["visits"].iloc[0]) == 3, f"the worker's calls in backward: {len(wrows)} row(s)")
if len(wrows) == 1:
    th = int(wrows["thread"].iloc[0])
    mine = st[st["thread"] == th].set_index("region")
    step_ns = int(mine["incl_ns"].get(ids.get("step", -1), 0))
    root_ns = int(mine["incl_ns"].get(ids.get("", -1), 0))
    call_ns = int(wrows["incl_ns"].iloc[0])
    check(th != 0 and call_ns >= 3 * 5_000_000 and step_ns >= call_ns and root_ns >= step_ns,
          f"worker thread {th}: calls {call_ns} ns <= its borrowed 'step' {step_ns} ns <= its root {root_ns} ns")
got = calls_by_place(tally.read(thread_path))
check(got == {"": 5, "step": 1}, f"thread scope (the fault): {got} (want root 5, step 1: not in backward)")
print("all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
