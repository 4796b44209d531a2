#!/usr/bin/python3
"""test_job_ids.py RUN APP - jobs without MPI (ranks from RANK/WORLD_SIZE,
no launcher id) never share a file (issue 47; rt_job.c, rt_job_dir.c).

  shell   8 concurrent 2-process jobs from one shell, each job a subshell
          of it (default file names): 8 files, each holding exactly the
          pids of its own two processes, no job directory left
  setsid  the same with every process in a session of its own (setsid)
          and one --output-name: job.h5, job.1.h5 ... job.7.h5, each with
          its own two pids
  stale   a job whose rank 1 never came, then a job of two from the same
          shell: the second's file holds only its own two pids; the first's
          piece is kept aside (stale-*), readable, and said once
  parts_name  a PMIx job's lone rank 0: its job directory names the job id
          once (tally-<program>-pmix<N>.parts)

Files are read with tally.read.  Each case is bounded (60 s a launch).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402
show_ok()
sys.path.insert(0, os.environ.get("TALLY_PYTHONPATH", ""))
try:
    import tally
    import tally.fileio  # noqa: F401
except ImportError:
    print("SKIP: /usr/bin/python3 has no h5py (testsuite/install-deps.sh installs python3-h5py)")
    sys.exit(77)

RUN, APP = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ENV = {k: v for k, v in os.environ.items()
       if k not in ("TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                    "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "TALLY_OUTPUT")}
ENV["ASAN_OPTIONS"] = "detect_leaks=0"
ENV.pop("TALLY_PYTHONPATH", None)
# each process prints its pid, then becomes the program (the same pid)
PROC = '"$RUN" %s -- /bin/sh -c \'echo "pid $$" > "$0"; exec "$1" 0\' "%s" "$APP"'


def launch(d, script):
    env = dict(ENV, RUN=RUN, APP=APP)
    t0 = time.time()
    p = subprocess.run(["/bin/bash", "-c", script], cwd=d, env=env, capture_output=True, text=True, timeout=240)
    print(f"  launch: rc {p.returncode}, {time.time() - t0:.1f} s\n" + "".join("  | " + l + "\n" for l in p.stderr.splitlines()[:40]))
    return p


def job_script(njobs, opts, wrap=""):
    """njobs concurrent jobs of 2 from one bash, each job a subshell."""
    lines = ["for j in $(seq 1 %d); do" % njobs, "  ("]
    for r in range(2):
        lines.append(f"    RANK={r} WORLD_SIZE=2 {wrap}" + PROC % (opts, f"pid.$j.{r}") + " &")
    lines += ["    wait", "  ) &", "done", "wait"]
    return "\n".join(lines)


def pid_of(d, name):
    with open(os.path.join(d, name)) as f:
        return int(f.read().split()[1])


def pids_in(path):
    run = tally.read(path)
    rk = run.tables["ranks"]
    return sorted(int(x) for x in rk["pid"]), int(run.meta.get("nranks", -1)), int(run.meta.get("partial", -1))


def check_jobs(d, files, njobs, what):
    check(len(files) == njobs, f"{what}: {njobs} job files ({len(files)}: {[os.path.basename(f) for f in files]})")
    want = {tuple(sorted(pid_of(d, f"pid.{j}.{r}") for r in range(2))) for j in range(1, njobs + 1)}
    got = set()
    for f in files:
        pids, nranks, partial = pids_in(f)
        check(nranks == 2 and partial == 0 and tuple(pids) in want,
              f"{what}: {os.path.basename(f)} holds one job's two processes {pids} (nranks {nranks}, partial {partial})")
        got.add(tuple(pids))
    check(got == want, f"{what}: every job in a file of its own")
    left = glob.glob(os.path.join(d, "*.parts")) + glob.glob(os.path.join(d, "*.tmp"))
    check(not left, f"{what}: no job directory or temporary left ({left})")


def case_shell(d):
    launch(d, job_script(8, ""))
    check_jobs(d, sorted(glob.glob(os.path.join(d, "*.h5"))), 8, "8 jobs from one shell")


def case_setsid(d):
    launch(d, job_script(8, "--output-name=job.h5", wrap="setsid "))
    files = sorted(glob.glob(os.path.join(d, "job*.h5")))
    check_jobs(d, files, 8, "8 jobs, each process in its own session")


def case_stale(d):
    script = "\n".join([
        "RANK=0 WORLD_SIZE=2 " + PROC % ("--output-name=job.h5", "pid.a.0"),
        "sleep 1",
        "RANK=0 WORLD_SIZE=2 " + PROC % ("--output-name=job.h5", "pid.b.0") + " &",
        "RANK=1 WORLD_SIZE=2 " + PROC % ("--output-name=job.h5", "pid.b.1") + " &",
        "wait"])
    p = launch(d, script)
    files = glob.glob(os.path.join(d, "*.h5"))
    check(len(files) == 1, f"stale: one job file ({[os.path.basename(f) for f in files]})")
    want = sorted([pid_of(d, "pid.b.0"), pid_of(d, "pid.b.1")])
    if files:
        pids, nranks, partial = pids_in(files[0])
        check(pids == want and nranks == 2 and partial == 0,
              f"stale: the file holds the second job's pids only ({pids}, expected {want})")
    stale = glob.glob(os.path.join(d, "*.parts", "stale-*.h5"))
    check(len(stale) == 1, f"stale: the first job's piece kept aside ({stale})")
    if stale:
        pids, _, _ = pids_in(stale[0])
        check(pids == [pid_of(d, "pid.a.0")], f"stale: the piece kept is the first job's rank 0 ({pids})")
    n = p.stderr.count("written before this rank was started")
    check(n == 1, f"stale: said once ({n})")


def case_parts_name(d):
    """A PMIx job's rank 0 alone (rank 1 never comes): its piece waits in
    the job directory, named once for the job's id (issue 52: the default
    name tally-<program>-<id> gave <...>-pmixN.pmixN.parts)."""
    launch(d, "PMIX_NAMESPACE=973275137 RANK=0 WORLD_SIZE=2 " + PROC % ("", "pid.p.0"))
    parts = [os.path.basename(p) for p in glob.glob(os.path.join(d, "*.parts"))]
    check(len(parts) == 1, f"parts name: one job directory ({parts})")
    for name in parts:
        check(name.count("pmix973275137") == 1 and name.endswith("-pmix973275137.parts"),
              f"parts name: the job id once ({name})")


CASES = {"shell": case_shell, "setsid": case_setsid, "stale": case_stale, "parts_name": case_parts_name}
for name in (sys.argv[3:] or CASES):
    work = tempfile.mkdtemp(prefix=f"tally-jobids-{name}-")
    print(f"== {name} ({work})")
    try:
        CASES[name](work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
sys.exit(done("job_ids"))
