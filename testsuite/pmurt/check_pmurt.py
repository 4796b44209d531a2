#!/usr/bin/env python3
"""check_pmurt.py FILES SRCDIR - the host's half of pmurt_sampling: call-path
sampling on hardware counters in the arm64 guest (docs/pmuvm.md).

FILES holds what the guest's test printed (testsuite/pmuvm/run.py wrote
it): per sampled run TAG.h5 and TAG.txt, the program's own counts of each
function (PAPI_start/PAPI_stop around each call: PAPI_TOT_CYC,
PAPI_TOT_INS, calls); per refused run TAG.h5 and TAG.err.

Sampled (cyc: PAPI_TOT_CYC every 1e6; ins: PAPI_TOT_INS every 1e7): each
function's samples (the leaf frame's) are its count / PERIOD, the number a
PAPI_overflow handler on that event and threshold would be called, within
1 sample per call + 1 on the cycle counter, whose interrupt is exact (a
call holds the floor or the ceiling of its count / PERIOD crossings), and
2 per call + 1 on a programmable counter, whose overflow the guest sees
at the next tick (shorter than the period): the sample of a crossing near
the end of a call may land after it, and one of a crossing just before a
call inside it.
Every sample kept; each function named with its file, its loop's lines,
the program as its module and main as its caller; the report's hot
functions the same; no period without a signal (unsignalled 0).  Late
(PAPI_TOT_INS every 1e6 beside the runtime's default counters, which take
the cycle counter: the programmable counter's overflows come at the next
tick, most more than a period late, and perf drops those periods): the
periods that brought no signal are counted (sampling_status.unsignalled,
schema 8), and signals + unsignalled are the thread's instructions /
1e6, at least the three functions' and at most 25% + 50 more (the
runtime's start and end on the thread); the report says so.  Refused (dcm: PAPI_L1_DCM; raw: its native event
arm_ac57::L1D_CACHE_REFILL; the guest's PMU counts neither): one line
says why, the file says it too and holds no sample."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                         "..", "..", "analysis")))
try:
    import tally  # noqa: E402
    from tally import sampling  # noqa: E402
except ImportError:
    print("h5py missing"); sys.exit(77)

# tag, event, period, the program's column, samples of slack per call
SAMPLED = (("cyc", "PAPI_TOT_CYC", 1000000, 0, 1), ("ins", "PAPI_TOT_INS", 10000000, 1, 2))
REFUSED = (("dcm", "PAPI_L1_DCM", "cannot be counted on this machine (papi_avail -e PAPI_L1_DCM says why)"),
           ("raw", "arm_ac57::L1D_CACHE_REFILL", "cannot be sampled here: perf_event: the armv8_pmuv3 PMU does "
                                                 "not implement arm_ac57::L1D_CACHE_REFILL"))
WORK = ("work_big", "work_mid", "work_small")


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def marker_lines(srcdir):
    """The line of each function's loop body (/* WORK_BIG */ ...)."""
    out = {}
    for n, text in enumerate(open(os.path.join(srcdir, "pmurt_app.c")), 1):
        if m := re.search(r"/\* (WORK_\w+) \*/", text):
            out["work_" + m.group(1)[5:].lower()] = n
    return out


frames = th.path_frames


def truth(path):
    """{function: (PAPI_TOT_CYC, PAPI_TOT_INS, calls)} the program measured."""
    return {l.split()[0]: tuple(int(x) for x in l.split()[1:4]) for l in open(path) if l.strip()}


