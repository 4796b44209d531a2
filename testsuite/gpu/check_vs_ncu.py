#!/usr/bin/env python3
"""check_vs_ncu.py NCU_CSV TALLY_LINES: compare Tally's per-kernel values
(test_gpu_truth) with ncu's for the same kernels.  Instruction counts must
be equal; dram__bytes_read.sum within 2% where the kernel reads >= 1 MiB
(below that, ncu's cache flush before each kernel dominates)."""
import csv, sys

ncu = {}
with open(sys.argv[1]) as f:
    rows = [l for l in f if not l.startswith('==')]
for r in csv.DictReader(rows):
    ncu[(int(r['ID']), r['Metric Name'])] = float(r['Metric Value'].replace(',', ''))
bad = compared = 0
for line in open(sys.argv[2]):
    parts = line.split()
    k, metric, val = int(parts[1]), parts[-2], float(parts[-1])
    ref = ncu.get((k, metric))
    if ref is None:
        print('MISSING', k, metric); bad += 1; continue
    if metric.startswith('dram'):
        ok = ref < (1 << 20) or abs(val - ref) <= 0.02 * ref
        rel = (val - ref) / ref * 100 if ref else 0
        print('%s kernel %d %s tally %.0f ncu %.0f (%+.3f%%)%s' % ('OK ' if ok else 'BAD', k, metric, val, ref, rel,
              '' if ref >= (1 << 20) else ' [not checked: < 1 MiB]'))
    else:
        ok = val == ref
        print('%s kernel %d %s tally %.0f ncu %.0f' % ('OK ' if ok else 'BAD', k, metric, val, ref))
    bad += not ok
    compared += 1
if compared == 0 or not ncu:  # nothing compared is a failure, not a pass
    print('NOTHING COMPARED: %d Tally lines, %d ncu values' % (compared, len(ncu))); bad += 1
print('RESULT', 'PASS' if bad == 0 else 'FAIL (%d)' % bad)
sys.exit(1 if bad else 0)
