#!/usr/bin/python3
"""test_jobs.py CASE - programs that are not MPI programs, under the runtime
(every program, not only MPI ones).  ctest label 'runtime'.

Environment (CMakeLists.txt): JOBS_RUN, JOBS_REPORT, JOBS_APP (plain),
JOBS_APP_MPI (the same with MPI_Init/MPI_Finalize), MPIEXEC, PRELOAD.

Cases:
  serial    100 x 1 ms sleeps: one file; context switches >= 100 and >= the
            voluntary switches of /proc/self/status (the ground truth)
  threads   a pthreads program: one file, its tables in the report
  python    a Python script (the interpreter preloaded): one file
  envjob    two processes with RANK/WORLD_SIZE (torchrun's variables): one
            file, nranks 2, both pids, no job directory left
  wrapper   2 ranks through a wrapper script that runs helper commands
            first (issue 50): one file, the requested name, the program's
  mpirunjob mpirun -np 2 of the non-MPI program (OMPI_COMM_WORLD_*): the same
  children  system(), popen(), fork()+exit(), fork()+exec() in a serial
            and an MPI run: no stray files, the parent's file intact, no
            partial file
  cli       an unknown option never runs its argument; --help lists every
            setting exactly but tally-report's own; no program: a short
            usage; --summary says one line for a bad file
  once      an invalid setting is reported once under -np 4 in the three
            launch styles
  report    every file above through tally-report, every --by and --format:
            a section appears where its table has rows, and only there
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done, show_ok  # noqa: E402
show_ok()

sys.path.insert(0, os.environ["JOBS_PYTHONPATH"])   # the tally package of the build: tally.raw reads the files
try:
    import tally
    import tally.fileio  # noqa: F401  (the reader's HDF5 layer: ImportError without h5py)
except ImportError:
    print("SKIP: /usr/bin/python3 has no h5py (testsuite/install-deps.sh installs python3-h5py)")
    sys.exit(77)

RUN = os.environ["JOBS_RUN"]
REPORT = os.environ["JOBS_REPORT"]
APP = os.environ["JOBS_APP"]
APP_MPI = os.environ.get("JOBS_APP_MPI", "")
MPIEXEC = os.environ.get("MPIEXEC", "")
PRELOAD = os.environ.get("PRELOAD", os.path.join(os.path.dirname(RUN), "libtally-preload.so"))
WORK = os.environ.get("JOBS_WORK", "/tmp/tally-jobs-test")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", ASAN_OPTIONS="detect_leaks=0")


def scratch(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def run(cmd, cwd, env=None, timeout=120):
    p = subprocess.run(cmd, cwd=cwd, env=env or ENV, capture_output=True, text=True, timeout=timeout)
    print(f"$ {' '.join(cmd)}\n  rc {p.returncode}\n" + "".join("  | " + l + "\n" for l in (p.stdout + p.stderr).splitlines()))
    return p


def only_files(d, names):
    """The directory holds exactly these names (no stray file, piece, .tmp)."""
    got = sorted(os.listdir(d))
    check(got == sorted(names), f"{d}: files {got}, expected {sorted(names)}")


def table(path, name):
    with tally.raw(path) as f:
        return f.get(name)


def attr(path, name):
    with tally.raw(path) as f:
        v = f.attrs[name]
    return v.decode() if isinstance(v, bytes) else v


def counter(path, event_prefix):
    """Sum over threads of the root region's value of the first event named so."""
    with tally.raw(path) as f:
        names = [e["name"].decode() for e in f["events"][()]]
        idx = next(i for i, n in enumerate(names) if n.startswith(event_prefix))
        roots = {int(r["id"]) for r in f["regions"][()] if int(r["parent"]) == -1}
        return sum(int(r["counters"][idx]) for r in f["region_stats"][()] if int(r["region"]) in roots)


