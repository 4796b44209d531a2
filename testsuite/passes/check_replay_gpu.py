#!/usr/bin/python3
"""check_replay_gpu.py KR.h5 AR.h5 [--shared] - run_replay_gpu.sh's files.

Truth (testsuite/gpu/test_rt_kernels.c): per rank 3 launches of `work` in
region "solve" and 1 outside; each launch runs 16384 blocks x 256 threads
(16384 CTAs, 131,072 warps) x 100 FFMAs = 419,430,400 FFMA thread
instructions.  The list needs >= 3 passes; application replay (one run per
pass, merged) must give the deterministic counters within 1% of the
kernel-replay values (they are exact counts: equal is expected), every
metric once per kernel with its pass, the same launches in every run
(pass_checks empty), and every rank's schedule equal to rank 0's.
--shared: the ranks share one GPU, whose counters serve one process at a
time: rank 0 has the values, the other ranks none.
"""
import sys

import h5py

FFMA = 16384 * 256 * 100
EXACT = {"sm__ctas_launched.sum": 16384, "sm__warps_launched.sum": 16384 * 256 // 32}
COUNTERS = ["smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__thread_inst_executed.sum", "sm__warps_launched.sum", "sm__ctas_launched.sum",
            "smsp__inst_executed_op_global_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def rows(path, table):
    with h5py.File(path) as f:
        d = f[table][:]
    return [{k: (r[k].decode() if isinstance(r[k], bytes) else r[k]) for k in d.dtype.names} for r in d]


def kernels(path):
    k = {}
    for r in rows(path, "gpu_kernels"):
        key = (r["rank"], "solve" if "solve" in r["region"] else r["region"], r["kernel"].split("(")[0], r["metric"])
        check(key not in k, f"{path}: one row for {key}")
        k[key] = r
    return k


kr, ar = sys.argv[1], sys.argv[2]
shared = "--shared" in sys.argv[3:]
sched = rows(ar, "passes")
ranks = sorted({r["rank"] for r in sched})
npasses = sched[0]["npasses"] if sched else 0
check(npasses >= 3, f"the list needs {npasses} >= 3 passes")
check(all(r["mode"] == "application replay" for r in sched), "schedule mode: application replay")
view = {k: [(r["name"], r["pass"], r["rank0_hash"]) for r in sched if r["rank"] == k] for k in ranks}
check(all(view[k] == view[0] and all(r["agrees"] for r in sched) for k in ranks), f"ranks {ranks}: same schedule")
ksched = rows(kr, "passes")
kview = {k: [(r["name"], r["pass"], r["rank0_hash"]) for r in ksched if r["rank"] == k] for k in ranks}
check(all(kview[k] == view[0] for k in ranks) and all(r["agrees"] for r in ksched),
      f"kernel replay: ranks {sorted(kview)} recorded the same schedule as application replay")
check(len(rows(ar, "pass_checks")) == 0, "pass_checks empty: every run had the same ranks, regions, visits, launches")
kk, ka = kernels(kr), kernels(ar)
for (rank, region, kern, metric), r in sorted(ka.items()):
    b = kk.get((rank, region, kern, metric))
    print(f"rank {rank} {region:10s} {kern:6s} {metric:56s} pass {r['pass']} launches {r['launches']} "
          f"app replay {r['total']:.1f} ({r['replay']}), kernel replay {b['total'] if b else float('nan'):.1f}")
check(set(k[0] for k in ka) == ({0} if shared else set(ranks)),
      f"GPU values from ranks {sorted(set(k[0] for k in ka))} ({'rank 0 only: one shared GPU' if shared else 'all'})")
npass = {r["pass"] for r in ka.values()}
check(npass == set(range(npasses)), f"values from every pass: {sorted(npass)}")
for rank in ranks if not shared else [0]:
    for m, per in EXACT.items():
        a = ka.get((rank, "solve", "work", m))
        check(a is not None and a["total"] == 3 * per, f"rank {rank} solve {m}: {a['total'] if a else 0:.0f} == 3 x {per}")
    for region, n in (("solve", 3), ("(thread)", 1)):
        f = ka.get((rank, region, "work", COUNTERS[1]))
        check(f is not None and f["launches"] == n and f["total"] == n * FFMA and f["replay"] == "application replay",
              f"rank {rank} {region}: {n} launches, FFMA {f['total'] if f else 0:.0f} == {n} x {FFMA}")
        for m in COUNTERS:
            a, b = ka.get((rank, region, "work", m)), kk.get((rank, region, "work", m))
            check(a is not None and b is not None and b["total"] > 0 and abs(a["total"] - b["total"]) <= 0.01 * b["total"],
                  f"rank {rank} {region} {m}: application replay {a['total'] if a else 0:.0f} vs kernel replay "
                  f"{b['total'] if b else 0:.0f} (within 1%; equal: {a is not None and b is not None and a['total'] == b['total']})")
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