def sampled(files, srcdir, tag, event, period, col, slack):
    def within(got, want, calls):
        return abs(got - want) <= slack * calls + 1

    t = truth(os.path.join(files, tag + ".txt"))
    check(sorted(t) == sorted(WORK), "%s: the program's counts of %s" % (tag, sorted(t)))
    path = os.path.join(files, tag + ".h5")
    with tally.raw(path) as f:
        st = f["sampling_status"]
        check(len(st) == 1, "%s: one sampled thread (%d rows)" % (tag, len(st)))
        r = st[0]
        lost = int(r["lost_full"]) + int(r["lost_stack"]) + int(r["lost_unwind"])
        print("%s: source %r, note %r; %d signals, %d taken, %d kept, %d lost" % (
            tag, s(r["source"]), s(r["note"]), r["signals"], r["taken"], r["kept"], lost))
        check(s(r["status"]) == "", "%s: sampling on (status %r)" % (tag, s(r["status"])))
        check(s(r["source"]) == "perf " + event, "%s: the source is %s: %r" % (tag, event, s(r["source"])))
        check(("one sample every %d %s " % (period, event)) in s(r["note"]), "%s: the note says the period" % tag)
        check(int(r["taken"]) == int(r["kept"]) + lost and lost == 0,
              "%s: every sample kept: taken %d, kept %d, lost %d" % (tag, r["taken"], r["kept"], lost))
        check(int(r["unsignalled"]) == 0, "%s: every period signalled: unsignalled %d" % (tag, r["unsignalled"]))
        paths, smp = f["sample_paths"], f["samples"]
        check(int(smp["samples"].sum()) == int(r["kept"]), "%s: the samples table holds the kept" % tag)
        got = dict.fromkeys(WORK, 0)
        lines = {k: {} for k in WORK}
        bad_names = []
        for x in smp:
            fr = frames(paths, int(x["path"]))
            leaf, n = s(fr[0]["function"]), int(x["samples"])
            if leaf not in got:
                continue
            got[leaf] += n
            key = (s(fr[0]["file"]), int(fr[0]["line"]))
            lines[leaf][key] = lines[leaf].get(key, 0) + n
            where = (os.path.basename(s(fr[0]["module"])), int(fr[0]["inlined"]),
                     s(fr[1]["function"]) if len(fr) > 1 else "", s(fr[1]["file"]) if len(fr) > 1 else "")
            if where != ("pmurt_app", 0, "main", "pmurt_app.c"):
                bad_names.append((leaf, where, n))
    print("%s: %s every %d: function, samples, count / period, the program's count, calls" % (tag, event, period))
    for k in WORK:
        print("    %-10s %6d %10.1f %13d %2d" % (k, got[k], t[k][col] / period, t[k][col], t[k][2]))
    for k in WORK:
        want, calls = t[k][col] / period, t[k][2]
        check(within(got[k], want, calls), "%s: %s has %d samples, its %s count / %d = %.1f (+- %d)"
              % (tag, k, got[k], event, period, want, slack * calls + 1))
    # the check can fail: the counts of two functions swapped would not pass
    check(not within(got["work_big"], t["work_mid"][col] / period, t["work_mid"][2]) and
          not within(got["work_mid"], t["work_small"][col] / period, t["work_small"][2]),
          "%s: self-test: swapped counts rejected" % tag)
    check(not bad_names, "%s: every sample of the three in pmurt_app, called by main in pmurt_app.c: %s"
          % (tag, bad_names[:3]))
    mark = marker_lines(srcdir)
    for k in WORK:
        in_loop = sum(n for (file, line), n in lines[k].items()
                      if file == "pmurt_app.c" and mark[k] - 1 <= line <= mark[k] + 1)
        check(in_loop >= 0.95 * got[k], "%s: %s: %d of %d samples on its loop's lines pmurt_app.c:%d-%d (%s)"
              % (tag, k, in_loop, got[k], mark[k] - 1, mark[k] + 1, sorted(lines[k].items())[:4]))
    hot = sampling.hot_functions(tally.read(path), 0).set_index("function")
    for k in WORK:
        check(k in hot.index and int(hot.loc[k, "self"]) == got[k],
              "%s: the report's self samples of %s are the file's %d" % (tag, k, got[k]))


def late(files):
    """PAPI_TOT_INS every 1e6 with the default counters: periods lost to
    late overflows are counted, and with the signals make the count."""
    period = 1000000
    t = truth(os.path.join(files, "late.txt"))
    work = sum(t[k][1] for k in WORK) / period
    path = os.path.join(files, "late.h5")
    with tally.raw(path) as f:
        r = f["sampling_status"][0]
        sig, uns = int(r["signals"]), int(r["unsignalled"])
    print("late: %d signals + %d unsignalled = %d periods; the three functions' instructions / %d = %.1f"
          % (sig, uns, sig + uns, period, work))
    check(uns > 0.2 * (sig + uns), "late: the late overflows' periods are counted: %d of %d" % (uns, sig + uns))
    check(work <= sig + uns + 1 <= 1.25 * work + 50,
          "late: signals + unsignalled %d within [%.0f, %.0f] (the thread's instructions / period)"
          % (sig + uns, work, 1.25 * work + 50))
    note = sampling.loss_note(tally.read(path))
    check("%d periods without a signal" % uns in note, "late: the report says it: %r" % note)


def refused(files, tag, event, reason):
    err = open(os.path.join(files, tag + ".err")).read()
    off = [l for l in err.splitlines() if "sampling is off" in l]
    print("%s: %s" % (tag, off))
    check(len(off) == 1 and off[0].startswith("tally: sampling is off: %s %s" % (event, reason)),
          "%s: one line says why %s is not sampled: %s" % (tag, event, off))
    with tally.raw(os.path.join(files, tag + ".h5")) as f:
        st = f["sampling_status"]
        whole = off[0][len("tally: sampling is off: "):] if len(off) == 1 else None
        check(len(st) == 1 and s(st[0]["status"]) == whole,
              "%s: the file says why, whole (the line's %s chars): %s"
              % (tag, len(whole) if whole else "-", [s(x) for x in st["status"]]))
        check("samples" not in f or len(f["samples"]) == 0, "%s: no samples" % tag)


def main():
    files, srcdir = sys.argv[1], sys.argv[2]
    if not os.path.isdir(files):
        print("no files from the guest in %s (testsuite/pmuvm/run.sh -L pmurt writes them)" % files)
        return 1
    for row in SAMPLED:
        sampled(files, srcdir, *row)
    late(files)
    for row in REFUSED:
        refused(files, *row)
    return th.done("pmurt_sampling_check")


sys.exit(main())
