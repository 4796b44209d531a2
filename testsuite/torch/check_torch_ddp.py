#!/usr/bin/env python3
"""check_torch_ddp.py PLAIN_LOG TALLY_LOG DDP_H5 REF_H5 [NPROC] - run_torch_ddp.sh's
checks: losses of every rank identical to the plain run; gpu_devices has
rank r on the GPU the script reported (UUID), profiled; both ranks have
per-kernel values; every compute kernel (not NCCL's) of the
single-process reference has the same launches and instruction total in
each rank; NCCL's all-reduce NVTX ranges per rank equal the calls the
script's DDP hook counted (and the hook's bytes the gradient bytes), all
of them under 'step / backward' though the autograd thread called them."""
import math
import re
import os
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
from tally import raw as read_raw  # noqa: E402  (the rows as stored, through the reader's checks)


ok = True


def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and bool(cond)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def lines(path, tag):
    return [l.split()[1:] for l in open(path, errors="replace") if l.startswith(tag + " ")]


def kernels(f, rank, varying=None):
    """{kernel: (launches, total)} of smsp__inst_executed.sum for rank;
    kernels whose count differs from launch to launch (min < max: a
    data-dependent count, e.g. a split-K GEMM's semaphore wait) go into
    `varying` with their min and max instead."""
    out, var = {}, {}
    for r in f["gpu_kernels"][:]:
        if int(r["rank"]) == rank and s(r["metric"]) == "smsp__inst_executed.sum":
            k = s(r["kernel"])
            la, to = out.get(k, (0, 0.0))
            out[k] = (la + int(r["launches"]), to + float(r["total"]))
            if float(r["min"]) != float(r["max"]):
                var[k] = (float(r["min"]), float(r["max"]))
    if varying is not None:
        varying.update(var)
    return out


def allreduce_visits(f, rank, under=None):
    """Visits of NVTX regions whose name holds AllReduce, for rank; under:
    only those whose path ends with it (e.g. 'step / backward / NCCL::ncclAllReduce')."""
    reg = {int(r["id"]): (s(r["name"]), s(r["path"])) for r in f["regions"][:]}
    return sum(int(r["visits"]) for r in f["region_stats"][:]
               if int(r["rank"]) == rank and "allreduce" in reg.get(int(r["region"]), ("", ""))[0].lower()
               and (under is None or reg[int(r["region"])][1].endswith(under)))


plain, tally, ddp, ref = sys.argv[1:5]
lp, lt = lines(plain, "LOSS"), lines(tally, "LOSS")
check(lp and sorted(lp) == sorted(lt), f"losses identical to the plain run ({len(lt)} of {len(lp)} lines)")
dev = {int(r): (int(i), u) for r, i, u in lines(tally, "DEVICE")}
hook = {int(r): (int(c), int(b)) for r, c, b in lines(tally, "ALLREDUCE")}
grad = {int(r): int(b) for r, b in lines(tally, "GRAD_BYTES")}
with read_raw(ddp) as f, read_raw(ref) as g:
    rows = {(int(r["rank"]), int(r["device"])): r for r in f["gpu_devices"][:]}
    for k, r in sorted(rows.items()):
        print(f"     rank {k[0]} device {k[1]} {s(r['uuid'])} {s(r['pci_bus_id'])} profiled {int(r['profiled'])} "
              f"launches {int(r['launches'])}")
    var = {}
    refk = {k: v for k, v in kernels(g, 0, var).items() if "nccl" not in k.lower()}
    check(len(refk) > 0, f"the reference has {len(refk)} compute kernels with values")
    for rank in range(int(sys.argv[5]) if len(sys.argv) > 5 else 2):
        d = dev.get(rank)
        r = rows.get((rank, d[0])) if d else None
        check(r is not None and int(r["profiled"]) == 1 and s(r["uuid"]) == d[1],
              f"rank {rank}: gpu_devices row for its GPU {d}, profiled, same UUID")
        rvar = {}
        kk = kernels(f, rank, rvar)
        vals = [t for _, t in kk.values()]
        check(kk and all(math.isfinite(t) and t > 0 for t in vals),
              f"rank {rank}: {len(kk)} kernels, {sum(l for l, _ in kk.values())} launches with values")
        for k in sorted(k for k in set(var) | set(rvar) if k in refk and kk.get(k) != refk[k]):
            print(f"     rank {rank}: {k[:60]}: instructions vary per launch (reference {var.get(k)}, this rank "
                  f"{rvar.get(k)}): launches compared, not totals")
        same = [k for k in refk if kk.get(k) == refk[k] or (k in var or k in rvar) and kk.get(k, (0,))[0] == refk[k][0]]
        diff = [(k[:60], kk.get(k), refk[k]) for k in refk if k not in same]
        check(not diff, f"rank {rank}: {len(same)} of {len(refk)} compute kernels with the reference's launches "
              f"and instructions{'; differ: ' + str(diff[:4]) if diff else ''}")
        calls, nbytes = hook.get(rank, (0, 0))
        v = allreduce_visits(f, rank)
        check(calls > 0 and v == calls, f"rank {rank}: NCCL all-reduce ranges {v} == the hook's calls {calls}")
        # issue 50: called from the autograd thread, in the process's 'backward'
        vb = allreduce_visits(f, rank, "step / backward / NCCL::ncclAllReduce")
        check(vb == calls, f"rank {rank}: NCCL all-reduces under 'step / backward' {vb} == the hook's calls {calls}")
        steps = sum(1 for l in lt if int(l[0]) == rank)
        check(nbytes == steps * grad.get(rank, -1),
              f"rank {rank}: the hook's bytes {nbytes} = {steps} steps x gradient bytes {grad.get(rank)}")
print("all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
