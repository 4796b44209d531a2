#!/usr/bin/env python3
"""check_rt_pcsamp.py KERNELS_CU HOT.h5 SERIAL.h5 SHARED.h5 - the files of
run_rt_pcsamp.sh: pc_samples and pcsamp_status tables (schema.def).

hot:    the hottest (file, line) is pcs_fma's FMA line (the line after the
        PCS_FMA_BEGIN marker's loop header, inside the loop); sum over
        stall reasons (not_issued 0) == record_samples, and every record's
        samples are in its rows.
serial: two correlation ids hold the samples, in ratio 2 (1.9..2.1).
shared: exactly one rank has rows and sampling = 1; the other has 0 rows,
        sampling = 0 and owner_rank = the sampling rank.
Prints PCSRT lines with the numbers."""
import os
import sys
from collections import defaultdict


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader's checks)


show_ok()


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def markers(cu):
    lines = open(cu).read().split("\n")
    lo = next(i + 1 for i, t in enumerate(lines) if "// PCS_FMA_BEGIN" in t)
    hi = next(i + 1 for i, t in enumerate(lines) if "// PCS_FMA_END" in t)
    fma = next(i + 1 for i in range(lo, hi) if "FMA16(" in lines[i])
    return lo, hi, fma


def per_line(rows):
    acc = defaultdict(int)
    for r in rows:
        if not r["not_issued"]:
            acc[(s(r["file"]), int(r["line"]))] += int(r["samples"])
    return sorted(acc.items(), key=lambda kv: -kv[1])


def hot(cu, path):
    lo, hi, fma = markers(cu)
    with tally.raw(path) as f:
        rows, st = f["pc_samples"][:], f["pcsamp_status"][:]
    check(len(rows) > 0 and len(st) == 1 and st[0]["sampling"] == 1, f"hot: {len(rows)} rows, one sampling rank")
    tot = sum(int(r["samples"]) for r in rows if not r["not_issued"])
    rec = int(st[0]["record_samples"])
    print(f"PCSRT hot: total {int(st[0]['total_samples'])}, in records {rec}, sum over reasons {tot}, "
          f"dropped {int(st[0]['dropped_samples'])}, hw-buffer-full {int(st[0]['hw_buffer_full'])}, "
          f"non-user {int(st[0]['nonuser_samples'])}, records {int(st[0]['records'])}, period 2^{int(st[0]['period'])}")
    check(tot == rec and tot > 0, f"hot: sum over stall reasons {tot} == samples in records {rec}")
    top = per_line(rows)
    (file, line), n = top[0]
    loop = sum(v for (fl, ln), v in top if fl.endswith("pcsamp_kernels.cu") and lo <= ln <= hi)
    reasons = defaultdict(int)
    for r in rows:
        if (s(r["file"]), int(r["line"])) == (file, line) and not r["not_issued"]:
            reasons[s(r["stall"])] += int(r["samples"])
    br = ", ".join(f"{k} {v / n:.3f}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])[:3])
    print(f"PCSRT hot: hottest {file}:{line} {n} samples ({n / tot:.3f}); loop lines {lo}..{hi}: {loop / tot:.3f}; "
          f"stalls there: {br}")
    check(file.endswith("pcsamp_kernels.cu") and line == fma, f"hot: hottest line {file}:{line} is the FMA line {fma}")


def serial(path):
    with tally.raw(path) as f:
        rows, st = f["pc_samples"][:], f["pcsamp_status"][:]
    by = defaultdict(int)
    for r in rows:
        if not r["not_issued"]:
            by[int(r["correlation_id"])] += int(r["samples"])
    ids = sorted(k for k, v in by.items() if v > 0)
    print(f"PCSRT serial: mode {s(st[0]['mode'])}, samples per correlation id {dict(by)}")
    check(s(st[0]["mode"]) == "serialized", "serial: mode recorded")
    check(len(ids) >= 2 and 0 not in ids, f"serial: samples under {len(ids)} correlation ids, none under 0")
    if len(ids) >= 2:
        a, b = by[ids[-2]], by[ids[-1]]
        check(1.9 <= b / a <= 2.1, f"serial: second launch / first = {b / a:.3f} (2x iterations)")


def shared(path):
    with tally.raw(path) as f:
        rows, st = f["pc_samples"][:], f["pcsamp_status"][:]
    ranks = sorted({int(r["rank"]) for r in rows})
    samp = [int(x["rank"]) for x in st if x["sampling"] == 1]
    for x in st:
        print(f"PCSRT shared: rank {int(x['rank'])} sampling {int(x['sampling'])} owner_rank {int(x['owner_rank'])} "
              f"owner_pid {int(x['owner_pid'])} device {int(x['device'])} total {int(x['total_samples'])} "
              f"status '{s(x['status'])}'")
    check(len(ranks) == 1 and samp == ranks, f"shared: rows of ranks {ranks}, sampling ranks {samp}")
    others = [x for x in st if x["sampling"] == 0]
    check(len(others) == 1 and samp and int(others[0]["owner_rank"]) == samp[0],
          "shared: the other rank names the sampling rank")


def main():
    cu, h, se, sh = sys.argv[1:5]
    hot(cu, h)
    serial(se)
    shared(sh)
    return done("check_rt_pcsamp")


if __name__ == "__main__":
    sys.exit(main())
