#!/usr/bin/env python3
"""compare_perf.py TALLY_FILE[,...] PERF_SCRIPT[,...] COMM PYTHONPATH [TOP] -
Tally's call-path samples against perf's (issue 51).

With several runs of each (comma-separated, as many Tally files as perf
scripts) the shares compared are the means of the runs' shares, each run
weighing the same: a function whose time varies from run to run (GCC's
barrier spinning in LULESH: ±2 points between two plain runs) is compared
by its mean, not by one draw of it; the range of the runs' differences is
printed beside each.

PERF_SCRIPT is `perf script -F comm,tid,ip,sym,dso --no-inline` of a
`perf record -e cpu-clock --call-graph dwarf,16384` run of the plain
program, as long as Tally's run and at the same rate, or of Tally's run
itself (bench_sampling.sh's TLY_BENCH_AGREE_SAME: the self shares of one
run, its drain thread, named tally-sampling, left out by its name; both
the self and the inclusive shares are compared: perf's unwinding reaches
the threads' roots in such a run since Tally reads the ELF files it
unwinds without mapping them again, 30 Nov 2026).  Tally samples a thread's CPU
time, its system calls and page faults included, each at the user PC the
kernel returns to; perf's samples in the kernel are read the same way:
their kernel frames dropped, the sample given to its user stack (where
perf may not count kernel time, `cpu-clock:u`, both miss it alike only
if Tally's source excludes the kernel too).  Both sides are read at the
level perf reports: the out-of-line function holding the PC (Tally's
inlined frames folded into the function they were inlined into), C++
arguments dropped, a frame without a symbol keyed by its module.  Only
the program's own samples are compared: perf's of the processes named
COMM but those in the dynamic loader (the start-up's loading, before
Tally samples; perf's dwarf unwinding breaks too often on optimised code
to select samples by their outer frames); on both sides a sample whose
innermost frame outside libc and the loader is in Tally's libraries is
Tally's cost, left out, and Tally's frames are dropped from the paths
(its wrappers of GOMP_parallel, MPI_* sit between the program's frames).

Prints, for perf's and Tally's TOP (10) functions by self samples, both
self shares and their difference, and the inclusive shares of the
functions on the main call paths (inclusive share >= 5% to perf).  Exit 1 when a self
share differs by more than 2 points or an inclusive one by more than 3
(the acceptance of issue 51), else 0.  perf's dwarf unwinding stops early
on some samples (out of `__brk`, `sysmalloc`, `__cbrt` in LULESH: 6.9% of
its samples); such a sample counts for none of its outer functions, so an
inclusive share is compared with perf's interval [counted, counted +
unrooted], both sides' unrooted shares printed (docs/sampling.md)."""
import os
import re
import sys
from collections import Counter

SELF_TOL, INCL_TOL, INCL_MIN = 2.0, 3.0, 5.0
OWN = re.compile(r"libtally[-.]")
LOADER = re.compile(r"/ld-linux[^/]*$")
KERNEL = re.compile(r"^\[(kernel|guest)")
SYSTEM = re.compile(r"(^|/)(libc\.so|ld-linux|\[vdso)")


def tallys(modules):
    """The sample is Tally's cost: its innermost frame outside libc and the
    loader is in Tally's libraries (a counter read's read(), its
    wrappers)."""
    for m in modules:
        if not SYSTEM.search(str(m)):
            return bool(OWN.search(str(m)))
    return False


def key(name):
    """A function's name as both sides compare it: C++ arguments dropped, and
    a compiler's clone suffix (GCC's outlined OpenMP body `f [clone
    ._omp_fn.0]`, `.constprop`, `.isra`): perf prints the clone under its
    function's name."""
    name = re.sub(r"\+0x[0-9a-f]+$", "", str(name))
    name = re.sub(r"\s*\[clone [^]]*\]", "", name)
    name = re.sub(r"\._omp_fn\.\d+$|\.(constprop|isra|part|cold)\.\d+$", "", name)
    depth, out = 0, []
    for ch in name:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return re.sub(r"\s+", " ", "".join(out)).strip()


LIBC = re.compile(r"(^|/)(libc|libm)\.so")


