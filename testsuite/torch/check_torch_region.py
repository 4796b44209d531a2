#!/usr/bin/env python3
"""check_torch_region.py PLAIN_LOG REGION_LOG KERNEL.h5 REGION.h5 - the
PyTorch loop under tally-run with TALLY_CUDA_GRANULARITY=region against
the same loop with values per kernel (KERNEL.h5): losses identical to the
plain run; every gpu_kernels row is a '(region)' row; the metric's sum per
region path and the launches equal those of the per-kernel run (the same
kernels counted once per range instead of once per kernel: instruction
counts agree to 0.1%); step/forward/backward/optimizer have values.
Prints the loop time ratio.  Exit 1 on a failed check."""
import sys

import h5py

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def losses(path):
    return [ln.split()[2] for ln in open(path) if ln.startswith("LOSS ")]


def per_region(path):
    """{last region name: (total, launches)} and the kernel names."""
    out, kernels = {}, set()
    with h5py.File(path, "r") as f:
        for r in f["gpu_kernels"][()]:
            name = s(r["region"]).split("\x1f")[-1].split("/")[-1].strip()
            t, n = out.get(name, (0.0, 0))
            out[name] = (t + float(r["total"]), n + int(r["launches"]))
            kernels.add(s(r["kernel"]))
    return out, kernels


def main():
    plain, region_log, kfile, rfile = sys.argv[1:5]
    lp, lr = losses(plain), losses(region_log)
    check(lp and lp == lr, f"losses identical ({len(lp)} steps)")
    k, _ = per_region(kfile)
    r, names = per_region(rfile)
    check(names == {"(region)"}, f"rows are per region: {sorted(names)[:3]}")
    tk, tr = sum(v[0] for v in k.values()), sum(v[0] for v in r.values())
    nk, nr = sum(v[1] for v in k.values()), sum(v[1] for v in r.values())
    check(nk == nr, f"launches: per kernel {nk}, per region {nr}")
    check(tk > 0 and abs(tr - tk) <= 1e-3 * tk, f"metric total: per kernel {tk:.0f}, per region {tr:.0f}")
    for n in ("step", "forward", "backward", "optimizer"):
        a, b = k.get(n, (0.0, 0)), r.get(n, (0.0, 0))
        check(b[0] > 0 and abs(a[0] - b[0]) <= 1e-3 * max(a[0], 1),
              f"region {n}: per kernel {a[0]:.0f} ({a[1]} launches), per region {b[0]:.0f} ({b[1]})")
    print(f"torch region check: {'FAILED ' + str(len(FAILS)) if FAILS else 'ok'}")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
