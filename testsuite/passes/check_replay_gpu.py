#!/usr/bin/python3
"""check_replay_gpu.py KR.h5 AR.h5 - run_replay_gpu.sh's files.

Truth (testsuite/gpu/test_rt_kernels.c): per rank 3 launches of `work` in
region "solve" and 1 outside; each launch runs 16384 x 256 threads x 100
FFMAs = 419,430,400 FFMA thread instructions.  The list needs >= 3 passes;
application replay (one run per pass, merged) must give the deterministic
counters exactly the kernel-replay values, every metric once per kernel
with its pass, the same launches in every run (pass_checks empty), and
every rank's schedule equal to rank 0's.
"""
import sys

import h5py

FFMA = 16384 * 256 * 100
COUNTERS = ["smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
            "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum"]
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
sched = rows(ar, "passes")
ranks = sorted({r["rank"] for r in sched})
npasses = sched[0]["npasses"] if sched else 0
check(npasses >= 3, f"the list needs {npasses} >= 3 passes")
check(all(r["mode"] == "application replay" for r in sched), "schedule mode: application replay")
view = {k: [(r["name"], r["pass"], r["rank0_hash"]) for r in sched if r["rank"] == k] for k in ranks}
check(all(view[k] == view[0] and all(r["agrees"] for r in sched) for k in ranks), f"ranks {ranks}: same schedule")
check(len(rows(ar, "pass_checks")) == 0, "pass_checks empty: every run had the same ranks, regions, visits, launches")
kk, ka = kernels(kr), kernels(ar)
for (rank, region, kern, metric), r in sorted(ka.items()):
    b = kk.get((rank, region, kern, metric))
    print(f"rank {rank} {region:10s} {kern:6s} {metric:56s} pass {r['pass']} launches {r['launches']} "
          f"app replay {r['total']:.1f} ({r['replay']}), kernel replay {b['total'] if b else float('nan'):.1f}")
for rank in ranks:
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
