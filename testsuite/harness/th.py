"""th.py - the Python side of Tally's test harness (tharness.h is the C side).

    import th            # after sys.path has testsuite/harness (th_path below)
    th.check(cond, "what")   # record a failed check with the caller's line, go on
    th.check(cond, "what", line=12)   # ... with another line (a row of a table)
    th.show_ok(True)         # also print "ok   line N: what" for passing checks
    sys.exit(th.done("name"))  # summary line; 1 when a check failed or none ran

Scripts find this module with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "harness"))
"""
import os
import re
import sys


def _switch_gap_ns(name="TH_SWITCH_GAP_NS"):
    """TH_SWITCH_GAP_NS of tharness.h (defined once, there): what one
    context switch may book to a thread's CPU time but not to its
    task-clock, or to its task-clock but not to its CPU time;
    TH_SWITCH_LOSS_NS: the lower side on a loaded machine."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tharness.h")) as f:
        m = re.search(r"#define " + name + r" ([0-9.]+)", f.read())
    return int(float(m.group(1)))


SWITCH_GAP_NS = _switch_gap_ns()
SWITCH_LOSS_NS = _switch_gap_ns("TH_SWITCH_LOSS_NS")
checks = 0
fails = []
_show_ok = False


def show_ok(on=True):
    """Print passing checks too (scripts whose log lists every check)."""
    global _show_ok
    _show_ok = on


def check(cond, what, line=None):
    """Count one check; print and record it when cond is false.  line:
    where to report it (default: the caller's line)."""
    global checks
    checks += 1
    if line is None:
        line = sys._getframe(1).f_lineno
    if not cond:
        fails.append(f"line {line}: {what}")
        print(f"FAILED: line {line}: {what}")
    elif _show_ok:
        print(f"ok   line {line}: {what}")
    return bool(cond)


def done(name=""):
    """Print the summary and return the exit status: 1 when a check failed
    or none was made, 0 otherwise."""
    print(f"{name + ': ' if name else ''}{len(fails)} failure(s) in {checks} check(s)")
    if checks == 0:
        print("FAILED: no check was made")
        return 1
    return 1 if fails else 0


def path_frames(paths, pid):
    """A sample path's frames (rows of a file's sample_paths), innermost
    first, following `parent` to the outermost."""
    out = []
    while pid >= 0:
        out.append(paths[pid])
        pid = int(paths[pid]["parent"])
    return out
