#!/usr/bin/env python3
"""check_pcsamp_vs_ncu.py PCS_TXT NCU_RAW_CSV - compare Tally's stall-reason
breakdown per kernel ("PCS <kernel> stall <reason> <samples> <fraction>"
lines of test_pcsamp) with ncu's PC sampling of the same kernels
(smsp__pcsamp_warps_issue_stalled_<reason> / smsp__pcsamp_sample_count from
--section SourceCounters --page raw --csv).  Fails when the dominant reason
differs or a reason's share differs by more than 5 percentage points."""
import csv
import sys


def tally_shares(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 6 and f[0] == "PCS" and f[2] == "stall":
            out.setdefault(f[1], {})[f[3]] = float(f[5])
    return out


def ncu_shares(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 5]
    head, out = rows[0], {}
    for r in rows[2:]:
        kernel = r[head.index("Kernel Name")].split("(")[0]
        m = {h: v for h, v in zip(head, r)}
        total = float(m.get("smsp__pcsamp_sample_count", "0").replace(",", "") or 0)
        if not total:
            continue
        out[kernel] = {h: float(v.replace(",", "")) / total for h, v in m.items()
                       if h.startswith("smsp__pcsamp_warps_issue_stalled_") and
                       not h.endswith("_not_issued") and v.replace(",", "").replace(".", "").isdigit()}
    return out


def main():
    t, n, bad = tally_shares(sys.argv[1]), ncu_shares(sys.argv[2]), 0
    if not t or not n:  # nothing compared is a failure, not a pass
        print(f"nothing to compare: {len(t)} kernel(s) from Tally, {len(n)} from ncu")
        return 1
    for k in sorted(t):
        if k not in n:
            print(f"{k}: not in ncu output")
            bad += 1
            continue
        tt, nn = t[k], n[k]
        top_t, top_n = max(tt, key=tt.get), max(nn, key=nn.get)
        print(f"{k}: dominant Tally {top_t} {tt[top_t]:.3f}, ncu {top_n} {nn[top_n]:.3f}")
        bad += top_t != top_n
        for r in sorted(set(tt) | set(nn), key=lambda x: -max(tt.get(x, 0), nn.get(x, 0))):
            a, b = tt.get(r, 0.0), nn.get(r, 0.0)
            if max(a, b) >= 0.01:
                flag = "" if abs(a - b) <= 0.05 else "  <-- differs"
                bad += flag != ""
                print(f"  {r:60s} Tally {a:.3f}  ncu {b:.3f}{flag}")
    print("OK" if not bad else f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