def unnamed(name, module):
    """A frame without a symbol (a stripped library's local function: '?'
    to Tally, '[unknown]' to perf) keyed by its module's file name.  In
    libc and libm one address has several names (`pow@@GLIBC_2.29` and
    `__pow`, `malloc` and `__libc_malloc`, `__GI___libc_write` and
    `__libc_write`) and the two tools may pick different ones: their
    version, `__GI_`, leading underscores and `libc_` are dropped there."""
    if name in ("?", "[unknown]", ""):
        return "? (%s)" % os.path.basename(str(module))
    if LIBC.search(str(module)):
        name = re.sub(r"@.*$", "", name)
        name = re.sub(r"^(__GI_)?_*(libc_)?", "", name) or name
    return name


ROOT = re.compile(r"^(_start|start_thread|clone3?|__clone\w*|__libc_start_(call_)?main\w*)(@.*)?$")
# a return address in no file: an unwinding that went wrong from there on
PSEUDO = re.compile(r"^(\[(stack|heap|anon|vdso|vvar)[^\]]*\]|//anon)")


def to_root(frames, name):
    """The frames of a path (innermost first) up to its thread's root, and
    whether it has one: the first root frame ends it (what lies outside,
    _start of a stripped program, is named by neither sampler), and a frame
    in no file ([stack], [heap]: perf's unwinding lost its way) ends it
    unrooted."""
    for i, f in enumerate(frames):
        if ROOT.match(name(f)):
            return frames[:i + 1], True
        if PSEUDO.match(f[1]) and i > 0:
            return frames[:i], False
    return frames, False


def perf_samples(path, comm):
    """(self Counter, inclusive Counter, total, unrooted) of perf's samples;
    unrooted: those whose call path does not reach a thread's root (_start,
    start_thread, clone): perf's unwinding stopped early."""
    self_n, incl, total, unrooted = Counter(), Counter(), 0, Counter()
    frames, head = [], None

    def flush():
        nonlocal total
        if head is None or head != comm or not frames:
            return
        if tallys(d for _, d, _ in frames) or LOADER.search(frames[0][1]):
            return
        path, rooted = to_root(frames, lambda f: f[2])   # the name before libc's aliases are folded
        syms = [s for s, d, _ in path if not OWN.search(d)]
        total += 1
        self_n[syms[0]] += 1
        if not rooted:
            unrooted[syms[0]] += 1
        for s in {s for s, d, r in path if not OWN.search(d) and not ROOT.match(r)}:
            incl[s] += 1   # a thread's roots are in every path, named per libc build: not compared
    with open(path, errors="replace") as fh:
        for line in fh:
            if not line.strip():
                flush()
                frames, head = [], None
            elif not line[0].isspace():
                flush()
                frames, head = [], line.split()[0]
            else:
                m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
                if m and not KERNEL.search(m.group(2)) and m.group(2) != "[unknown]":   # no module: a frame perf made up
                    frames.append((unnamed(key(m.group(1)), m.group(2)), m.group(2), key(m.group(1))))
    flush()
    return self_n, incl, total, unrooted


def tally_samples(path, pypath):
    sys.path.insert(0, pypath)
    from tally.reader import read
    run = read(path)
    paths, samples = run.table("sample_paths"), run.table("samples")
    parent = dict(zip(paths["id"].astype(int), paths["parent"].astype(int)))
    fn = dict(zip(paths["id"].astype(int), paths["function"]))
    mod = dict(zip(paths["id"].astype(int), paths["module"]))
    inl = dict(zip(paths["id"].astype(int), paths["inlined"].astype(int)))
    self_n, incl, total, unrooted = Counter(), Counter(), 0, Counter()
    for pid, n in samples.groupby("path")["samples"].sum().items():
        chain, j = [], int(pid)
        while j >= 0 and len(chain) < 4096:
            chain.append(j)
            j = parent.get(j, -1)
        outer = [j for j in chain if not inl[j]]
        if not outer or tallys(mod[j] for j in outer):
            continue
        kept, rooted = to_root([(j, str(mod[j])) for j in chain], lambda f: key(fn[f[0]]))
        kept = {j for j, _ in kept}
        outer = [j for j in outer if j in kept and not OWN.search(str(mod[j]))]
        if not outer:
            continue
        n = int(n)
        total += n
        self_n[unnamed(key(fn[outer[0]]), mod[outer[0]])] += n
        for s in {unnamed(key(fn[j]), mod[j]) for j in outer if not ROOT.match(key(fn[j]))}:
            incl[s] += n
        if not rooted:
            unrooted[unnamed(key(fn[outer[0]]), mod[outer[0]])] += n
    return self_n, incl, total, unrooted


