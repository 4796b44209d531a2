#!/usr/bin/env python3
"""check_rt_nompi.py NOMPI.h5 MPI.h5 [--min-kernels N] - the gpu_kernels of a
run without MPI against the same kernels in an MPI run, both in kernel
replay: for every kernel of both files (matched by name and launches),
instruction counters (metrics '*inst*') equal exactly, in total, min and
max; other metrics are printed.  Exit 1 on a difference or when fewer than
N kernels (default 1) are compared.
"""
import os
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader's checks)


def rows(path):
    with tally.raw(path) as f:
        d = f["gpu_kernels"][:] if "gpu_kernels" in f else []
        nr = int(f.attrs["nranks"])
    out = {}
    for r in d:
        key = (r["kernel"].decode().split("(")[0], r["metric"].decode())
        v = out.setdefault(key, [0, 0.0, float("inf"), 0.0, set()])
        v[0] += int(r["launches"])
        v[1] += float(r["total"])
        v[2] = min(v[2], float(r["min"]))
        v[3] = max(v[3], float(r["max"]))
        v[4].add(r["replay"].decode())
    return out, nr


def main(argv):
    a, b = argv[1], argv[2]
    need = int(argv[argv.index("--min-kernels") + 1]) if "--min-kernels" in argv else 1
    ra, na = rows(a)
    rb, nb = rows(b)
    print(f"{a}: {len(ra)} (kernel, metric) rows, nranks {na}; {b}: {len(rb)} rows, nranks {nb}")
    fails, kernels = [], set()
    for key in sorted(set(ra) & set(rb)):
        x, y = ra[key], rb[key]
        if x[0] != y[0]:
            print(f"skip {key}: launches {x[0]} vs {y[0]}")
            continue
        kernels.add(key[0])
        same = (x[1], x[2], x[3]) == (y[1], y[2], y[3])
        inst = "inst" in key[1]
        tag = "ok  " if same else ("FAIL" if inst else "diff")
        print(f"{tag} {key[0][:60]} {key[1]}: launches {x[0]} total {x[1]:.0f} vs {y[1]:.0f}, "
              f"min {x[2]:.0f}/{y[2]:.0f} max {x[3]:.0f}/{y[3]:.0f} replay {sorted(x[4])}/{sorted(y[4])}")
        if inst and not same:
            fails.append(key)
        if key[1] == "smsp__inst_executed.sum" and x[1] <= 0:
            fails.append(key + ("no instructions",))   # every kernel executes some
    for f in fails:
        print("FAIL", f)
    print(f"{len(kernels)} kernel(s) compared, {len(fails)} instruction counter(s) differ or are 0")
    return 1 if fails or len(kernels) < need else 0


sys.exit(main(sys.argv))
