#!/usr/bin/env python3
"""Presets each PMU gets from the preset maps (src/presets/maps/*.csv).

usage: preset_counts.py MAP.csv... [--check DOC.md]

Prints one line per PMU: its name, the number of distinct presets the maps
give it, and their names.  A preset counts once per PMU however many rows
name it (the first row that resolves wins at run time).  With --check, the
table of DOC.md (rows "| `pmu` | N | ...") must give every PMU of the maps
the count computed here, and name no PMU the maps do not; errors name the
row and exit with status 1.
"""
import re
import sys


def pmu_presets(paths):
    per = {}
    for path in paths:
        cur, last_cpu = [], False
        with open(path, encoding="ascii") as f:
            for raw in f:
                line = raw.split("#", 1)[0].strip()
                if not line:
                    continue
                fields = [x.strip() for x in line.split(",")]
                if fields[0] == "CPU":
                    if not last_cpu:
                        cur = []
                    cur += [p for p in fields[1:] if p]
                    last_cpu = True
                    continue
                last_cpu = False
                if fields[0] == "PRESET":
                    for pmu in cur:
                        per.setdefault(pmu, set()).add(fields[1])
    return per


def check(per, doc):
    rows, errors = {}, []
    with open(doc, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            m = re.match(r"\|\s*`([A-Za-z0-9_]+)`\s*\|\s*(\d+)\s*\|", line)
            if m:
                rows[m.group(1)] = (lineno, int(m.group(2)))
    for pmu, presets in sorted(per.items()):
        if pmu not in rows:
            errors.append(f"{doc}: no table row for PMU {pmu} ({len(presets)} presets)")
        elif rows[pmu][1] != len(presets):
            errors.append(f"{doc}:{rows[pmu][0]}: {pmu} has {len(presets)} presets in the maps, "
                          f"the table says {rows[pmu][1]}")
    for pmu, (lineno, _) in rows.items():
        if pmu not in per:
            errors.append(f"{doc}:{lineno}: {pmu} is in no preset map")
    return errors


def main(argv):
    doc = None
    if "--check" in argv:
        i = argv.index("--check")
        if i + 1 >= len(argv):
            raise SystemExit(__doc__)
        doc = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if not argv:
        raise SystemExit(__doc__)
    per = pmu_presets(argv)
    if doc:
        errors = check(per, doc)
        for e in errors:
            print(e, file=sys.stderr)
        print(f"{len(per)} PMUs checked, {len(errors)} errors")
        return 1 if errors else 0
    for pmu, presets in sorted(per.items()):
        print(f"{pmu} {len(presets)} {' '.join(sorted(p[5:] for p in presets))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
