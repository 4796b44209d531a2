#!/usr/bin/env python3
"""Every routine of papif_spec.txt is exported by libtally under all four
external names (lower, lower_, lower__, UPPER), and no internal tly_ name
leaks.  usage: test_exported_names.py papif_spec.txt libtally.so"""
import subprocess
import sys


def main(spec, lib):
    names = []
    for line in open(spec, encoding="utf-8"):
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line.split("|")[0].strip())
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = {ln.split()[-1]: ln.split()[-2] for ln in out.splitlines() if len(ln.split()) >= 3}
    missing = []
    for n in names:
        for s in (n.lower(), n.lower() + "_", n.lower() + "__", n.upper()):
            if syms.get(s) != "T":
                missing.append(s)
    leaked = [s for s in syms if s.startswith("tly_")]
    print(f"{len(names)} routines, {4 * len(names)} names expected, {len(missing)} missing, "
          f"{len(leaked)} internal names exported")
    for s in missing + leaked:
        print("  ", s)
    return 1 if missing or leaked or len(names) < 80 else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
