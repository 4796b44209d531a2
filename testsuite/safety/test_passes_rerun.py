#!/usr/bin/python3
"""test_passes_rerun.py RUN APP REPORT - tally-run --passes reruns (issue 47).

  rerun   two --passes=auto runs with one --output-name in one directory: the
          second run's job file holds the second run's process (its pid,
          from its own pass file), the first run's job file is unchanged,
          and the first run's pass file is never merged again (said)
  fewer   --passes=2 on a program whose schedule has one pass: one run,
          said, and a job file tally-report reads (exit 0)
Files are read with tally.read.
"""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402
show_ok()
sys.path.insert(0, os.environ.get("TALLY_PYTHONPATH", ""))
try:
    import tally
    import tally.fileio  # noqa: F401
except ImportError:
    print("SKIP: /usr/bin/python3 has no h5py")
    sys.exit(77)
RUN, APP, REPORT = (os.path.abspath(a) for a in sys.argv[1:4])
ENV = {k: v for k, v in os.environ.items() if not k.startswith("TALLY_")}


def run(d, *opts):
    p = subprocess.run([RUN, *opts, "--", APP, "0"], cwd=d, env=ENV, capture_output=True, text=True, timeout=300)
    print("".join("  | " + l + "\n" for l in p.stderr.splitlines()))
    return p


def pids(path):
    return sorted(int(x) for x in tally.read(path).tables["ranks"]["pid"])


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


d = tempfile.mkdtemp(prefix="tally-passes-rerun-")
try:
    p1 = run(d, "--passes=auto", "--output-name=job.h5")
    first = set(glob.glob(os.path.join(d, "job.*pass*.h5")))
    check(p1.returncode == 0 and os.path.exists(os.path.join(d, "job.h5")) and len(first) == 1, "first run: job.h5")
    before = digest(os.path.join(d, "job.h5"))
    p2 = run(d, "--passes=auto", "--output-name=job.h5")
    second = set(glob.glob(os.path.join(d, "job.*pass*.h5"))) - first
    check(p2.returncode == 0 and len(second) == 1, f"second run: a pass file of its own ({sorted(second)})")
    check(digest(os.path.join(d, "job.h5")) == before, "the first run's job.h5 is unchanged")
    j1 = os.path.join(d, "job.1.h5")
    check(os.path.exists(j1), f"the second run's job file is job.1.h5 ({sorted(os.listdir(d))})")
    if os.path.exists(j1) and second and first:
        check(pids(j1) == pids(second.pop()) != pids(first.pop()),
              "job.1.h5 holds the second run's process, not the first's")
    check(p2.stderr.count("of earlier runs") == 1, "the earlier run's pass file is said, once")
    p3 = run(d, "--passes=2", "--output-name=two.h5")
    two = os.path.join(d, "two.h5")
    check(p3.returncode == 0 and "the schedule needs 1 pass" in p3.stderr, "--passes=2, one-pass schedule: said")
    r = subprocess.run([REPORT, two], capture_output=True, text=True, timeout=300, env=ENV)
    check(r.returncode == 0, f"tally-report reads two.h5 (exit {r.returncode}: {r.stderr.strip()[:200]})")
    if os.path.exists(two):
        checks = tally.read(two).tables.get("pass_checks")
        check(checks is None or not len(checks) or (checks["rank"] >= 0).all(), "no pass_checks row of rank -1")
finally:
    shutil.rmtree(d, ignore_errors=True)
sys.exit(done("passes_rerun"))
