#!/usr/bin/env python3
"""check_torch_region.py PLAIN_LOG REGION_LOG KERNEL.h5 REGION.h5 STEP.h5 -
the PyTorch loop under tally-run with TALLY_CUDA_GRANULARITY=region
(REGION.h5; STEP.h5 with TALLY_CUDA_REGION_DEPTH=1) against the same loop
with values per kernel (KERNEL.h5): losses identical to the plain run;
every gpu_kernels row a '(region)' row; launches equal; the metric's total
within 0.1% of the per-kernel run (a range also counts SM work that is no
kernel launch the hook sees), 'forward' equal to 0.1%; backward and
optimizer with values and the same launches (the autograd thread's kernels count for the
region open when they run, not for that thread's root as per kernel);
STEP.h5: rows only for the outermost regions, the same total.  Exit 1 on
a failed check."""
import os
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader's checks)


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
    """{last region name: (total, launches)}, the kernel names, the deepest path."""
    out, kernels, deepest = {}, set(), 0
    with tally.raw(path) as f:
        for r in f["gpu_kernels"][()]:
            parts = s(r["region"]).split(" / ")
            deepest = max(deepest, len(parts))
            name = parts[-1].strip()
            t, n = out.get(name, (0.0, 0))
            out[name] = (t + float(r["total"]), n + int(r["launches"]))
            kernels.add(s(r["kernel"]))
    return out, kernels, deepest


def main():
    plain, region_log, kfile, rfile, sfile = sys.argv[1:6]
    lp, lr = losses(plain), losses(region_log)
    check(lp and lp == lr, f"losses identical ({len(lp)} steps)")
    k, _, _ = per_region(kfile)
    r, names, _ = per_region(rfile)
    check(names == {"(region)"}, f"rows are per region: {sorted(names)[:3]}")
    tk, tr = sum(v[0] for v in k.values()), sum(v[0] for v in r.values())
    nk, nr = sum(v[1] for v in k.values()), sum(v[1] for v in r.values())
    check(nk == nr, f"launches: per kernel {nk}, per region {nr}")
    check(tk > 0 and abs(tr - tk) <= 1e-3 * tk, f"metric total: per kernel {tk:.0f}, per region {tr:.0f}")
    for n in ("forward", "backward", "optimizer"):
        a, b = k.get(n, (0.0, 0)), r.get(n, (0.0, 0))
        # backward/optimizer: a range may also count SM work no hooked launch
        # made, so at least the per-kernel value, less 0.1% (a split-K
        # GEMM's instructions vary by a few hundred per launch between runs:
        # 673,953,504 per kernel vs 673,953,162 per region on an H200)
        close = abs(a[0] - b[0]) <= 1e-3 * max(a[0], 1) if n == "forward" else b[0] >= a[0] * (1 - 1e-3) > 0
        check(b[0] > 0 and close and a[1] == b[1],
              f"region {n}: per kernel {a[0]:.0f} ({a[1]} launches), per region {b[0]:.0f} ({b[1]})")
    st, snames, deepest = per_region(sfile)
    ts = sum(v[0] for v in st.values())
    check(snames == {"(region)"} and deepest <= 2 and st.get("step", (0, 0))[0] > 0.9 * tk,
          f"depth 1: regions {sorted(st)}, step {st.get('step', (0, 0))[0]:.0f}")
    check(abs(ts - tk) <= 1e-3 * tk, f"depth 1: total {ts:.0f} (per kernel {tk:.0f})")
    print(f"torch region check: {'FAILED ' + str(len(FAILS)) if FAILS else 'ok'}")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
