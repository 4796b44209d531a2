#!/usr/bin/python3
"""check_replay_gpu.py KR.h5 AR.h5 [--shared] [--image | --mismatch] - run_replay_gpu.sh's files.

Truth (testsuite/gpu/test_rt_kernels.c): per rank 3 launches of `work` in
region "solve" and 1 outside; each launch runs 16384 blocks x 256 threads
(16384 CTAs, 131,072 warps) x 100 FFMAs = 419,430,400 FFMA thread
instructions.  The list needs >= 3 passes; application replay (one run per
pass, merged) must give the deterministic counters (the `.sum` metrics)
within 1% of the kernel-replay values (they are exact counts: equal is
expected) and rates (`pct_of_peak`) within 10%, every metric once per
kernel with its pass, the same launches in every run (pass_checks empty),
and every rank's schedule equal to rank 0's.
--shared: the ranks share one GPU, whose counters serve one process at a
time: rank 0 has the values, the other ranks none.
--image: the list has a metric that needs several passes by itself, so
the runs went through a counter data image: mode 'application replay
(image)', values from the last run; the earlier runs' files (AR.r<id>.pass<k>.h5)
hold the same launches with NaN values.
--mismatch: AR is an application replay of `test_rt_kernels vary` (run k
launches k more kernels in "solve"): pass_checks must hold exactly one
"kernel launches" row per rank with GPU values and run k > 0 (3 launches in
run 0, 3 + k in run k), nothing else.
"""
import glob
import math
import os
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader's checks)


show_ok()

FFMA = 16384 * 256 * 100
WARPS = 16384 * 256 // 32
# per launch: `work` stores once per thread (one instruction and one L1
# request per warp) and loads nothing from global memory
EXACT = {"sm__ctas_launched.sum": 16384, "sm__warps_launched.sum": WARPS,
         "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": FFMA,
         "smsp__inst_executed_op_global_st.sum": WARPS, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": WARPS,
         "smsp__inst_executed_op_global_ld.sum": 0, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 0}


def rows(path, table):
    with tally.raw(path) as f:
        d = f[table][:]
    return [{k: (r[k].decode() if isinstance(r[k], bytes) else r[k]) for k in d.dtype.names} for r in d]


def kernels(path):
    k = {}
    for r in rows(path, "gpu_kernels"):
        key = (r["rank"], "solve" if "solve" in r["region"] else r["region"], r["kernel"].split("(")[0], r["metric"])
        if key in k:
            check(False, f"{path}: one row for {key}")
        k[key] = r
    return k


def check_mismatch(ar, gpu_ranks):
    got = sorted((r["check"], r["rank"], "solve" in r["region"] and "work" in r["region"], r["pass"],
                  r["expected"], r["got"]) for r in rows(ar, "pass_checks"))
    want = sorted(("kernel launches", rank, True, k, 3, 3 + k) for rank in gpu_ranks for k in (1, 2))
    for r in rows(ar, "pass_checks"):
        print("pass_checks:", r["rank"], r["region"], r["message"])
    check(got == want, f"pass_checks: the kernel launch differences {want}, nothing else (got {got})")
    sys.exit(done("check_replay_gpu"))


kr, ar = sys.argv[1], sys.argv[2]
shared, image = "--shared" in sys.argv[3:], "--image" in sys.argv[3:]
if "--mismatch" in sys.argv[3:]:
    check_mismatch(ar, [0] if shared else sorted({r["rank"] for r in rows(ar, "ranks")}))
mode = "application replay (image)" if image else "application replay"
sched = rows(ar, "passes")
ranks = sorted({r["rank"] for r in sched})
metrics = [r["name"][7:] for r in sched if r["rank"] == 0]
npasses = sched[0]["npasses"] if sched else 0
check(npasses >= 3, f"the list needs {npasses} >= 3 passes")
check(all(r["mode"] == mode for r in sched), f"schedule mode: {mode}")
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
          f"app replay {r['total']:.2f} ({r['replay']}), kernel replay {b['total'] if b else float('nan'):.2f}")
check(set(k[0] for k in ka) == ({0} if shared else set(ranks)),
      f"GPU values from ranks {sorted(set(k[0] for k in ka))} ({'rank 0 only: one shared GPU' if shared else 'all'})")
check(len(ka) == len({k[0] for k in ka}) * 2 * len(metrics),
      f"one row per metric per kernel and region: {len(ka)} rows for {len(metrics)} metrics")
if not image:
    npass = {r["pass"] for r in ka.values()}
    check(npass == set(range(npasses)), f"values from every pass: {sorted(npass)}")
else:
    for k in range(npasses - 1):
        # the run's own pass files: AR.r<pid>-<time>.pass<k>.h5 (replay.c)
        early = rows(sorted(glob.glob(ar.replace(".h5", f".r*.pass{k}.h5")))[-1], "gpu_kernels")
        check(early and all(math.isnan(r["total"]) for r in early) and
              sorted((r["rank"], r["region"], r["launches"]) for r in early if r["metric"] == metrics[0])
              == sorted((r["rank"], r["region"], r["launches"]) for r in rows(ar, "gpu_kernels") if r["metric"] == metrics[0]),
              f"run of pass {k}: the same launches, no values (NaN)")
for rank in ranks if not shared else [0]:
    for region, n in (("solve", 3), ("(thread)", 1)):
        for m in metrics:
            a, b = ka.get((rank, region, "work", m)), kk.get((rank, region, "work", m))
            ok = a is not None and b is not None and a["launches"] == n and a["replay"] == mode
            if m in EXACT:
                check(ok and a["total"] == n * EXACT[m], f"rank {rank} {region} {m}: {a['total'] if a else 0:.0f} "
                      f"== {n} x {EXACT[m]} exactly")
            tol = 0.01 if m.endswith(".sum") else 0.10
            check(ok and b["total"] >= 0 and abs(a["total"] - b["total"]) <= tol * b["total"],
                  f"rank {rank} {region} {m}: {n} launches, application replay {a['total'] if a else 0:.2f} vs "
                  f"kernel replay {b['total'] if b else 0:.2f} (within {tol:.0%}; equal: "
                  f"{a is not None and b is not None and a['total'] == b['total']})")
sys.exit(done("check_replay_gpu"))
