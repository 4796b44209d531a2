#!/usr/bin/python3
"""check_gomp.py FILE TRUTH SOURCE PYTHONPATH APP - gomp_regions' file against
the truth the program wrote (gomp_regions.c says what each field is).

Per thread, matched by kernel thread id:
  names: "omp parallel @ main (gomp_regions.c:LINE)" for the outer and the
    inner region, "omp loop @ inner_body (gomp_regions.c:LINE)", LINE within
    one of the SITE marker, each what addr2line says of its address;
  visits, exact: "omp parallel @ main (SITE outer)" = outer;
    "omp parallel @ main (SITE inner)" = inner, under the outer region on
    the threads that started inner regions, at the top of the others;
    "omp loop @ inner_body (SITE loop)" = loop, under the inner region;
    "omp barrier wait" under the inner region = 4 per inner region (the
    dynamic for's end, barrier, single, the static for's end) + 1 per inner
    region the thread started (its wait for the team); under the outer
    region on the main thread: one per outer region;
    "omp critical wait" = crit (time and visits only: uncounted).
  times, physical (perf::TASK-CLOCK, the thread CPU clocks of the truth;
  slack 3% + 1 ms as harness/tharness.h's TH_CLOCK_IN):
    body_cpu <= inner region <= total_cpu + extra
    iter_cpu <= loop region + its barrier waits <= sync_cpu + extra
      (threads that started no inner region: their barrier waits are all
      inside the sync windows) and the loop region alone >= iter_cpu;
    every region's task-clock <= its wall time + slack;
  the combined `parallel for` (SITE combined): its loop region under its
    parallel region, as many visits as the region on each thread; the main
    thread COMBINED of each (and its barrier waits), 2 x COMBINED implicit
    tasks over all threads;
  threads: kind 0 for the main thread, 1 for the others; the program still
  ran on libgomp (no libomp mapped).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import th  # noqa: E402

sys.path.insert(0, sys.argv[4])
import tally  # noqa: E402


COMBINED = 3   # gomp_regions.c


def slack(ns):
    return 0.03 * ns + 1e6


def within(counted, lo, hi, what):
    th.check(lo - slack(lo) <= counted <= hi + slack(hi),
             "%s = %d not in [%d, %d] (physical bounds, slack 3%% + 1 ms)" % (what, counted, lo, hi))


def sites(src):
    out = {}
    for n, text in enumerate(open(src), 1):
        m = re.search(r"/\* SITE (\w+) \*/", text)
        if m:
            out[m.group(1)] = n
    return out


def addr2line(app, addr):
    """addr2line's "function (file:line)" of module+0xoffset (a return address)."""
    off = int(addr.split("+")[1], 16) - 1
    out = subprocess.run(["addr2line", "-f", "-e", app, hex(off)], capture_output=True, text=True).stdout.split("\n")
    return "%s (%s)" % (out[0].split("._omp_fn.")[0], os.path.basename(out[1].split(" ")[0]))


def region_names(run, src, app):
    """The name of each construct: the region whose function is FUNC and
    whose line is within one of the construct's SITE marker (GCC gives the
    runtime call the line of the pragma or of the statement next to it),
    checked against addr2line of its regions.address."""
    s = sites(src)
    base = os.path.basename(src)
    want = {"outer": ("omp parallel", "main"), "inner": ("omp parallel", "main"),
            "loop": ("omp loop", "inner_body"), "combined": ("omp parallel", "main"),
            "combined_loop": ("omp loop", "main")}
    s["combined_loop"] = s["combined"]
    out = {}
    regs = run.regions.drop_duplicates("name")
    for site, (label, fn) in want.items():
        found = []
        for _, r in regs.iterrows():
            m = re.fullmatch(r"%s @ %s \(%s:(\d+)\)" % (label, fn, re.escape(base)), r["name"])
            if m and abs(int(m.group(1)) - s[site]) <= 1:
                found.append(r)
        if not th.check(len(found) == 1, "%s: %d regions named %s @ %s (%s:%d +- 1)"
                        % (site, len(found), label, fn, base, s[site])):
            out[site] = "?"
            continue
        r = found[0]
        if shutil.which("addr2line"):
            a2l = addr2line(app, r["address"])
            th.check(r["name"] == "%s @ %s" % (label, a2l), "%s: addr2line says %s" % (r["name"], a2l))
        out[site] = r["name"]
    return out


def truth(path):
    threads, runtime = {}, None
    for line in open(path):
        w = line.split()
        if w[0] == "thread":
            rec = {w[i]: int(w[i + 1]) for i in range(2, len(w), 2)}
            threads[int(w[1])] = rec
        elif w[0] == "runtime":
            runtime = w[1:]
    return threads, runtime