def case_serial():
    d = scratch("serial")
    p = run([RUN, "--output-name=s.h5", "--", APP, "sleep"], d)
    check(p.returncode == 0, "serial run exits 0")
    only_files(d, ["s.h5"])
    truth = int(re.search(r"voluntary (\d+)", p.stdout).group(1))
    cs = counter(os.path.join(d, "s.h5"), "thread:::CONTEXT-SWITCHES")
    print(f"context switches: Tally {cs}, /proc/self/status voluntary_ctxt_switches of the loop {truth}")
    check(truth >= 100, f"ground truth: {truth} voluntary switches in 100 sleeps")
    check(cs >= 100 and cs >= truth, f"default event counts the switches: {cs} >= max(100, {truth})")
    check(cs <= truth + 100, f"and not far more: {cs} <= {truth} + 100")
    rc, out = report_text(os.path.join(d, "s.h5"))
    m = re.search(r"context switches/s\s+1/s\s+([0-9.e+]+)", out)
    check(m and float(m.group(1)) > 0, "the report's context switches/s is not 0")
    check(str(cs) in out, f"the report shows the {cs} context switches")


def report_text(path, *args):
    p = subprocess.run([REPORT, path, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def case_threads():
    d = scratch("threads")
    p = run([RUN, "--output-name=t.h5", "--", APP, "threads"], d)
    check(p.returncode == 0, "pthreads run exits 0")
    only_files(d, ["t.h5"])
    rk = table(os.path.join(d, "t.h5"), "ranks")
    check(len(rk) == 1 and int(rk[0]["pid"]) == int(re.search(r"pid (\d+)", p.stdout).group(1)),
          "one rank row with the program's pid")
    tc = counter(os.path.join(d, "t.h5"), "thread:::CPU-TIME")
    check(tc > 0, f"CPU time counted ({tc} ns)")


def case_thread_end():
    """A thread of the program's own that called Tally and ended before the
    process: its record is stopped at its end, on itself, so its root
    counts its CPU time (the thread component cannot be read once the
    thread has gone) and ends when it did."""
    d = scratch("thread_end")
    p = run([RUN, "--output-name=te.h5", "--", APP, "thread_end"], d)
    check(p.returncode == 0, "thread_end run exits 0")
    only_files(d, ["te.h5"])
    b, a, e = (int(x) for x in re.search(r"thread cpu first (\d+) (\d+) end (\d+)", p.stdout).groups())
    with tally.raw(os.path.join(d, "te.h5")) as f:
        names = [x["name"].decode() for x in f["events"][()]]
        cpu = names.index("thread:::CPU-TIME")
        regions = {int(r["id"]): r for r in f["regions"][()]}
        stats = f["region_stats"][()]
        rank = f["ranks"][()][0]
    roots = [r for r in stats if int(regions[int(r["region"])]["parent"]) == -1 and int(r["thread"]) != 0]
    check(len(roots) == 1, f"one root of a thread beside the main thread's, got {len(roots)}")
    if not roots:
        return
    r = roots[0]
    v = int(r["counters"][cpu])
    print(f"ended thread's root: CPU-TIME {v} ns, its clock from its first call to its end {e - a}..{e - b} ns, "
          f"uncounted {int(r['uncounted'])}, root {int(r['incl_ns']) / 1e6:.1f} ms of the process's "
          f"{int(rank['elapsed_ns']) / 1e6:.1f} ms")
    check(int(r["uncounted"]) == 0, "the ended thread's root is counted")
    # from its record's start (inside the first call) to its end (the key
    # destructor, after the thread's last clock read: its exit path)
    check(e - a <= v <= e - b + 5_000_000, f"root CPU-TIME {v} within [{e - a}, {e - b} + 5 ms]")
    check(int(r["incl_ns"]) + 250_000_000 <= int(rank["elapsed_ns"]),
          "the root ends with the thread, 0.3 s before the process")


def case_python():
    d = scratch("python")
    script = os.path.join(d, "work.py")
    with open(script, "w") as f:
        f.write("s = 0\nfor i in range(2000000):\n    s += i * i\nprint('sum', s)\n")
    p = run([RUN, "--output-name=py.h5", "--", "/usr/bin/python3", script], d)
    check(p.returncode == 0 and "sum " in p.stdout, "python script runs")
    only_files(d, ["py.h5", "work.py"])
    check(attr(os.path.join(d, "py.h5"), "program").startswith("python"), "program is the interpreter")
    check(counter(os.path.join(d, "py.h5"), "thread:::CPU-TIME") > 0, "CPU time counted")


def job_checks(d, pids, launcher, n=2):
    files = glob.glob(os.path.join(d, "*.h5"))
    check(len(files) == 1, f"{launcher}: one file ({[os.path.basename(f) for f in files]})")
    check(not glob.glob(os.path.join(d, "*.parts")) and not glob.glob(os.path.join(d, "*.tmp")),
          f"{launcher}: no job directory or temporary file left")
    if len(files) != 1:
        return None
    f = files[0]
    rk = table(f, "ranks")
    check(int(attr(f, "nranks")) == n and int(attr(f, "partial")) == 0, f"{launcher}: nranks {n}, complete")
    check(sorted(int(r) for r in rk["rank"]) == list(range(n)), f"{launcher}: ranks {list(range(n))}")
    check(sorted(int(x) for x in rk["pid"]) == sorted(pids), f"{launcher}: the pids {sorted(pids)}")
    th = table(f, "threads")
    check(sorted(int(r) for r in th["rank"]) == list(range(n)), f"{launcher}: one main thread per rank")
    return f


def case_envjob():
    d = scratch("envjob")
    procs = []
    for r in range(2):
        env = dict(ENV, RANK=str(r), WORLD_SIZE="2", LOCAL_RANK=str(r))
        procs.append(subprocess.Popen([RUN, "--", APP, "work"], cwd=d, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=120) for p in procs]
    for o in outs:
        print("  | " + (o[0] + o[1]).replace("\n", "\n  | "))
    check(all(p.returncode == 0 for p in procs), "both processes exit 0")
    pids = [int(re.search(r"pid (\d+)", o[0]).group(1)) for o in outs]
    job_checks(d, pids, "RANK/WORLD_SIZE")
    said = sum((o[1]).count("written to") for o in outs)
    check(said == 1, f"the job file is announced once ({said})")


def case_separate():
    """RANK/WORLD_SIZE set by hand, each process under a parent of its own
    (timeout, as `RANK=0 WORLD_SIZE=2 timeout 60 tally-run -- app &`):
    one job file with both ranks (each once wrote a *.parts/ of its own and
    no job file), with and without torchrun's MASTER_ADDR/PORT; then the
    same again beside the first file: the message names the file really
    written (<name>.1.h5), not the name that was taken."""
    for variant, extra in (("session", {}), ("master", {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29511"})):
        d = scratch("separate_" + variant)
        for attempt in range(2):
            procs = []
            for r in range(2):
                env = dict(ENV, RANK=str(r), WORLD_SIZE="2", **extra)
                for k in ("TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"):
                    env.pop(k, None)
                procs.append(subprocess.Popen(["/usr/bin/timeout", "60", RUN, "--output-name=job.h5", "--", APP, "work"],
                                              cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            outs = [p.communicate(timeout=120) for p in procs]
            for o in outs:
                print("  | " + (o[0] + o[1]).replace("\n", "\n  | "))
            check(all(p.returncode == 0 for p in procs), f"{variant}: both processes exit 0")
            err = "".join(o[1] for o in outs)
            if attempt == 0:
                pids = [int(re.search(r"pid (\d+)", o[0]).group(1)) for o in outs]
                job_checks(d, pids, f"separate parents ({variant})")
                check(re.search(r"written to \S*job\.h5$", err, re.M) is not None, f"{variant}: job.h5 announced")
            else:
                check(sorted(os.listdir(d)) == ["job.1.h5", "job.h5"], f"{variant}: second job beside the first "
                      f"({sorted(os.listdir(d))})")
                check(re.search(r"written to \S*job\.1\.h5$", err, re.M) is not None,
                      f"{variant}: the message names job.1.h5, the file really written")


WRAP = """#!/bin/bash
# a cluster's wrapper: helper commands first, then the program
cd "$(dirname "$0")" || exit 1
name=$(basename "$0")
tag=$(echo "$name" | sed 's/[.]sh$//')
host=$(uname -n | tr -d .)
first=$(printf 'a:b\\n' | cut -d: -f1)
[ -n "$tag$host$first" ] || exit 1
{run} "$JOBS_APP_UNDER_TEST" work
"""


def case_wrapper():
    """issue 50: a wrapper script that runs 5 helper commands (dirname,
    basename, sed, uname, tr, cut) before its program, 2 ranks by RANK /
    WORLD_SIZE, --output-name=w.h5: one file, w.h5, the program's (its
    pids, program jobs_app, both ranks), no second job; the program run
    with exec (same pid as the script) and as the script's child; and a
    launcher's job of one process (WORLD_SIZE=1: torchrun --no-python
    --nproc_per_node=1 wrote each helper's wrap.h5 on the H200)."""
    for how, n in (("exec", 2), ("child", 2), ("exec", 1)):
        d = scratch(f"wrapper_{how}{n}")
        script = os.path.join(d, "wrap.sh")
        with open(script, "w") as f:
            f.write(WRAP.replace("{run}", "exec" if how == "exec" else ""))
        os.chmod(script, 0o755)
        procs = []
        how = f"{how}, {n} rank(s)"
        for r in range(n):
            env = dict(ENV, RANK=str(r), WORLD_SIZE=str(n), LOCAL_RANK=str(r), JOBS_APP_UNDER_TEST=APP,
                       TALLY_VERBOSE="2")
            for k in ("TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"):
                env.pop(k, None)
            procs.append(subprocess.Popen([RUN, "--output-name=w.h5", "--", script], cwd=d, env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        outs = [p.communicate(timeout=120) for p in procs]
        for o in outs:
            print("  | " + (o[0] + o[1]).replace("\n", "\n  | "))
        check(all(p.returncode == 0 for p in procs), f"{how}: every rank exits 0")
        os.unlink(script)
        pids = [int(re.search(r"pid (\d+)", o[0]).group(1)) for o in outs]
        f = job_checks(d, pids, f"wrapper script ({how})", n)
        check(f is not None and os.path.basename(f) == "w.h5", f"{how}: the file is the requested name w.h5 ({f})")
        if f:
            prog = attr(f, "program")
            prog = prog.decode() if isinstance(prog, bytes) else str(prog)
            check(prog == "jobs_app", f"{how}: program jobs_app, not a helper ({prog})")
        err = "".join(o[1] for o in outs)
        # coreutils (dirname, basename, uname, tr, cut) close stderr at their
        # exit, before Tally's handler runs: sed says it, for each rank
        said = set(re.findall(r"sed \(pid \d+\), started by the wrapper script of rank (\d+), .* a helper command", err))
        check(said == {str(r) for r in range(n)}, f"{how}: sed, a helper of each rank, said at verbosity 2, "
              f"not written ({said})")


def case_mpirunjob():
    if not MPIEXEC:
        print("SKIP: no mpiexec")
        sys.exit(77)
    d = scratch("mpirunjob")
    p = run([MPIEXEC, "-np", "2", RUN, "--", APP, "work"], d)
    check(p.returncode == 0, "mpirun of a non-MPI program exits 0")
    pids = [int(x) for x in re.findall(r"pid (\d+)", p.stdout)]
    job_checks(d, pids, "mpirun (OMPI_COMM_WORLD_*)")


def case_children():
    d = scratch("children")
    p = run([RUN, "--output-name=c.h5", "--", APP, "children"], d)
    check(p.returncode == 0, "children run exits 0 (every child worked)")
    only_files(d, ["c.h5", "child_dir"])
    pid = int(re.search(r"pid (\d+)", p.stdout).group(1))
    rk = table(os.path.join(d, "c.h5"), "ranks")
    check(len(rk) == 1 and int(rk[0]["pid"]) == pid, "the file is the parent's (its pid), not a fork child's")
    check(int(attr(os.path.join(d, "c.h5"), "partial")) == 0, "complete file")
    d2 = scratch("children_default_names")
    p = run([RUN, "--", APP, "children"], d2)
    files = [f for f in os.listdir(d2) if f != "child_dir"]
    check(len(files) == 1 and files[0].startswith("tally-jobs_app-"), f"default names: only the parent's file ({files})")
    if not (MPIEXEC and APP_MPI):
        return
    d3 = scratch("children_mpi")
    p = run([MPIEXEC, "-np", "2", RUN, "--output-name=m.h5", "--", APP_MPI, "children"], d3)
    check(p.returncode == 0, "MPI children run exits 0")
    only_files(d3, ["m.h5", "child_dir"])
    pids = sorted(int(x) for x in re.findall(r"pid (\d+)", p.stdout))
    rk = table(os.path.join(d3, "m.h5"), "ranks")
    check(sorted(int(x) for x in rk["pid"]) == pids, "MPI: the ranks' pids, no child's")
    check("partial" not in p.stderr, "MPI: no partial file announced")


def case_cli():
    d = scratch("cli")
    marker = os.path.join(d, "ran")
    script = os.path.join(d, "prog.sh")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\ntouch {marker}\n")
    os.chmod(script, 0o755)
    p = run([RUN, "--output", script, "--", "/bin/true"], d)
    check(p.returncode == 2, "unknown option: exit status 2")
    check(not os.path.exists(marker), "unknown option: its argument is not run")
    check("unknown option --output" in p.stderr, "unknown option named")
    h = run([RUN, "--help"], d)
    check(h.returncode == 0, "--help exits 0")
    settings = re.findall(r'^TLY_SETTING\(\w+, (TALLY_\w+), (\w+), .*\n\t"(.{12})', open(os.environ["SETTINGS_DEF"]).read(),
                          re.M)
    check(len(settings) > 50, f"settings.def read ({len(settings)} TALLY_* rows)")
    listed = 0
    for env, kind, help12 in settings:
        flag = env[6:].lower().replace("_", "-")
        want = f"--{flag}, --{flag}=yes|no, --no-{flag}" if kind == "BOOL" else f"--{flag}=VALUE, --{flag} VALUE"
        if help12 == "tally-report":   # tally-report's own: not a flag of tally-run's help (issue 52)
            check(want not in h.stdout, f"--help leaves out the report-only {env}")
            continue
        listed += 1
        check(want in h.stdout and env in h.stdout, f"--help lists {want} ({env})")
    # an output no HDF5 file can take: one line, exit 2, nothing run, no file (issue 52)
    fifo = os.path.join(d, "fifo.h5")
    os.mkfifo(fifo)
    for name in ("-", fifo):
        o = run([RUN, f"--output-name={name}", "--", "/bin/sh", "-c", f"touch {marker}"], d)
        lines = o.stderr.splitlines()
        check(o.returncode == 2 and len(lines) == 1 and "cannot be written to" in lines[0]
              and not os.path.exists(marker),
              f"--output-name={name}: refused in one line, nothing run ({o.returncode}, {lines})")
    # /dev/null: measure and discard, said once, nothing written anywhere
    # (not beside /dev/null, not in the directory, not in the private one)
    before = sorted(os.listdir(d))
    o = run([RUN, "--output-name=/dev/null", "--", APP, "work"], d)
    lines = o.stderr.splitlines()
    check(o.returncode == 0 and len(lines) == 1 and "taken and discarded" in lines[0]
          and not glob.glob("/dev/null.*") and sorted(os.listdir(d)) == before,
          f"--output-name=/dev/null: measured and discarded, one line ({o.returncode}, {lines}, "
          f"{sorted(set(os.listdir(d)) - set(before))})")
    o = run([RUN, "--output-name=/dev/null", "--passes=2", "--", "/bin/sh", "-c", f"touch {marker}"], d)
    lines = o.stderr.splitlines()
    check(o.returncode == 2 and len(lines) == 1 and "--passes" in lines[0] and not os.path.exists(marker),
          f"--output-name=/dev/null --passes: refused in one line ({o.returncode}, {lines})")
    # the refusal is said by rank 0 alone, whichever launcher's variable
    # names the rank (issue 52: only Open MPI's was read); a stray RANK
    # without torchrun's WORLD_SIZE names none
    for var, rank, lines_want in (("PMI_RANK", "1", 0), ("PMIX_RANK", "2", 0), ("SLURM_PROCID", "3", 0),
                                  ("MV2_COMM_WORLD_RANK", "1", 0), ("PALS_RANKID", "1", 0),
                                  ("RANK WORLD_SIZE", "1", 0), ("PMI_RANK", "0", 1), ("RANK", "1", 1)):
        env = dict(ENV, **{v: rank for v in var.split()})
        o = run([RUN, "--output-name=-", "--", "/bin/sh", "-c", f"touch {marker}"], d, env=env)
        lines = o.stderr.splitlines()
        check(o.returncode == 2 and len(lines) == lines_want and not os.path.exists(marker),
              f"{var}={rank}: the refusal in {len(lines)} lines, want {lines_want} ({o.returncode})")
    # no program: the forms of the command, not the whole list (issue 52)
    n = run([RUN], d)
    lines = n.stderr.splitlines()
    check(n.returncode == 2 and len(lines) < 15 and "no program to run" in lines[0]
          and f"--help lists the {listed} options" in n.stderr and n.stdout == "",
          f"no program: a short usage on stderr, exit 2 ({n.returncode}, {len(lines)} lines)")
    check(not re.search(r"--no-\s", h.stdout), "--help: no '--no-' without a name")
    for what in ("--summary FILE.h5", "--help", "\n  --\n"):
        check(what in h.stdout, f"--help lists {what.strip()}")
    bad = os.path.join(d, "bad.h5")
    with open(bad, "w") as f:
        f.write("not hdf5\n")
    for path, why in ((os.path.join(d, "missing.h5"), "no such file"), (bad, "not an HDF5 file")):
        s = run([RUN, "--summary", path], d)
        err = s.stderr.strip().splitlines()
        check(s.returncode != 0 and len(err) == 1 and why in err[0] and "Traceback" not in s.stderr,
              f"--summary {os.path.basename(path)}: one line saying '{why}'")


def case_once():
    if not (MPIEXEC and APP_MPI):
        print("SKIP: no mpiexec or MPI build of jobs_app")
        sys.exit(77)
    d = scratch("once")
    env = dict(ENV, TALLY_MAX_DEPTH="lots", TALLY_VERBOSE="1")
    styles = {
        "mpirun -np 4 tally-run": [MPIEXEC, "-np", "4", RUN, "--", APP_MPI, "work"],
        "tally-run -- mpirun -np 4": [RUN, "--", MPIEXEC, "-np", "4", APP_MPI, "work"],
        "mpirun -x LD_PRELOAD": [MPIEXEC, "-np", "4", "-x", f"LD_PRELOAD={PRELOAD}", APP_MPI, "work"],
    }
    for name, cmd in styles.items():
        p = run(cmd, d, env=env)
        n = p.stderr.count("TALLY_MAX_DEPTH='lots' is not a valid")
        check(p.returncode == 0 and n == 1, f"{name}: the invalid setting is reported once ({n} times)")
    d2 = scratch("once_envjob")
    procs = [subprocess.Popen([RUN, "--", APP, "work"], cwd=d2, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              env=dict(env, RANK=str(r), WORLD_SIZE="2"), text=True) for r in range(2)]
    errs = [p.communicate(timeout=120)[1] for p in procs]
    n = sum(e.count("TALLY_MAX_DEPTH='lots' is not a valid") for e in errs)
    check(n == 1, f"RANK/WORLD_SIZE job: reported once ({n} times)")


class Result:
    def __init__(self, rc, out, err):
        self.returncode, self.stdout, self.stderr = rc, out, err


def sections(path, by, fmt):
    """tally-report's main() in this process (the tally package of the
    build): 16 runs per file, without 16 interpreter start-ups."""
    import contextlib
    import io
    from tally.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([path, "--by", by, "--format", fmt, "--top", "0"])
        except SystemExit as e:
            rc = e.code
        except Exception as e:  # a traceback is a failure, reported as one
            import traceback
            rc, err = 99, io.StringIO("Traceback " + traceback.format_exc())
    return Result(rc, out.getvalue(), err.getvalue())


def report_one(path):
    """Every --by and --format; the json sections against the tables' rows."""
    with tally.raw(path) as f:   # every table, NVTX payloads (nvtx/payloads/<schema>) too
        rows = f.sizes()
    has_kernels = rows.get("gpu_kernels", 0) > 0
    for by in ("region", "rank", "thread", "kernel"):
        for fmt in ("text", "csv", "json", "markdown"):
            p = sections(path, by, fmt)
            if by == "kernel" and not has_kernels:
                check(p.returncode == 2 and "no GPU kernel table" in p.stderr,
                      f"{os.path.basename(path)} --by kernel --format {fmt}: a clear error without GPU kernels")
                continue
            check(p.returncode == 0 and p.stdout.strip() and "Traceback" not in p.stderr,
                  f"{os.path.basename(path)} --by {by} --format {fmt}: exit {p.returncode} {p.stderr.strip()[:200]}")
            if fmt != "json" or p.returncode:
                continue
            titles = [s["title"] for s in json.loads(p.stdout)["sections"]]
            mpi = any(t.startswith("MPI ") for t in titles)
            check(mpi == (rows.get("mpi", 0) > 0), f"{os.path.basename(path)} --by {by}: MPI sections "
                  f"{'shown' if mpi else 'absent'} with {rows.get('mpi', 0)} mpi rows")
            for t in titles:
                if t.startswith("Table "):
                    check(rows.get(t[6:], 0) > 0, f"{os.path.basename(path)}: section '{t}' has rows")
            nvtx = rows.get("nvtx_marks", 0) + rows.get("nvtx_ranges", 0) + rows.get("nvtx_schemas", 0)
            check(nvtx > 0 or "Table nvtx_domains" not in titles,
                  f"{os.path.basename(path)}: no NVTX section for a program without NVTX")
            for t in ("nvtx_marks", "nvtx_ranges", "nvtx_schemas", "pcsamp_status", "passes"):
                check((rows.get(t, 0) > 0) == (f"Table {t}" in titles),
                      f"{os.path.basename(path)} --by {by}: 'Table {t}' shown exactly when it has rows ({rows.get(t, 0)})")
            main = {"region": "Region tree", "rank": "By rank", "thread": "By thread"}[by]
            check(main in titles and "Run" in titles, f"{os.path.basename(path)} --by {by}: '{main}' and 'Run'")


def case_report():
    """Files the runtime wrote: serial, threads, python, job, MPI, partial."""
    d = scratch("report")
    made = []
    for name, cmd, env in (
            ("serial.h5", [RUN, "--output-name=serial.h5", "--", APP, "sleep"], None),
            ("threads.h5", [RUN, "--output-name=threads.h5", "--", APP, "threads"], None),
            ("python.h5", [RUN, "--output-name=python.h5", "--", "/usr/bin/python3", "-c", "print(sum(range(10**6)))"], None),
            ("nompi_env.h5", [RUN, "--output-name=nompi_env.h5", "--", APP, "work"], dict(ENV, RANK="0", WORLD_SIZE="1"))):
        p = run(cmd, d, env=env)
        check(p.returncode == 0, f"{name}: written")
        made.append(os.path.join(d, name))
    # a merged job of two processes (ranks from RANK/WORLD_SIZE)
    procs = [subprocess.Popen([RUN, "--output-name=job.h5", "--", APP, "threads" if r else "sleep"], cwd=d,
                              env=dict(ENV, RANK=str(r), WORLD_SIZE="2"), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for r in range(2)]
    check(all(p.wait(timeout=120) == 0 for p in procs), "job.h5: both processes exit 0")
    check(int(attr(os.path.join(d, "job.h5"), "nranks")) == 2, "job.h5: merged, 2 ranks")
    made.append(os.path.join(d, "job.h5"))
    if MPIEXEC and APP_MPI:
        p = run([MPIEXEC, "-np", "2", RUN, "--output-name=mpi.h5", "--", APP_MPI, "children"], d)
        made.append(os.path.join(d, "mpi.h5"))
        # a partial file: SIGTERM while a serial program waits
        pr = subprocess.Popen([RUN, "--", APP, "wait"], cwd=d, env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        pr.stdout.readline()   # "pid N": the runtime has started
        pr.terminate()
        pr.communicate(timeout=60)
        parts = glob.glob(os.path.join(d, "*.partial.h5"))
        check(len(parts) == 1, f"SIGTERM: one partial file ({parts})")
        made += parts
    # OpenMP (on LLVM libomp), NVTX with payloads (serial and MPI): the
    # programs of the rt_serial and nvtx tests
    extra = (("omp.h5", "OMP_APP", [], dict(ENV, OMP_NUM_THREADS="3")), ("nvtx.h5", "NVTX_APP", [], None))
    for name, var, args, env in extra:
        if os.environ.get(var):
            p = run([RUN, f"--output-name={name}", "--", os.environ[var], *args], d, env=env)
            check(p.returncode == 0, f"{name}: written")
            made.append(os.path.join(d, name))
    if os.environ.get("NVTX_MPI_APP") and MPIEXEC:
        p = run([MPIEXEC, "-np", "2", RUN, "--output-name=nvtx_mpi.h5", "--", os.environ["NVTX_MPI_APP"]], d)
        check(p.returncode == 0, "nvtx_mpi.h5: written")
        made.append(os.path.join(d, "nvtx_mpi.h5"))
    for path in made:
        if os.path.exists(path):
            report_one(path)
        else:
            check(False, f"{path} exists")


CASES = {"serial": case_serial, "threads": case_threads, "thread_end": case_thread_end, "python": case_python,
         "envjob": case_envjob, "separate": case_separate, "wrapper": case_wrapper, "mpirunjob": case_mpirunjob,
         "children": case_children, "cli": case_cli, "once": case_once, "report": case_report}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    sys.exit(done(sys.argv[1]))
