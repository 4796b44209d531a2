#!/usr/bin/env python3
"""check_nvml_energy.py SMI.csv OUT.txt [--h5 FILE --loop RT.txt --report REPORT.txt]

SMI.csv: nvidia-smi --query-gpu=timestamp,power.draw[.instant] readings
(W, local time); OUT.txt: test_nvml_energy's output (NVML_WINDOW t0 t1 in
epoch seconds, NVML_ENERGY_MJ).  The readings integrated over the window
(trapezoids, interpolated at its ends) must be within 5% of the nvml
component's energy.  With --h5: the root region of the file tally-run
wrote holds the nvml energy column, at least 95% of the loop's energy
printed in RT.txt and at most the power limit times the run's wall time;
the report names the column.  Exit 1 on a failed check.
"""
import datetime
import os
import sys
import time


def smi_readings(path):
    pts = []
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2:
            continue
        try:
            t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
            w = float(parts[1])
        except ValueError:
            continue
        pts.append((time.mktime(t.timetuple()) + t.microsecond * 1e-6, w))
    return sorted(pts)


def at(pts, t):
    for (ta, wa), (tb, wb) in zip(pts, pts[1:]):
        if ta <= t <= tb:
            return wa + (wb - wa) * (t - ta) / (tb - ta) if tb > ta else wa
    raise ValueError(f"time {t:.3f} outside the readings")


def integrate(pts, t0, t1):
    inner = [(t, w) for t, w in pts if t0 < t < t1]
    seq = [(t0, at(pts, t0))] + inner + [(t1, at(pts, t1))]
    return sum((tb - ta) * (wa + wb) / 2 for (ta, wa), (tb, wb) in zip(seq, seq[1:])), len(inner)


def program(path):
    vals = {}
    for line in open(path):
        f = line.split()
        if f and f[0] in ("NVML_WINDOW", "NVML_ENERGY_MJ"):
            vals[f[0]] = [float(x) for x in f[1:]]
        if "limit" in line and "mean power" in line:
            vals["limit_w"] = float(line.split("limit")[1].split("W")[0])
    return vals


def check_file(h5, loop_mj, limit_w, report):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis"))
    from tally import reader
    run = reader.read(h5)
    st = run.tables["region_stats"]
    cols = [c for c in st.columns if c.startswith("nvml:::energy")]
    fails = []
    if not cols:
        return [f"{h5}: no nvml energy column in region_stats ({list(st.columns)})"]
    root = float(st[cols[0]].max())
    wall = float(run.meta.get("end_time", 0)) - float(run.meta.get("start_time", 0)) + 1
    print(f"file: root region {cols[0]} = {root:.0f} mJ; the program's 2 s loop {loop_mj:.0f} mJ; "
          f"bound {limit_w:.0f} W x {wall:.0f} s")
    if root < 0.95 * loop_mj:
        fails.append("root region energy below the loop's")
    if root > limit_w * 1000 * wall:
        fails.append("root region energy above power limit x wall time")
    if cols[0] not in open(report).read():
        fails.append(f"tally-report does not show {cols[0]}")
    return fails


def main(argv):
    pts = smi_readings(argv[1])
    v = program(argv[2])
    t0, t1 = v["NVML_WINDOW"]
    e_nvml = v["NVML_ENERGY_MJ"][0] / 1000.0
    e_smi, n = integrate(pts, t0, t1)
    dev = (e_nvml - e_smi) / e_smi
    print(f"window {t1 - t0:.3f} s, {n} nvidia-smi readings inside; nvml energy {e_nvml:.1f} J, "
          f"nvidia-smi integrated {e_smi:.1f} J ({dev * 100:+.2f}%); mean power {e_smi / (t1 - t0):.1f} W")
    fails = [] if abs(dev) <= 0.05 and n >= 20 else ["nvml energy differs from nvidia-smi by more than 5%"]
    if "--h5" in argv:
        rt = program(argv[argv.index("--loop") + 1])
        fails += check_file(argv[argv.index("--h5") + 1], rt["NVML_ENERGY_MJ"][0], v["limit_w"],
                            argv[argv.index("--report") + 1])
    for f in fails:
        print("FAIL", f)
    print("PASS" if not fails else "FAILED")
    return 1 if fails else 0


sys.exit(main(sys.argv))
