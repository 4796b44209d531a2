#!/usr/bin/env python3
"""check_torch.py PLAIN_LOG TALLY_LOG FILE.h5 STEPS MODE - a PyTorch run
under tally-run against the same run without Tally: losses identical;
NVTX regions (MODE ranges: step/forward/backward/optimizer) visited STEPS
times each; gpu_kernels holds per-kernel values of the metric, every
kernel's name whole (none cut, the longest printed) and no warning that
attribution by launch order may be wrong.  Exit 1 on a failed check."""
import math
import os
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
from tally import raw as read_raw  # noqa: E402  (the rows as stored, through the reader's checks)


show_ok()


def losses(path):
    return [ln.split()[2] for ln in open(path) if ln.startswith("LOSS ")]


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main():
    plain, tally, h5, steps, mode = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    lp, lt = losses(plain), losses(tally)
    check(len(lp) == steps and lp == lt, f"losses identical ({len(lp)} steps; first {lp[:1]}, tally {lt[:1]})")
    log = open(tally).read()
    check("attribution by launch order may be wrong" not in log, "no launch-order warning")
    with read_raw(h5) as f:
        reg = {int(r["id"]): s(r["name"]) for r in f["regions"][()]}
        visits = {}
        for r in f["region_stats"][()]:
            n = reg.get(int(r["region"]), "?")
            visits[n] = visits.get(n, 0) + int(r["visits"])
        if mode == "ranges":
            for n in ("step", "forward", "backward", "optimizer"):
                check(visits.get(n) == steps, f"region {n}: {visits.get(n)} visits (want {steps})")
        k = f["gpu_kernels"][()] if "gpu_kernels" in f else []
        check(len(k) > 0, f"gpu_kernels: {len(k)} rows")
        names = {s(r["kernel"]) for r in k}
        longest = max(names, key=len) if names else ""
        check(all(math.isfinite(float(r["total"])) and int(r["launches"]) > 0 for r in k),
              "every row has launches and a finite total")
        check(all(n.count("(") == n.count(")") and n.count("<") >= n.count(">") - n.count("->") for n in names),
              f"{len(names)} kernel names, none cut (longest {len(longest)} chars)")
        print("LONGEST", longest)
        regions = {s(r["region"]) for r in k}
        print("KERNEL_REGIONS", sorted(regions)[:12])
        if mode == "ranges":   # process scope (TALLY_CUDA_SCOPE=process, the default)
            first = s(k[0]["metric"]) if len(k) else ""
            other = [r for r in k if int(r["thread"]) != 0 and s(r["metric"]) == first]
            back = sum(int(r["launches"]) for r in other if s(r["region"]).endswith("backward"))
            nother = sum(int(r["launches"]) for r in other)
            bins = sum(float(r["total"]) for r in k if s(r["region"]).endswith("backward") and s(r["metric"]) == first)
            print(f"WORKER_LAUNCHES {nother} in backward {back}; backward total {bins:.0f}")
            check(back == nother and bins > 0,
                  f"the worker threads' {nother} launches are in 'backward' ({back}), backward holds {bins:.0f}")
        print("LAUNCHES", sum(int(r["launches"]) for r in k if s(r["metric"]) == s(k[0]["metric"])))
    sys.exit(done("check_torch"))


if __name__ == "__main__":
    main()
