#!/usr/bin/env python3
"""The constants of fpapi.h, f77papi.h, f90papi.h and module papi equal the
C values: a C program prints every name the headers define, four Fortran
programs (fixed form + cpp, fixed form + INCLUDE, free form + INCLUDE, use
papi) print the same names, and all five outputs must agree.

usage: test_constants.py CC FC GEN_INCLUDE SRC_INCLUDE MODULE_DIR WORK_DIR"""
import os
import re
import subprocess
import sys


def names_of(path, pattern):
    return re.findall(pattern, open(path, encoding="utf-8").read(), re.M)


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def parse(out):
    vals = {}
    for ln in out.splitlines():
        k, v = ln.split()
        vals[k] = int(v)
    return vals


def fixed_prog(names, head):
    body = [head]
    for n in names:
        body.append(f"      write (*, '(a,1x,i0)') '{n}',\n     &  {n}\n")
    return "".join(body) + "      end\n"


def main(cc, fc, gen_inc, src_inc, moddir, work):
    os.makedirs(work, exist_ok=True)
    sets = {
        "fpapi.h": names_of(os.path.join(gen_inc, "fpapi.h"), r"^#define (PAPIF?_[A-Z0-9_]+) [-(0-9]"),
        "f77papi.h": names_of(os.path.join(gen_inc, "f77papi.h"), r"^      PARAMETER \((\w+)="),
        "f90papi.h": names_of(os.path.join(gen_inc, "f90papi.h"), r"^      INTEGER, PARAMETER :: (\w+) ="),
    }
    names = sets["f90papi.h"]
    for h, s in sets.items():
        if s != names:
            raise SystemExit(f"{h} defines different names than f90papi.h")
    if len(names) < 300 or "PAPI_L1_DCM" not in names or "PAPI_DOM_HWSPEC" not in names:
        raise SystemExit(f"too few constants ({len(names)})")
    c = ['#include <stdio.h>\n#include "papi.h"\nint main(void)\n{\n']
    c += [f'\tprintf("%s %d\\n", "{n}", (int)({n}));\n' for n in names]
    c.append("\treturn 0;\n}\n")
    open(os.path.join(work, "c.c"), "w").write("".join(c))
    run([cc, "-std=c11", "-I", gen_inc, "-I", src_inc, "-o", "c", "c.c"], work)
    ref = parse(run(["./c"], work))
    progs = {
        "cpp.F": fixed_prog(names, '#include "fpapi.h"\n      program p\n'),
        "inc.f": fixed_prog(names, "      program p\n      include 'f77papi.h'\n"),
        "inc90.f90": "program p\n  include 'f90papi.h'\n"
        + "".join(f"  write (*, '(a,1x,i0)') '{n}', {n}\n" for n in names) + "end program p\n",
        "mod.f90": "program p\n  use papi\n"
        + "".join(f"  write (*, '(a,1x,i0)') '{n}', {n}\n" for n in names) + "end program p\n",
    }
    bad = 0
    for fname, text in progs.items():
        open(os.path.join(work, fname), "w").write(text)
        exe = "./" + fname.split(".")[0]
        run([fc, "-Wall", "-Werror", "-I", gen_inc, "-I", moddir, "-o", exe, fname], work)
        got = parse(run([exe], work))
        diff = [n for n in names if got.get(n) != ref[n]]
        for n in diff[:10]:
            print(f"{fname}: {n} = {got.get(n)}, C says {ref[n]}")
        bad += len(diff)
        print(f"{fname}: {len(names) - len(diff)}/{len(names)} constants equal C")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
