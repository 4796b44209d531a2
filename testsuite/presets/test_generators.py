#!/usr/bin/env python3
"""Tests of the two preset generators (gen_presets.py, gen_maps.py).

usage: test_generators.py gen_presets.py gen_maps.py presets.csv
Runs each generator on good and bad input and checks the outputs and the
file:line errors.  Each case is a row carrying its source line.
"""
import inspect
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402


def here():
    return inspect.currentframe().f_back.f_lineno


def run(args):
    return subprocess.run([sys.executable] + args, capture_output=True, text=True)


def write(d, name, text, mode="w"):
    path = os.path.join(d, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def presets_cases(gen, real_csv, d):
    hdr, src = os.path.join(d, "defs.h"), os.path.join(d, "defs.c")
    # the real spec generates, with codes in file order
    r = run([gen, real_csv, hdr, src])
    check(r.returncode == 0, f"real presets.csv: {r.stderr}")
    if r.returncode == 0:
        h = open(hdr).read()
        c = open(src).read()
        check("do not edit" in h and "do not edit" in c, "banner")
        check("PAPI_L1_DCM_idx = 0," in h, "first preset has index 0")
        check("#define PAPI_TOT_CYC (PAPI_TOT_CYC_idx | PAPI_PRESET_MASK)" in h, "code macro")
        nrows = sum(1 for l in open(real_csv) if l.strip() and not l.startswith("#"))
        check(c.count("TLY_PCAT(") >= nrows, "one table row per preset")
    good = "PAPI_A;CACH|L1;short ?? one;long \"quoted\" \\ text\nPAPI_B;BR;b;bb\n"
    r = run([gen, write(d, "g.csv", good), hdr, src])
    check(r.returncode == 0, f"good spec: {r.stderr}")
    if r.returncode == 0:
        c = open(src).read()
        h = open(hdr).read()
        check("PAPI_B_idx = 1," in h and "PAPI_END_idx" in h, "indices")
        check('"long \\"quoted\\" \\\\ text"' in c, f"C escaping: {c}")
        check("??" not in c, "no trigraph sequence left in the C output")
        check("TLY_PCAT(CACH) | TLY_PCAT(L1)" in c, "categories")
    bad = [
        (here(), "PAPI_A;CACH;s\n", "b.csv:1: expected 4"),
        (here(), "# c\nPAPI_A;NOPE;s;l\n", "b.csv:2: unknown category"),
        (here(), "A;CACH;s;l\n", "b.csv:1: symbol must start with PAPI_"),
        (here(), "PAPI_A;CACH;s;l\nPAPI_A;BR;s;l\n", "b.csv:2: duplicate symbol"),
        (here(), "PAPI_A;CACH;" + "x" * 64 + ";l\n", "b.csv:1: short description longer"),
        (here(), "PAPI_A-B;CACH;s;l\n", "b.csv:1: symbol is not a C identifier"),
        (here(), "PAPI_A;CACH;s;" + "x" * 1024 + "\n", "b.csv:1: long description longer"),
        (here(), "# nothing\n", "b.csv: no presets"),
    ]
    for line, text, err in bad:
        for p in (hdr, src):
            if os.path.exists(p):
                os.remove(p)
        r = run([gen, write(d, "b.csv", text), hdr, src])
        check(r.returncode != 0, "bad spec accepted", line=line)
        check(err in r.stderr, f"error {err!r} not in {r.stderr!r}", line=line)
    r = run([gen, os.path.join(d, "missing.csv"), hdr, src])
    check(r.returncode != 0, "missing spec accepted")


def maps_cases(gen, d):
    out = os.path.join(d, "maps.c")
    a = write(d, "alpha.csv", "# a\nCPU,x,y\nPRESET,PAPI_TOT_CYC,NOT_DERIVED,C\\?\"q\"\n")
    b = write(d, "beta.csv", "CPU,z\r\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|2|*|,F\r\n")
    r = run([gen, out, b, a])
    check(r.returncode == 0, f"good maps: {r.stderr}")
    if r.returncode == 0:
        c = open(out).read()
        check(c.startswith("/* generated") and "do not edit" in c, "banner")
        check(c.index('"maps/alpha.csv"') < c.index('"maps/beta.csv"'), "sorted by name")
        check("tly_num_preset_maps = 2;" in c, "count")
        check('"PRESET,PAPI_TOT_CYC,NOT_DERIVED,C\\\\\\?\\"q\\"\\n"' in c, f"escaping: {c}")
        check('"CPU,z\\r\\n"' in c, "CR kept as an escape")
    bad = [
        (here(), "x.csv", "PRESET,PAPI_TOT_CYC,NOT_DERIVED,C\n", "x.csv:1: PRESET line before any CPU line"),
        (here(), "x.csv", "CPU,a\n\nEVENT,1\n", "x.csv:3: line is neither CPU nor PRESET"),
        (here(), "x.csv", "CPU\n", "x.csv:1: CPU line names no PMU"),
        (here(), "x.csv", "CPU,a\nPRESET,PAPI_TOT_CYC\n", "x.csv:2: PRESET line needs"),
        (here(), "x.csv", "CPU,a\n# caf\u00e9\n", "x.csv:2: not ASCII"),
        (here(), "x.csv", "CPU,a\nPRESET,P,NOT_DERIVED," + "E" * 1024 + "\n", "x.csv:2: line longer"),
        (here(), "x.txt", "CPU,a\n", "must be named"),
    ]
    for line, name, text, err in bad:
        if os.path.exists(out):
            os.remove(out)
        r = run([gen, out, write(d, name, text, "w")])
        check(r.returncode != 0, "bad map accepted", line=line)
        check(err in r.stderr, f"error {err!r} not in {r.stderr!r}", line=line)
        check(not os.path.exists(out), "output written despite the error", line=line)
    r = run([gen, out, os.path.join(d, "nope.csv")])
    check(r.returncode != 0 and "cannot read" in r.stderr, f"missing map: {r.stderr}")
    r = run([gen, out, a, a])
    check(r.returncode != 0 and "already given" in r.stderr, "duplicate map name")
    r = run([gen, out])
    check(r.returncode != 0, "no maps at all")


def main():
    gen_presets, gen_maps, real_csv = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as d:
        presets_cases(gen_presets, real_csv, d)
        maps_cases(gen_maps, d)
    return done("test_generators")


if __name__ == "__main__":
    sys.exit(main())
