"""check_files.py REASON MIN FILE... - every FILE is a file of Tally's that
its reader takes: with REASON "-" a complete one, "any" complete or
partial, else a partial one with partial_reason REASON; fails below MIN
files, and MIN is at least 1: a run that wrote no file at all fails
(run_signals.sh, run_swap_race.sh; its self-test: safety_check_files_planted)."""
import os
import sys

sys.path.insert(0, os.environ["TALLY_PYTHONPATH"])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tally  # noqa: E402
import th  # noqa: E402

reason, least, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
th.check(least >= 1, "MIN %d: a check of files wants at least one" % least)
for fn in files:
    run = tally.read(fn)
    if reason == "any":
        pass
    elif reason == "-":
        th.check(not run.partial, fn + " is a complete file")
    else:
        th.check(run.partial, fn + " is marked partial")
        th.check(run.meta.get("partial_reason") == reason,
                 "%s: partial_reason %r, want %r" % (fn, run.meta.get("partial_reason"), reason))
    th.check(len(run.tables["threads"]) >= 1, fn + ": thread rows")
print("%d files read" % len(files))
th.check(len(files) >= max(least, 1), "%d files, want at least %d" % (len(files), max(least, 1)))
sys.exit(th.done("check_files"))
