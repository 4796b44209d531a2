#!/usr/bin/python3
"""One tree per job (issue 52) on the stencil shape, read from files the
runtime wrote: stencil_prog.c (MPI + OpenMP with OMP_NUM_THREADS=2, a user
region 'compute' around the parallel loop, 'halo' around the exchange) on
2 ranks under tally-run --events=perf::TASK-CLOCK.

stored   the file as written: each rank's worker holds the parallel region
         at its root (the split tree the reader mends: without it this
         test checks nothing)
graft    tally.read: the loop's parallel region once, '(thread) / compute
         / omp parallel @ main (stencil_prog.c:N)', visited STEPS times by
         each of the 2 threads, the worker's row its stored root
         instance's; the warm-up region before the steps (entered at the
         root) stays at the root; '(OpenMP worker idle)' under the root on
         the workers only, its time the worker's root time less its
         parallel regions' (exactly) and at least 95% (- 2 ms) of the
         master's halo time (the worker, started by the warm-up, waits
         while the master exchanges); the worker's root has no exclusive
         time left; no time lost: the worker's exclusive times sum to its
         root's inclusive time
views    the report's tree (--format json), the text report's and the
         HTML page's tree (region column and id, row by row) and the
         Hatchet export's (names and depths, depth first) the same shape;
         the Hatchet parallel region's time the sum of the two threads'
counters 'halo' spins SPIN_NS of CPU time per step, then copies 32 MiB in
         MPI_Sendrecv (CPU time inside the MPI call): without
         TALLY_MPI_COUNTERS its exclusive TASK-CLOCK is not measured ('-'
         in the report, null in JSON); with --mpi-counters=1 it is its
         inclusive value less MPI_Sendrecv's, exactly, and its spins'
         CPU time (-5% - 1 ms, +5% + 2 ms), where the old value (the
         inclusive one, MPI left in) falls outside (planted: checked).

Environment: TALLY_RUN, TALLY_STENCIL_PROG, TALLY_MPIRUN, TALLY_REPORT,
TALLY_PYTHONPATH, TALLY_TEST_DIR (test_report.py's).
"""
import html as htmlmod
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("TALLY_REPORT", "tally-report")
WORK = os.environ.get("TALLY_TEST_DIR", "/tmp/tally-report-test")
sys.path.insert(0, os.environ.get("TALLY_PYTHONPATH", os.path.join(HERE, "..", "..", "analysis")))
try:
    import tally.fileio  # noqa: F401,E402  (ImportError without h5py)
    import tally  # noqa: E402
    from tally import tree as tree_mod  # noqa: E402
    from tally.graft import IDLE  # noqa: E402
except ImportError:
    print("SKIP: /usr/bin/python3 has no h5py (testsuite/install-deps.sh installs python3-h5py)")
    sys.exit(77)
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
from th import check, done  # noqa: E402

STEPS, SPIN_NS = 10, 20000000   # stencil_prog.c
EV = "perf::TASK-CLOCK"


