#!/usr/bin/python3
"""check_rt_gpu.py MULTI SINGLE... [--shared] - gpu_kernels of run_rt_gpu.sh's files.

Truth (test_rt_kernels.c, gpu_kernels.cu): per rank 3 launches of `work`
in region "solve" (NVTX range "gpu_phase" inside it) and 1 outside; each
launch runs 16384 x 256 threads x 100 FFMAs, i.e. 419,430,400 FFMA thread
instructions.  Kernel replay must give the counters exactly the values
of the one-pass runs (SINGLE...), every launch the same.  --shared: the
two ranks share one GPU, whose counters serve one process at a time: rank
0 has the values, rank 1 none.
"""
import os
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader's checks)


show_ok()

FFMA = 16384 * 256 * 100
COUNTERS = ["smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
            "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum"]


def rows(path, table):
    with tally.raw(path) as f:
        d = f[table][:]
    return [{k: (r[k].decode() if isinstance(r[k], bytes) else r[k]) for k in d.dtype.names} for r in d]


def schedule(path, mode):
    s = rows(path, "passes")
    ranks = sorted({r["rank"] for r in s})
    view = {k: [(r["name"], r["pass"], r["npasses"], r["rank0_hash"]) for r in s if r["rank"] == k] for k in ranks}
    npasses = s[0]["npasses"] if s else 0
    print(f"{path}: {npasses} pass(es), schedule {view.get(0)}")
    check(ranks == [0, 1], f"{path}: schedule rows from ranks {ranks}")
    check(all(view[k] == view[0] for k in ranks), f"{path}: both ranks recorded the same schedule")
    check(all(r["agrees"] == 1 and r["config_hash"] == r["rank0_hash"] for r in s), f"{path}: every rank agrees")
    check(all(r["mode"] == mode for r in s), f"{path}: mode {mode}")
    return npasses


def tot(r):
    return f"{r['total']:.0f}" if r else "missing"


def kernels(path):
    k = {}
    for r in rows(path, "gpu_kernels"):
        region = "solve" if "solve" in r["region"] else r["region"]
        k[(r["rank"], region, r["kernel"].split("(")[0], r["metric"])] = r
    return k


shared = "--shared" in sys.argv[2:]
multi, singles = sys.argv[1], [a for a in sys.argv[2:] if a != "--shared"]
check(schedule(multi, "kernel replay") >= 2, "the full list needs >= 2 passes")
km, ks = kernels(multi), {}
for single in singles:
    check(schedule(single, "one pass") == 1, f"{single}: one pass")
    ks.update(kernels(single))
for (rank, region, kern, metric), r in sorted(km.items()):
    print(f"rank {rank} {region:24s} {kern:8s} {metric:56s} pass {r['pass']} launches {r['launches']} "
          f"total {r['total']:.0f} min {r['min']:.2f} mean {r['mean']:.2f} max {r['max']:.2f} {r['replay']}")
check({k[0] for k in km} == ({0} if shared else {0, 1}),
      f"GPU values from ranks {sorted({k[0] for k in km})} ({'rank 0 only: one shared GPU' if shared else 'both'})")
for rank in (0,) if shared else (0, 1):
    for region, n in (("solve", 3), ("(thread)", 1)):
        key = (rank, region, "work", COUNTERS[1])
        check(key in km and km[key]["launches"] == n, f"rank {rank} {region}: {n} work launches")
        if key not in km:
            continue
        r = km[key]
        check(r["total"] == n * FFMA and r["min"] == r["max"] == FFMA,
              f"rank {rank} {region}: FFMA total {r['total']:.0f} == {n} x {FFMA}, per launch {r['min']:.0f}")
        i = km[(rank, region, "work", COUNTERS[0])]
        check(i["min"] == i["max"] > 0, f"rank {rank} {region}: inst_executed per launch {i['min']:.0f}, same every launch")
        check(r["pass"] > 0 and i["pass"] == 0 and r["replay"] == "kernel replay", f"rank {rank} {region}: replay mode {r['replay']}, passes {i['pass']} and {r['pass']}")
        for m in COUNTERS:
            a, b = km.get((rank, region, "work", m)), ks.get((rank, region, "work", m))
            check(a is not None and b is not None and a["total"] == b["total"],
                  f"rank {rank} {region} {m}: kernel replay {tot(a)} == single pass {tot(b)}")
nvtx = [r["region"] for r in rows(multi, "gpu_kernels") if "solve" in r["region"]]
print(f"info: region paths of the kernels in 'solve': {sorted(set(nvtx))} "
      f"({'NVTX range seen' if any('gpu_phase' in p for p in nvtx) else 'NVTX range not seen'})")
sys.exit(done("check_rt_gpu"))
