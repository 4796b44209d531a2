"""results.py - the result lines of each application, for comparing a plain
run with a measured one.

HPCC: hpccoutf.txt's summary values that do not depend on timing (problem
sizes, HPL residual norms, PTRANS residual, RandomAccess errors, FFT error),
every PASSED/FAILED line and PTRANS's count of tests that passed and failed
their residual checks; performance figures differ run to run and are left
out.  PTRANS's CPU lines are left out as well: PTRANS prints a repetition's
CPU line only when its CPU time is above zero, and at this problem size that
time is under clock()'s resolution in some repetitions and not others, so
their number changes run to run (a plain run printed five, a measured one
three, with identical WALL lines and verdicts).
LAMMPS: the thermo table and the neighbour-list totals, exactly.
CP2K: the SCF iteration count and the total energies; the energies to 12
significant digits, since CP2K's threaded sums (and so the last two of its
17 printed digits) differ between any two runs, measured or not.
"""
import re

HPCC_KEYS = ("Success", "CommWorldProcs", "HPL_N", "HPL_NB", "HPL_nprow", "HPL_npcol",
             "HPL_RnormI", "HPL_Anorm1", "HPL_AnormI", "HPL_Xnorm1", "HPL_XnormI",
             "HPL_BnormI", "PTRANS_residual", "PTRANS_n", "MPIRandomAccess_N",
             "MPIRandomAccess_Errors", "MPIRandomAccess_LCG_N", "MPIRandomAccess_LCG_Errors",
             "RandomAccess_N", "RandomAccess_LCG_N", "DGEMM_N", "STREAM_VectorSize", "FFT_N",
             "MPIFFT_N", "MPIFFT_maxErr", "MPIFFT_Procs")


def hpcc(text):
    out = []
    for line in text.splitlines():
        key = line.split("=", 1)[0]
        if "=" in line and key in HPCC_KEYS:
            out.append((key, line.split("=", 1)[1].strip()))
        elif re.search(r"\b(PASSED|FAILED)\b", line):
            t = line.split()
            if t[0] == "CPU":
                continue
            if t[0] == "WALL":   # PTRANS: sizes, grid, (time), verdict, (times)
                t = t[:7] + [w for w in t if w in ("PASSED", "FAILED")]
            out.append(("check", " ".join(t)))
        elif re.match(r"\s*\d+ tests completed and (passed|failed) residual checks", line):
            out.append(("residual checks", " ".join(line.split())))
    return out, len(HPCC_KEYS)


def lammps(text):
    out, table = [], False
    for line in text.splitlines():
        if line.split()[:1] == ["Step"]:
            table = True
        elif line.startswith("Loop time"):
            table = False
        if table or re.match(r"(Total # of neighbors|Ave neighs/atom|Neighbor list builds)", line):
            out.append(("line", " ".join(line.split())))
    return out, 8


def cp2k(text):
    out = []
    for line in text.splitlines():
        m = re.search(r"SCF run converged in\s+(\d+) steps", line)
        if m:
            out.append(("scf steps", m.group(1)))
        m = re.search(r"(ENERGY\| Total FORCE_EVAL.*?|Total energy):\s+(-?\d+\.\d+)", line)
        if m:
            out.append((" ".join(m.group(1).split()), "%.11e" % float(m.group(2))))
    return out, 3


PARSERS = {"hpcc": hpcc, "lammps": lammps, "cp2k": cp2k}


def compare(app, plain_path, tally_path):
    """Print both runs' result lines; the number of differences (a result
    missing from the plain run counts as one)."""
    parse = PARSERS[app]
    plain, need = parse(open(plain_path, errors="replace").read())
    meas, _ = parse(open(tally_path, errors="replace").read())
    bad = 0
    if len(plain) < need:
        print("the plain run printed %d result line(s), want at least %d" % (len(plain), need))
        bad += 1
    for i in range(max(len(plain), len(meas))):
        a = plain[i] if i < len(plain) else None
        b = meas[i] if i < len(meas) else None
        print("  %-9s %s" % ("same" if a == b else "DIFFERS", a if a == b else "%s | %s" % (a, b)))
        bad += a != b
    return bad