def run_job(d, *flags):
    """The stencil on 2 ranks, 2 threads each; the file's path or None."""
    run, prog, mpirun = (os.environ.get(k, "") for k in ("TALLY_RUN", "TALLY_STENCIL_PROG", "TALLY_MPIRUN"))
    if not (os.path.exists(run) and os.path.exists(prog) and mpirun):
        check(False, f"usage: TALLY_RUN={run!r}, TALLY_STENCIL_PROG={prog!r}, TALLY_MPIRUN={mpirun!r}")
        return None
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
    cmd = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", run, f"--events={EV}",
           "--output-name=st.h5", *flags, "--", prog]
    try:
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=120, env=env)
        check(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    except subprocess.TimeoutExpired:
        check(False, f"{' '.join(cmd)} still running after 120 s")
    f = os.path.join(d, "st.h5")
    if not check(os.path.exists(f), "the runtime wrote no file"):
        return None
    return f


def workers(run):
    """{rank: worker thread index} (threads.kind 1)."""
    th = run.threads
    return {int(r): int(t) for r, t, k in zip(th["rank"], th["thread"], th["kind"]) if int(k) == 1}


def rows_of(run, rank, thread):
    """{path: region_stats row} of one thread."""
    paths = dict(zip(run.regions["id"].astype(int), run.regions["path"]))
    st = run.region_stats
    mine = st[(st["rank"] == rank) & (st["thread"] == thread)]
    return {paths[int(r["region"])]: r for _, r in mine.iterrows()}


def check_stored(stored, wk):
    """The file as written: the worker's loop region at its root."""
    par = stored.regions[stored.regions["kind"] == 3]
    check(len(par) == 3, f"stored: {len(par)} parallel regions {list(par['path'])}, want 3 (warm-up, split loop)")
    for rank, t in wk.items():
        top = [p for p in rows_of(stored, rank, t) if p.startswith("(thread) / omp parallel @ main")]
        check(len(top) == 2, f"stored: rank {rank}'s worker has both parallel regions at its root: {top}")


def check_graft(run, stored, wk):
    """The grafted tree against the stored rows (see the module's doc)."""
    reg = run.regions
    par = reg[reg["kind"] == 3]
    under = par[par["path"].str.startswith("(thread) / compute / ")]
    top = par[par["parent"] == 0]
    check(len(par) == 2 and len(under) == 1 and len(top) == 1 and re.fullmatch(
        r"\(thread\) / compute / omp parallel @ main \(stencil_prog\.c:\d+\)", str(under["path"].iloc[0]))
          and top["name"].iloc[0] != under["name"].iloc[0],
          f"the loop's parallel region under compute, the warm-up at the root: {list(par['path'])}")
    idle = reg[reg["name"] == IDLE]
    check(len(idle) == 1 and str(idle["path"].iloc[0]) == f"(thread) / {IDLE}", f"idle row: {list(idle['path'])}")
    if len(under) != 1 or len(idle) != 1:
        return
    pid, iid = int(under["id"].iloc[0]), int(idle["id"].iloc[0])
    ex = tree_mod.with_exclusive(run)
    for rank, t in wk.items():
        st = run.region_stats[run.region_stats["rank"] == rank]
        on = st[st["region"] == pid]
        check(sorted(on["thread"]) == [0, t] and list(on["visits"]) == [STEPS, STEPS],
              f"rank {rank}: parallel region on threads {list(on['thread'])}, visits {list(on['visits'])}")
        was = rows_of(stored, rank, t)
        w_par = {p: r for p, r in was.items() if p.startswith("(thread) / omp parallel @ main")}
        w_loop = [r for p, r in w_par.items() if p.endswith(under["name"].iloc[0])]
        w_root = was["(thread)"]
        mine = on[on["thread"] == t]
        check(w_loop and len(mine) == 1 and int(mine["incl_ns"].iloc[0]) == int(w_loop[0]["incl_ns"]),
              f"rank {rank}: the worker's grafted row keeps its stored time")
        ir = st[st["region"] == iid]
        check(list(ir["thread"]) == [t], f"rank {rank}: idle rows on threads {list(ir['thread'])}, want [{t}]")
        if not len(ir):
            continue
        idle_ns = int(ir["incl_ns"].iloc[0])
        busy = sum(int(r["incl_ns"]) for r in w_par.values())
        check(idle_ns == int(w_root["incl_ns"]) - busy,
              f"rank {rank}: idle {idle_ns} ns, want root - parallel = {int(w_root['incl_ns']) - busy}")
        halo = int(rows_of(stored, rank, 0)["(thread) / halo"]["incl_ns"])
        check(idle_ns >= 0.95 * halo - 2e6, f"rank {rank}: idle {idle_ns / 1e6:.1f} ms, the master's halo "
              f"{halo / 1e6:.1f} ms (want at least 95% - 2 ms)")
        print(f"rank {rank}: worker idle {idle_ns / 1e6:.1f} ms, master's halo {halo / 1e6:.1f} ms")
        wx = ex[(ex["rank"] == rank) & (ex["thread"] == t)]
        root_x = int(wx.loc[wx["region"] == 0, "excl_ns"].iloc[0])
        check(root_x == 0, f"rank {rank}: the worker's root keeps {root_x} ns unlabelled, want 0")
        check(int(wx["excl_ns"].sum()) == int(w_root["incl_ns"]),
              f"rank {rank}: the worker's exclusive times sum to {int(wx['excl_ns'].sum())}, "
              f"its root's time {int(w_root['incl_ns'])}")


def report_tree(f, *args):
    """(rc, stdout, stderr) of tally-report f args."""
    p = subprocess.run([REPORT, f, "--top", "0", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def json_tree(f):
    """(rc, the Region tree rows of tally-report --format json, stderr)."""
    rc, out, err = report_tree(f, "--format", "json")
    secs = {s["title"]: s["rows"] for s in json.loads(out)["sections"]} if rc == 0 else {}
    return rc, secs.get("Region tree", []), err


def html_tree(path):
    """[(region cell, id)] of the HTML page's Region tree table."""
    page = open(path, encoding="utf-8").read()
    sec = page.split('>Region tree</h2>', 1)[1].split("</table>", 1)[0]
    out = []
    for row in re.findall(r"<tr>(.*?)</tr>", sec, re.S)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        out.append((htmlmod.unescape(cells[0]), int(cells[1])))
    return out


def text_tree(text, ids):
    """[(region cell, id)] of the text report's Region tree rows."""
    sec = text.split("Region tree", 1)[1]
    out = []
    for line in sec.splitlines()[1:]:
        if not line.strip():
            if out:
                break
            continue
        m = re.match(r"^(.*?)\s{2,}(\d+)\s{2,}", line)
        if m and int(m.group(2)) in ids:
            out.append((m.group(1).rstrip(), int(m.group(2))))
    return out


def hatchet_walk(nodes, depth=0):
    """[(name, depth)] depth first."""
    out = []
    for n in nodes:
        out.append((n["frame"]["name"], depth))
        out += hatchet_walk(n["children"], depth + 1)
    return out


def check_views(f, run, d):
    """The report's, the text's, the HTML page's and Hatchet's trees."""
    rc, tree, err = json_tree(f)
    check(rc == 0 and tree, f"tally-report --format json: exit {rc}: {err[-500:]}")
    shape = [(len(t["region"]) - len(t["region"].lstrip(" ")), t["region"].strip(), t["id"]) for t in tree]
    print("report tree:", *[f"{'  ' * (s[0] // 2)}{s[1]} [{s[2]}]" for s in shape], sep="\n  ")
    roots = [s for s in shape if s[0] == 0]
    check(len(roots) == 1, f"one root in the report's tree: {roots}")
    names = [(s[0] // 2, s[1]) for s in shape]
    comp = [i for i, (dep, n) in enumerate(names) if n == "compute"]
    par = [i for i, (dep, n) in enumerate(names) if n.startswith("omp parallel @ main") and comp
           and i > comp[0] and all(names[j][0] > names[comp[0]][0] for j in range(comp[0] + 1, i + 1))]
    check(len(comp) == 1 and len(par) == 1 and names[par[0]][0] == names[comp[0]][0] + 1,
          "the loop's parallel region under compute in the report")
    check((1, IDLE) in names, "the idle row in the report, under the root")
    ids = {s[2] for s in shape}
    rc, text, _ = report_tree(f)
    want = [(s[0], s[2]) for s in shape]
    got = [(len(r) - len(r.lstrip(" ")), i) for r, i in text_tree(text, ids)]
    check(rc == 0 and got == want, f"text tree (depth, id) {got} != json's {want}")
    page = os.path.join(d, "st.html")
    rc, _, err = report_tree(f, "--html", page)
    check(rc == 0 and os.path.exists(page), f"--html: exit {rc}: {err[-500:]}")
    if os.path.exists(page):
        hgot = html_tree(page)
        tgot = text_tree(text, ids)
        check(hgot == tgot, f"HTML tree {hgot} != the text report's {tgot}")
    hp = os.path.join(d, "st.hatchet.json")
    rc, _, err = report_tree(f, "--hatchet", hp)
    check(rc == 0 and os.path.exists(hp), f"--hatchet: exit {rc}: {err[-500:]}")
    if os.path.exists(hp):
        lit = json.load(open(hp))
        walk = hatchet_walk(lit)
        full = [(dep, n) for dep, n in names]
        check([(dep, n) for n, dep in walk] == full, f"Hatchet tree {walk} != the report's {full}")
        reg = run.regions
        pid = int(reg.loc[(reg["kind"] == 3) & reg["path"].str.startswith("(thread) / compute / "), "id"].iloc[0])
        st = run.region_stats
        want_s = st.loc[st["region"] == pid, "incl_ns"].sum() / 1e9

        def find(nodes, inside=False):
            for n in nodes:
                if inside and n["frame"]["name"].startswith("omp parallel @ main"):
                    return n
                got = find(n["children"], inside or n["frame"]["name"] == "compute")
                if got:
                    return got
            return None
        node = find(lit)
        check(node is not None and abs(node["metrics"]["time (inc)"] - want_s) < 1e-6,
              f"Hatchet parallel region time {node and node['metrics']['time (inc)']}, want {want_s}")


def halo_rows(run, rank):
    """(halo's row, MPI_Sendrecv's row) of rank's main thread, exclusive columns added."""
    ex = tree_mod.with_exclusive(run)
    paths = dict(zip(run.regions["id"].astype(int), run.regions["path"]))
    mine = ex[(ex["rank"] == rank) & (ex["thread"] == 0)]
    by = {paths[int(r["region"])]: r for _, r in mine.iterrows()}
    return by.get("(thread) / halo"), by.get("(thread) / halo / MPI_Sendrecv")


def check_counters(f_plain, f_mpi):
    """halo's exclusive TASK-CLOCK: not measured without MPI counters,
    exact with them (see the module's doc)."""
    halo, mpi = halo_rows(tally.read(f_plain), 0)
    if not check(halo is not None and mpi is not None, "rank 0: halo and its MPI_Sendrecv"):
        return
    check(halo[f"{EV} (excl)"] != halo[f"{EV} (excl)"], f"halo's exclusive TASK-CLOCK without MPI counters: "
          f"{halo[f'{EV} (excl)']}, want not measured")
    rc, tree, err = json_tree(f_plain)
    rows = [t for t in tree if t["region"].strip() == "halo"]
    col = next((c for c in (rows[0] if rows else {}) if c.startswith(f"{EV} excl [")), "")
    check(rows and col in rows[0] and rows[0][col] is None,
          f"report: halo's {col} {rows and rows[0].get(col, 'absent')}, want null ({err[-300:]})")
    if not f_mpi:
        return
    halo, mpi = halo_rows(tally.read(f_mpi), 0)
    if not check(halo is not None and mpi is not None, "--mpi-counters=1: rank 0's halo and MPI_Sendrecv"):
        return
    x, spin = halo[f"{EV} (excl)"], STEPS * SPIN_NS
    lo, hi = 0.95 * spin - 1e6, 1.05 * spin + 2e6
    print(f"rank 0 halo with MPI counters: TASK-CLOCK incl {halo[EV] / 1e6:.1f} ms, excl {x / 1e6:.1f} ms, "
          f"MPI_Sendrecv {mpi[EV] / 1e6:.1f} ms; its spins {spin / 1e6:.0f} ms")
    check(x == halo[EV] - mpi[EV], f"with MPI counters: halo's exclusive TASK-CLOCK {x}, want {halo[EV] - mpi[EV]}")
    check(lo <= x <= hi, f"with MPI counters: halo's exclusive TASK-CLOCK {x / 1e6:.1f} ms, want its spins' "
          f"{spin / 1e6:.0f} ms ({lo / 1e6:.0f}-{hi / 1e6:.0f})")
    check(not lo <= halo[EV] <= hi, f"planted: the old value (inclusive, MPI left in) {halo[EV] / 1e6:.1f} ms "
          "falls within the band too: the MPI copy took no CPU time, the test sees nothing")


def main():
    d = os.path.join(WORK, "one_tree")
    f = run_job(os.path.join(d, "plain"))
    if not f:
        sys.exit(done("one_tree"))
    run, stored = tally.read(f), tally.read(f, stored_tree=True)
    wk = workers(stored)
    check(sorted(wk) == [0, 1], f"one OpenMP worker per rank: {wk}")
    check_stored(stored, wk)
    check_graft(run, stored, wk)
    check_views(f, run, os.path.join(d, "plain"))
    check_counters(f, run_job(os.path.join(d, "mpi"), "--mpi-counters=1"))
    print(f"load {open('/proc/loadavg').read().split()[0]}")
    sys.exit(done("one_tree"))


if __name__ == "__main__":
    main()