def shares(counts, total):
    return {k: 100.0 * n / total for k, n in counts.items()} if total else {}


def mean(dicts):
    keys = {k for d in dicts for k in d}
    return Counter({k: sum(d.get(k, 0.0) for d in dicts) / len(dicts) for k in keys})


def spread(pairs, k):
    """'lo..hi' of the runs' differences (Tally - perf) for k, or ''."""
    if len(pairs) < 2:
        return ""
    d = [t.get(k, 0.0) - p.get(k, 0.0) for p, t in pairs]
    return f"  runs {min(d):+.2f}..{max(d):+.2f}"


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    tfiles, pfiles = sys.argv[1].split(","), sys.argv[2].split(",")
    if len(tfiles) != len(pfiles):
        sys.exit(f"compare_perf.py: {len(tfiles)} Tally file(s) against {len(pfiles)} perf script(s)")
    runs = []
    for tf, pf in zip(tfiles, pfiles):
        ps, pi, pt, pu = perf_samples(pf, sys.argv[3])
        ts, ti, tt, tu = tally_samples(tf, sys.argv[4])
        if not pt or not tt:
            print(f"no samples to compare (perf {pt} in {pf}, tally {tt} in {tf})")
            return 1
        runs.append(((shares(ps, pt), shares(pi, pt), shares(pu, pt), pt),
                     (shares(ts, tt), shares(ti, tt), shares(tu, tt), tt)))
    ps, pi, pu = (mean([r[0][i] for r in runs]) for i in range(3))
    ts, ti, tu = (mean([r[1][i] for r in runs]) for i in range(3))
    self_runs = [(r[0][0], r[1][0]) for r in runs]
    incl_runs = [(r[0][1], r[1][1]) for r in runs]
    bad = 0
    print(f"program samples: perf {'+'.join(str(r[0][3]) for r in runs)}, "
          f"tally {'+'.join(str(r[1][3]) for r in runs)}"
          + (f" ({len(runs)} runs each: the means of their shares)" if len(runs) > 1 else ""))
    print(f"{'function (self)':48s} {'perf %':>7s} {'tally %':>7s} {'diff':>6s}")
    keys = [k for k, _ in ps.most_common(top)]
    keys += [k for k, _ in ts.most_common(top) if k not in keys]
    for k in keys:
        a, b = ps.get(k, 0.0), ts.get(k, 0.0)
        flag = "" if abs(a - b) <= SELF_TOL else "  > %.0f points" % SELF_TOL
        bad += bool(flag)
        print(f"{k[:48]:48s} {a:7.2f} {b:7.2f} {b - a:+6.2f}{flag}{spread(self_runs, k)}")
    # A sample whose path stops early adds to none of its outer functions:
    # perf's inclusive share of F is at least what it counted and at most
    # that plus its unrooted samples; Tally's must lie within 3 points of
    # that interval (without unrooted samples, of perf's share itself).
    pus, tus = sum(pu.values()), sum(tu.values())
    print(f"call paths that stop before a thread's root: perf {pus:.2f}%, tally {tus:.2f}%"
          + (" (perf's, by function: " + ", ".join(f"{k} {v:.2f}%" for k, v in pu.most_common(5)) + ")"
             if pu else ""))
    print(f"{'function (inclusive, main paths)':48s} {'perf %':>7s} {'tally %':>7s} {'diff':>6s}")
    for k, _ in pi.most_common():
        a, b = pi.get(k, 0.0), ti.get(k, 0.0)
        if a < INCL_MIN:
            break
        ok = a - INCL_TOL <= b <= a + pus + INCL_TOL
        flag = "" if ok else "  > %.0f points" % INCL_TOL
        bad += not ok
        if ok and abs(a - b) > INCL_TOL:
            flag = "  (within perf's unrooted %.2f%%)" % pus
        print(f"{k[:48]:48s} {a:7.2f} {b:7.2f} {b - a:+6.2f}{flag}{spread(incl_runs, k)}")
    print("agree" if not bad else f"{bad} share(s) outside the tolerance")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