def main():
    path, tpath, src, _, app = sys.argv[1:6]
    want, runtime = truth(tpath)
    th.check(runtime is not None and any(x.startswith("libgomp") for x in runtime)
             and not any(x.startswith("libomp") for x in runtime),
             "OpenMP runtimes mapped: %s (want libgomp, no libomp)" % runtime)
    run = tally.read(path, stored_tree=True)   # each thread's tree as the runtime wrote it
    name = region_names(run, src, app)
    th.check("perf::TASK-CLOCK" in run.event_names, "events %s, want perf::TASK-CLOCK" % run.event_names)
    parent = {int(r["id"]): (int(r["parent"]), r["name"]) for _, r in run.regions.iterrows()}

    def path_of(i):
        out = []
        while i >= 0:
            i, n = parent[i]
            out.append(n)
        return tuple(reversed(out))
    paths = {i: path_of(i) for i in parent}
    threads = run.threads
    stats = run.region_stats
    combined = 0
    for ktid, t in want.items():
        rows = threads[threads["ktid"] == ktid]
        if not th.check(len(rows) == 1, "thread %d: %d rows in threads, want 1" % (ktid, len(rows))):
            continue
        idx = int(rows["thread"].iloc[0])
        kind = int(rows["kind"].iloc[0])
        th.check(kind == (0 if idx == 0 else 1), "thread %d (index %d): kind %d" % (ktid, idx, kind))
        mine = stats[stats["thread"] == idx]
        by_path = {}
        for _, r in mine.iterrows():
            by_path[paths[int(r["region"])]] = r
        # the inner region's path on this thread
        top = ("(thread)",)
        inner = top + ((name["outer"],) if t["inner_master"] and t["outer"] else ()) + (name["inner"],)

        def visits(p):
            return int(by_path[p]["visits"]) if p in by_path else 0

        def clock(p):
            v = by_path[p]["perf::TASK-CLOCK"] if p in by_path else 0
            return int(v) if v == v else -1   # NaN: not counted

        def wall(p):
            return int(by_path[p]["incl_ns"]) if p in by_path else 0
        th.check(visits(top + (name["outer"],)) == t["outer"],
                 "thread %d: outer visits %d, want %d" % (ktid, visits(top + (name["outer"],)), t["outer"]))
        th.check(visits(inner) == t["inner"], "thread %d: inner visits %d at %s, want %d"
                 % (ktid, visits(inner), " / ".join(inner), t["inner"]))
        bar, crit, loop = inner + ("omp barrier wait",), inner + ("omp critical wait",), inner + (name["loop"],)
        th.check(visits(loop) == t["loop"], "thread %d: loop visits %d, want %d" % (ktid, visits(loop), t["loop"]))
        want_bar = 4 * t["inner"] + t["inner_master"]
        th.check(visits(bar) == want_bar, "thread %d: barrier waits %d, want %d" % (ktid, visits(bar), want_bar))
        th.check(visits(crit) == t["crit"], "thread %d: critical waits %d, want %d" % (ktid, visits(crit), t["crit"]))
        # the combined parallel for: the loop opens with the region
        cp, cl = top + (name["combined"],), top + (name["combined"], name["combined_loop"])
        cb = cp + ("omp barrier wait",)
        combined += visits(cp)
        th.check(visits(cl) == visits(cp), "thread %d: combined loop visits %d, its region's %d"
                 % (ktid, visits(cl), visits(cp)))
        if idx == 0:
            th.check(visits(cp) == COMBINED and visits(cb) == COMBINED,
                     "main thread: combined regions %d, their barrier waits %d, want %d"
                     % (visits(cp), visits(cb), COMBINED))
        if idx == 0:
            ob = top + (name["outer"], "omp barrier wait")
            th.check(visits(ob) == t["outer"], "main thread: outer barrier waits %d, want %d"
                     % (visits(ob), t["outer"]))
        known = {top, top + (name["outer"],), inner, bar, crit, loop, top + (name["outer"], "omp barrier wait"),
                 cp, cl, cb}
        extra = sorted(" / ".join(p) for p in by_path if p not in known)
        th.check(not extra, "thread %d: unexpected regions %s" % (ktid, extra))
        if not t["inner"]:
            continue
        within(clock(inner), t["body_cpu"], t["total_cpu"] + t["extra"], "thread %d: inner task-clock" % ktid)
        within(clock(loop), t["iter_cpu"], t["total_cpu"] + t["extra"], "thread %d: loop task-clock" % ktid)
        if not t["inner_master"]:
            within(clock(loop) + clock(bar), t["iter_cpu"], t["sync_cpu"] + t["extra"],
                   "thread %d: loop + barrier task-clock" % ktid)
            th.check(wall(bar) <= t["sync_wall"] + slack(t["sync_wall"]),
                     "thread %d: barrier wall %d above the sync windows' %d" % (ktid, wall(bar), t["sync_wall"]))
        th.check(crit in by_path and int(by_path[crit]["uncounted"]) == 1,
                 "thread %d: critical waits carry counters (want time and visits only)" % ktid)
        for p in (inner, loop, bar):
            th.check(clock(p) <= wall(p) + slack(wall(p)),
                     "thread %d: %s task-clock %d above its wall time %d" % (ktid, p[-1], clock(p), wall(p)))
    th.check(combined == 2 * COMBINED, "combined parallel for: %d implicit tasks in all, want %d"
             % (combined, 2 * COMBINED))
    sys.exit(th.done("check_gomp"))


main()
