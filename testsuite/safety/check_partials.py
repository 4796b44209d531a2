"""check_partials.py DIR REASON N - every *.partial.h5 in DIR is a partial
file Tally's reader takes, with partial_reason REASON; prints how many and
fails below N files (run_sigterm.sh)."""
import glob
import os
import sys

sys.path.insert(0, os.environ["TALLY_PYTHONPATH"])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tally  # noqa: E402
import th  # noqa: E402

files = sorted(glob.glob(os.path.join(sys.argv[1], "*.partial.h5")))
for fn in files:
    run = tally.read(fn)
    th.check(run.partial, fn + " is marked partial")
    th.check(run.meta.get("partial_reason") == sys.argv[2],
             "%s: partial_reason %r, want %r" % (fn, run.meta.get("partial_reason"), sys.argv[2]))
    th.check(len(run.tables["threads"]) >= 1, fn + ": thread rows")
print("%d partial files read" % len(files))
th.check(len(files) >= int(sys.argv[3]), "%d partial files, want at least %s" % (len(files), sys.argv[3]))
sys.exit(th.done("check_partials"))
