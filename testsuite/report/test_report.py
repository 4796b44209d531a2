#!/usr/bin/python3
"""Tests of the tally package and tally-report (ctest label 'report').

    test_report.py CASE     (CASE: see CASES at the end)

Environment (set by CMakeLists.txt): TALLY_REPORT (the build-tree
launcher), TALLY_PYTHONPATH (the package), TALLY_SCHEMA_DEF (schema.def),
TALLY_TEST_DIR (scratch), TALLY_RUN, TALLY_REPORT_PROG, TALLY_MPIRUN.
Numbers are checked against h5dump's text and statistics recomputed here
by hand (statistics module of the standard library, no pandas).
Exit 77 (skip) when /usr/bin/python3 lacks h5py.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

try:
    # h5py writes a plain HDF5 file that is no Tally file (case_errors: the
    # reader must refuse it); every read goes through tally.raw.
    import h5py
except ImportError:
    print("SKIP: /usr/bin/python3 has no h5py (testsuite/install-deps.sh installs python3-h5py)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("TALLY_REPORT", "tally-report")
SCHEMA = os.environ.get("TALLY_SCHEMA_DEF", os.path.join(HERE, "..", "..", "wrappers", "output", "schema.def"))
WORK = os.environ.get("TALLY_TEST_DIR", "/tmp/tally-report-test")
sys.path.insert(0, os.environ.get("TALLY_PYTHONPATH", os.path.join(HERE, "..", "..", "analysis")))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
from tally import raw as read_raw  # noqa: E402  (the rows as stored, through the reader's checks)
from th import check, done  # noqa: E402


def close(a, b, rel=1e-9):
    """a == b within rel (absolute 1e-12 near 0)."""
    if a is None or b is None:
        return a is b
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-12


def scratch(name):
    """A fresh directory under WORK."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def generate(path, *args):
    """Write a synthetic file (or partial files) with gen_tally_file.py."""
    subprocess.run([sys.executable, os.path.join(HERE, "gen_tally_file.py"), SCHEMA, path, *args], check=True)
    return path


def report(*args):
    """Run tally-report; (returncode, stdout, stderr)."""
    p = subprocess.run([REPORT, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def report_json(*args):
    """tally-report --format json: title -> rows."""
    rc, out, err = report(*args, "--format", "json", "--top", "0")
    check(rc == 0, f"tally-report {args} exit {rc}: {err}")
    return {s["title"]: s["rows"] for s in json.loads(out)["sections"]}


def h5dump_rows(path, table):
    """Rows of a table as h5dump prints them: lists of ints and strings.

    Arrays (counters, histogram) are flattened into the row, as in h5dump.
    """
    out = subprocess.run(["h5dump", "-d", "/" + table, "-w", "0", path], capture_output=True, text=True, check=True).stdout
    data = out[out.index("DATA {") + len("DATA {"):]
    data = data.split("ATTRIBUTE")[0]   # the dataset's 'doc' attribute follows its data
    rows = []
    for rec in re.findall(r"\{([^{}]*)\}", data):
        toks = re.findall(r'"((?:[^"\\]|\\.)*)"|(-?\d+)', rec)
        rows.append([s.replace("\\000", "") if s or not n else int(n) for s, n in toks])
    return rows


def schema_def_version():
    """TLY_SCHEMA_VERSION of schema.def, parsed here."""
    return int(re.search(r"TLY_SCHEMA_VERSION\((\d+)\)", open(SCHEMA).read()).group(1))


def field_names():
    """table -> [(field, type)] parsed from schema.def here (independently)."""
    out = {}
    for line in open(SCHEMA, encoding="utf-8"):
        m = re.match(r"\s*TLY_FIELD\((\w+),\s*(\w+),\s*(\w+),", line)
        if m:
            out.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
    return out


def dump_table(path, table, nev):
    """h5dump rows of table as dicts (CNT -> list 'counters', HIST -> list 'hist')."""
    fields = field_names()[table]
    out = []
    for toks in h5dump_rows(path, table):
        row, i = {}, 0
        for f, ty in fields:
            n = nev if ty == "CNT" else 32 if ty == "HIST" else 1
            row[f] = toks[i:i + n] if ty in ("CNT", "HIST") else toks[i]
            i += n
        out.append(row)
    return out


def by_hand(path, nev):
    """Per region: visits, per-rank wall incl/excl (s), counter sums; from h5dump."""
    regions = {r["id"]: r for r in dump_table(path, "regions", nev)}
    stats_rows = dump_table(path, "region_stats", nev)
    kids = {}
    for r in stats_rows:
        key = (r["rank"], r["thread"], regions[r["region"]]["parent"])
        kids[key] = kids.get(key, 0) + r["incl_ns"]
    incl, excl, visits = {}, {}, {}
    for r in stats_rows:
        k = (r["region"], r["rank"])
        e = r["incl_ns"] - kids.get((r["rank"], r["thread"], r["region"]), 0)
        incl[k] = max(incl.get(k, 0), r["incl_ns"])
        excl[k] = max(excl.get(k, 0), e)
        visits[r["region"]] = visits.get(r["region"], 0) + r["visits"]
    return regions, stats_rows, incl, excl, visits


def hand_stats(values):
    """min, mean, max, imbalance, cv of a list (population sd)."""
    mean = statistics.fmean(values)
    imb = max(values) / mean - 1 if mean else None
    cv = statistics.pstdev(values) / mean if mean else None
    return min(values), mean, max(values), imb, cv


def case_numbers():
    """Region tree, derived metrics and MPI profile equal h5dump + hand statistics."""
    d = scratch("numbers")
    f = generate(os.path.join(d, "n.h5"), "--ranks", "4", "--regions", "30", "--threads", "2")
    nev = len(dump_table(f, "events", 1))
    regions, rows, incl, excl, visits = by_hand(f, nev)
    ranks = sorted({r["rank"] for r in rows})
    rep = report_json(f)
    tree_rows = {r["id"]: r for r in rep["Region tree"]}
    check(len(tree_rows) == len(regions), f"tree has {len(tree_rows)} regions, file {len(regions)}")
    for rid in regions:
        t = tree_rows[rid]
        vals = [incl.get((rid, k), 0) / 1e9 for k in ranks]
        mn, mean, mx, imb, cv = hand_stats(vals)
        check(t["visits"] == visits[rid], f"region {rid} visits {t['visits']} != {visits[rid]}")
        for col, want in (("incl min [s]", mn), ("incl mean [s]", mean), ("incl max [s]", mx),
                          ("imbalance", imb), ("cv", cv)):
            check(close(t[col], want), f"region {rid} {col} {t[col]} != {want}")
        ex = statistics.fmean([excl.get((rid, k), 0) / 1e9 for k in ranks])
        check(close(t["excl mean [s]"], ex), f"region {rid} excl mean {t['excl mean [s]']} != {ex}")
        tc = sum(r["counters"][0] for r in rows if r["region"] == rid)
        check(t["perf::TASK-CLOCK incl [ns]"] == tc, f"region {rid} TASK-CLOCK {t.get('perf::TASK-CLOCK incl [ns]')} != {tc}")
    # Derived: IPC of the whole run per rank = TOT_INS / TOT_CYC at the root, summed over threads.
    ipc = [sum(r["counters"][3] for r in rows if r["rank"] == k and r["region"] == 0) /
           sum(r["counters"][2] for r in rows if r["rank"] == k and r["region"] == 0) for k in ranks]
    util = [sum(r["counters"][0] for r in rows if r["rank"] == k and r["region"] == 0) / incl[(0, k)] for k in ranks]
    der = {r["metric"]: r for r in rep["Derived metrics (whole run, across ranks)"]}
    for name, vals in (("IPC", ipc), ("CPU utilisation", util)):
        for col, want in zip(("min", "mean", "max", "imbalance", "cv"), hand_stats(vals)):
            check(close(der[name][col], want), f"{name} {col} {der[name][col]} != {want}")
    check_mpi(f, rep, nev, ranks)


def check_mpi(f, rep, nev, ranks):
    """MPI sections against h5dump."""
    mpi = dump_table(f, "mpi", nev)
    fns = {r["function"] for r in mpi}
    got = {r["function"]: r for r in rep["MPI calls by time"]}
    check(set(got) == fns, f"MPI functions {sorted(got)} != {sorted(fns)}")
    for fn in fns:
        rows = [r for r in mpi if r["function"] == fn]
        check(got[fn]["calls"] == sum(r["calls"] for r in rows), f"{fn} calls")
        check(close(got[fn]["time_s"], sum(r["time_ns"] for r in rows) / 1e9), f"{fn} time")
        check(got[fn]["bytes_sent"] == sum(r["bytes_sent"] for r in rows), f"{fn} bytes_sent")
        per = [sum(r["time_ns"] for r in rows if r["rank"] == k) / 1e9 for k in ranks]
        imb = hand_stats(per)[3]
        check(close(got[fn]["time_s imbalance over ranks"], imb), f"{fn} imbalance {got[fn]['time_s imbalance over ranks']} != {imb}")
    hist = [sum(r["hist"][b] for r in mpi) for b in range(32)]
    calls = [r["calls"] for r in rep["MPI message sizes"]]
    check(calls == [h for h in hist if h], f"histogram {calls} != {[h for h in hist if h]}")
    check(sum(hist) == sum(r["calls"] for r in mpi), "histogram buckets sum to the calls")


def case_partial():
    """Partial files of a killed job: merged, marked partial, missing rank named, values kept."""
    d = scratch("partial")
    full = generate(os.path.join(d, "full.h5"), "--ranks", "6", "--regions", "25")
    generate("unused", "--ranks", "6", "--regions", "25", "--partial-dir", os.path.join(d, "parts"), "--skip-ranks", "2,5")
    rc, out, err = report(os.path.join(d, "parts"))
    check(rc == 0, f"exit {rc}: {err}")
    check("PARTIAL" in out, "report says PARTIAL")
    check(re.search(r"missing ranks\s+2, 5", out) is not None, "missing ranks 2, 5 named")
    check(re.search(r"partial ranks\s+0-1, 3-4", out) is not None, "partial ranks 0-1, 3-4 named")
    import tally
    merged, whole = tally.read(os.path.join(d, "parts")), tally.read(full)
    check(merged.partial and merged.missing_ranks == [2, 5], f"Run.partial/missing {merged.missing_ranks}")
    check(len(merged.regions) == len(whole.regions), "regions unified by path")

    def keyed(run):
        paths = dict(zip(run.regions["id"], run.regions["path"]))
        st = run.region_stats
        return {(int(r.rank), int(r.thread), paths[r.region]): (int(r.incl_ns), int(r.visits))
                for r in st.itertuples() if r.rank not in (2, 5)}
    check(keyed(merged) == keyed(whole), "merged rows equal the complete file's rows")


def case_errors():
    """Unusable inputs: one sentence on stderr, exit 2, no traceback."""
    d = scratch("errors")
    good = generate(os.path.join(d, "g.h5"), "--ranks", "2", "--regions", "10")
    size = os.path.getsize(good)
    bad = []
    for frac in (0.02, 0.3, 0.6, 0.9):
        p = os.path.join(d, f"trunc{int(frac * 100)}.h5")
        with open(good, "rb") as fi, open(p, "wb") as fo:
            fo.write(fi.read(int(size * frac)))
        bad.append(p)
    text = os.path.join(d, "text.h5")
    open(text, "w").write("not hdf5\n")
    plain = os.path.join(d, "plain.h5")
    with h5py.File(plain, "w") as f:
        f["x"] = [1, 2, 3]
    empty = scratch("errors-empty")
    for p in bad + [text, plain, empty, os.path.join(d, "missing.h5")]:
        rc, out, err = report(p)
        check(rc == 2, f"{p}: exit {rc} (want 2)")
        check("Traceback" not in err and err.count("\n") == 1 and err.startswith("tally-report: "),
              f"{p}: one sentence wanted, got {err!r}")
    rc, _, err = report(good, "--metric", "bogus")
    check(rc == 2 and "unknown metric" in err, f"--metric bogus: {rc} {err!r}")
    rc, _, err = report(good, "--by", "kernel")
    check(rc == 2 and "no GPU kernel table" in err, f"--by kernel without kernels: {rc} {err!r}")


def case_plots():
    """--plot writes the four PNGs (with PC samples present), each a real image."""
    d = scratch("plots")
    f = generate(os.path.join(d, "p.h5"), "--ranks", "8", "--regions", "60", "--extra")
    rc, _, err = report(f, "--plot", os.path.join(d, "png"), "--metric", "time")
    check(rc == 0, f"exit {rc}: {err}")
    for name in ("heatmap", "imbalance", "mpi_time", "stalls"):
        p = os.path.join(d, "png", name + ".png")
        ok = os.path.exists(p)
        check(ok and os.path.getsize(p) > 10_000, f"{p} missing or small")
        if ok:
            check(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"{p} is a PNG")
    rc, _, err = report(f, "--plot", os.path.join(d, "png-ipc"), "--metric", "IPC")
    check(rc == 0 and os.path.getsize(os.path.join(d, "png-ipc", "heatmap.png")) > 10_000, f"IPC heatmap: {err}")


def case_export():
    """CSV of every table (row counts as in the file) and the Hatchet literal tree."""
    d = scratch("export")
    f = generate(os.path.join(d, "e.h5"), "--ranks", "3", "--regions", "40", "--threads", "2", "--extra")
    rc, _, err = report(f, "--csv-dir", os.path.join(d, "csv"), "--hatchet", os.path.join(d, "tree.json"))
    check(rc == 0, f"exit {rc}: {err}")
    with read_raw(f) as h:
        sizes = h.sizes()
        names = list(sizes)
        empty = []
        for n in names:
            p = os.path.join(d, "csv", n.replace("/", "_") + ".csv")
            if not sizes[n]:   # no empty CSV: the table is named on stderr instead
                check(not os.path.exists(p), f"{p} written for a table without rows")
                empty.append(n)
                continue
            lines = open(p).read().splitlines() if os.path.exists(p) else []
            check(len(lines) == sizes[n] + 1, f"{p}: {len(lines) - 1} rows, dataset {sizes[n]}")
        check(all(n in err for n in empty) and (not empty or "without rows" in err),
              f"the tables without rows {empty} are named: {err!r}")
    nev = len(dump_table(f, "events", 1))
    regions, rows, _, _, visits = by_hand(f, nev)
    tree = json.load(open(os.path.join(d, "tree.json")))
    check(isinstance(tree, list) and len(tree) == 1 and tree[0]["frame"]["name"] == "(thread)", "one root (thread)")
    root_incl = sum(r["incl_ns"] for r in rows if r["region"] == 0) / 1e9
    check(close(tree[0]["metrics"]["time (inc)"], root_incl), "root time (inc) = sum of root incl_ns")
    nodes, stack = [], list(tree)
    while stack:
        n = stack.pop()
        nodes.append(n)
        check(set(n) == {"frame", "metrics", "children"}, "node keys frame/metrics/children")
        stack += n["children"]
    check(len(nodes) == len(regions), f"{len(nodes)} nodes, {len(regions)} regions")
    check(close(sum(n["metrics"]["time"] for n in nodes), root_incl, 1e-9), "exclusive times add up to the root")
    check(sum(n["metrics"]["visits"] for n in nodes) == sum(visits.values()), "visits add up")


def case_formats():
    """Every --format and --by works; JSON parses; Markdown has its headings."""
    d = scratch("formats")
    f = generate(os.path.join(d, "f.h5"), "--ranks", "3", "--regions", "15", "--threads", "2", "--extra")
    for fmt in ("text", "csv", "json", "markdown"):
        for by in ("region", "rank", "thread", "kernel"):
            rc, out, err = report(f, "--format", fmt, "--by", by, "--top", "5")
            check(rc == 0 and len(out) > 200, f"--format {fmt} --by {by}: exit {rc} {err}")
            if fmt == "json":
                json.loads(out)
    rc, out, _ = report(f, "--format", "markdown")
    for h in ("## Run", "## Region tree", "## MPI calls by time", "## GPU kernels by time",
              "## PC sampling: hot lines and stall reasons", "## Table nvtx/payload_step"):
        check(h in out, f"markdown lacks {h}")
    rc, out, _ = report(f, "--by", "rank", "--metric", "IPC")
    check(rc == 0 and "IPC [instructions/cycle] by region across ranks" in out, "--metric IPC section")


def case_perf():
    """A 64-rank x 1,000-region file reports in under 3 s of CPU time.

    The budget is the report's own CPU time (user + system of the child),
    not wall time: a busy machine delays the process without making the
    report do more work, and the bound still fails a report that does."""
    import resource
    d = scratch("perf")
    f = generate(os.path.join(d, "big.h5"), "--ranks", "64", "--regions", "1000")
    best = None
    for _ in range(2):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        rc, out, err = report(f)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        check(rc == 0, f"exit {rc}: {err}")
        check(cpu > 0, "the report's CPU time was measured")
        best = cpu if best is None else min(best, cpu)
    print(f"64 ranks x 1000 regions: tally-report used {best:.2f} s of CPU (limit 3 s)")
    check(best < 3.0, f"report used {best:.2f} s of CPU")


def case_versions():
    """Schema 2 files show ranks.cpu_ns summed; schema 1 files (no cpu_ns) still report."""
    d = scratch("versions")
    f2 = generate(os.path.join(d, "v2.h5"), "--ranks", "3", "--regions", "5", "--threads", "2")
    cpu = sum(r["cpu_ns"] for r in dump_table(f2, "ranks", 1))
    run = {r["item"]: r["value"] for r in report_json(f2)["Run"]}
    got = run.get("process CPU time, sum over ranks [s]")
    check(got is not None and close(float(got), cpu / 1e9), f"process CPU {got} != {cpu / 1e9}")
    old = os.path.join(d, "schema1.def")
    with open(SCHEMA) as src, open(old, "w") as dst:
        for line in src:
            if "TLY_FIELD(ranks, cpu_ns" in line:
                continue
            dst.write(re.sub(r"TLY_SCHEMA_VERSION\(\d+\)", "TLY_SCHEMA_VERSION(1)", line))
    f1 = os.path.join(d, "v1.h5")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_tally_file.py"), old, f1, "--ranks", "2"], check=True)
    run = {r["item"]: r["value"] for r in report_json(f1)["Run"]}
    check(str(run.get("schema version")) == "1", f"schema 1 file reports version {run.get('schema version')}")
    check("process CPU time, sum over ranks [s]" not in run, "no CPU row without cpu_ns")
    # schema 3, written by the runtime before write_seconds held seconds (data/README.md)
    check_write_seconds(os.path.join(DATA, "schema3_report_prog.h5"), 3)
    check_cost_rows(f2, os.path.join(DATA, "schema3_report_prog.h5"))


def check_cost_rows(new, old):
    """Tally's cost (schema 5): each part as the largest rank and the sum
    over ranks of the ranks table; a file before schema 5 shows its
    start-up (overhead_ns) alone, said to be partial."""
    rk = dump_table(new, "ranks", 1)
    run = {r["item"]: r["value"] for r in report_json(new)["Run"]}
    for col, what in (("init_ns", "start-up"), ("mpi_init_ns", "at MPI_Init"), ("exit_ns", "end")):
        vals = [int(r[col]) for r in rk]
        row = [v for k, v in run.items() if k.startswith(f"Tally cost: {what}")]
        want = f"{max(vals) / 1e9:.6f} / {sum(vals) / 1e9:.6f}"
        check(row == [want], f"cost row {what}: {row}, want {want}")
    check(any(k.startswith("Tally cost in all") for k in run), "total cost row")
    with read_raw(old) as f:
        start = max(int(x) for x in f["ranks"]["overhead_ns"])
    run = {r["item"]: r["value"] for r in report_json(old)["Run"]}
    row = [v for k, v in run.items() if k.startswith("Tally start-up max [s] (schema < 5")]
    check(len(row) == 1 and close(float(row[0]), start / 1e9), f"schema 3 file: start-up row {row}, want {start / 1e9}")
    check(not any(k.startswith("Tally cost") for k in run), "schema 3 file: no cost parts")


def check_write_seconds(path, version):
    """write_seconds read as seconds: microseconds (I64) in schema 1-3
    files, seconds (F64) from 4; the report and the summary say the same."""
    with read_raw(path) as f:
        v, raw = int(f.attrs["schema_version"]), f.attrs["write_seconds"]
    check(v == version, f"{path}: schema {v}, expected {version}")
    want = raw / 1e6 if v < 4 else raw
    check((raw.dtype.kind == "i") == (v < 4), f"{path}: write_seconds of type {raw.dtype} in schema {v}")
    check(0 < want < 60, f"{path}: write time {want} s")
    run = {r["item"]: r["value"] for r in report_json(path)["Run"]}
    check(close(float(run.get("write time [s]", -1)), float(want)), f"report: write time {run.get('write time [s]')} != {want}")
    rc, out, err = report("summary", path)
    check(rc == 0 and f"write time {want:.3f} s" in out, f"summary: exit {rc}, {out[:300]!r} {err[-300:]!r}")


def case_runtime():
    """A file written by the runtime (tally-run under mpirun): report vs h5dump."""
    run, prog, mpirun = (os.environ.get(k, "") for k in ("TALLY_RUN", "TALLY_REPORT_PROG", "TALLY_MPIRUN"))
    # CMake passes all three when it registers this test: one missing is a
    # wiring mistake, and a run that writes no file is a failure, not a skip.
    if not (os.path.exists(run) and os.path.exists(prog) and mpirun):
        check(False, f"usage: TALLY_RUN={run!r}, TALLY_REPORT_PROG={prog!r}, TALLY_MPIRUN={mpirun!r}")
        return
    d = scratch("runtime")
    cmd = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", run, "--output-name=rt.h5", "--max-depth=40",
           "--", prog]
    try:
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    except subprocess.TimeoutExpired:
        check(False, f"{' '.join(cmd)} still running after 60 s")
    f = os.path.join(d, "rt.h5")
    if not os.path.exists(f):
        check(False, "the runtime wrote no file within 60 s")
        return
    nev = len(dump_table(f, "events", 1))
    regions, rows, incl, _, visits = by_hand(f, nev)
    rep = report_json(f)
    ranks = sorted({r["rank"] for r in rows})
    for t in rep["Region tree"]:
        rid = t["id"]
        check(t["visits"] == visits[rid], f"region {rid} visits")
        want = hand_stats([incl.get((rid, k), 0) / 1e9 for k in ranks])
        check(close(t["incl max [s]"], want[2]) and close(t["incl mean [s]"], want[1]), f"region {rid} times")
    check_mpi(f, rep, nev, ranks)
    steps = [r for r in regions.values() if r["name"] == "step"]
    check(steps and visits[steps[0]["id"]] == 10, "5 steps on each of 2 ranks")
    check_write_seconds(f, schema_def_version())
    # the settings given (issue 52): the flags, as rank 0 had them, each a row of settings.def
    rc, out, err = report(f, "--settings")
    given = out.splitlines()[1:]
    rows = set(re.findall(r"^TLY_SETTING\(\w+, (\w+),", open(os.path.join(HERE, "..", "..", "src", "settings",
                                                                       "settings.def")).read(), re.M))
    check(rc == 0 and "TALLY_OUTPUT_NAME=rt.h5" in given and "TALLY_MAX_DEPTH=40" in given
          and all(g.split("=")[0] in rows for g in given), f"--settings of the runtime's file: {given} {err!r}")


DATA = os.path.join(HERE, "data")


def _s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def case_gpu_files():
    """Files the runtime wrote on the H100 (testsuite/report/data/README.md):
    --by kernel lists every kernel of gpu_kernels first, with launches and
    metric totals summed by hand from the file; whole names (PyTorch's run
    past 5,000 characters) come out intact; the PC-sampling section sums
    pc_samples' rows without the '_not_issued' subsets."""
    for name in ("gpu_kernel_replay.h5", "gpu_torch.h5", "gpu_pcsamp.h5"):
        path = os.path.join(DATA, name)
        with read_raw(path) as f:
            k = f["gpu_kernels"] if "gpu_kernels" in f else []
            pc = f["pc_samples"] if "pc_samples" in f else []
        rep = report_json(path, *(("--by", "kernel") if len(k) else ()))
        titles = list(rep)
        if len(k):
            metrics = list(dict.fromkeys(_s(r["metric"]) for r in k))
            want = {}
            for r in k:
                w = want.setdefault(_s(r["kernel"]), {"launches": 0})
                if _s(r["metric"]) == metrics[0]:
                    w["launches"] += int(r["launches"])
                w[metrics and _s(r["metric"])] = w.get(_s(r["metric"]), 0.0) + float(r["total"])
            title = next((t for t in titles if t.startswith("GPU kernels by ")), None)
            check(title is not None and titles.index(title) == 1, f"{name}: kernels first with --by kernel: {titles}")
            got = {row["kernel"]: row for row in rep.get(title, [])}
            check(set(got) == set(want), f"{name}: kernels {sorted(got)[:3]} vs file {sorted(want)[:3]}")
            for kern, w in want.items():
                row = got.get(kern, {})
                check(row.get("launches") == w["launches"], f"{name}: {kern[:60]} launches {row.get('launches')}")
                for m in metrics:
                    check(close(row.get(f"{m} total"), w[m], 1e-12), f"{name}: {kern[:60]} {m} total")
            longest = max(want, key=len)
            print(f"{name}: {len(want)} kernels, {sum(w['launches'] for w in want.values())} launches, "
                  f"longest name {len(longest)} characters")
            if name == "gpu_torch.h5":
                check(len(longest) > 5000 and longest.endswith(")"), f"whole PyTorch name: {len(longest)} chars")
        if len(pc):
            hot = rep.get("PC sampling: hot lines and stall reasons", [])
            total = sum(int(r["samples"]) for r in pc if int(r["not_issued"]) == 0)
            check(sum(r["total"] for r in hot) == total, f"{name}: hot lines {sum(r['total'] for r in hot)} "
                  f"samples, pc_samples {total}")
            print(f"{name}: {len(pc)} PC-sample rows, {total} samples")


def case_hl():
    """The high-level API's JSON file, written by hl_prog (PAPI_hl_region_*)
    under ctest, read by tally.hl and tally-report hl: visits as the
    program made them, real time between the program's own inner and outer
    windows, task-clock within the window, page faults of the touched pages."""
    import glob
    from tally import hl
    prog = os.environ.get("TALLY_HL_PROG", "")
    if not os.path.exists(prog):
        check(False, f"usage: TALLY_HL_PROG={prog!r}")
        return
    d = scratch("hl")
    env = dict(os.environ, TALLY_OUTPUT_DIR=d, TALLY_EVENTS="perf::TASK-CLOCK,perf::PAGE-FAULTS")
    p = subprocess.run([prog], cwd=d, env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"hl_prog: exit {p.returncode}: {p.stderr[-1000:]}")
    truth = json.loads(p.stdout.strip().splitlines()[-1])
    files = glob.glob(os.path.join(d, "tally_hl_*.json"))
    check(len(files) == 1, f"one summary file: {files}")
    if len(files) != 1:
        return
    f = hl.read(files[0])
    check(f.events == ["perf::TASK-CLOCK", "perf::PAGE-FAULTS"], f"events {f.events}")
    check(f.version == 1 and files[0].endswith(f"_{f.pid}.json"), f"version {f.version}, pid {f.pid}")
    check(len(f.threads) == 1 and f.threads[0].tid == f.pid, "one thread, the main one")
    got = {r.name: r for r in f.threads[0].regions}
    check(sorted(got) == sorted(truth["regions"]), f"regions {sorted(got)}")
    for name, want in truth["regions"].items():
        r = got.get(name)
        if r is None:
            continue
        check(r.visits == want["visits"], f"{name}: visits {r.visits} != {want['visits']}")
        check(want["inner_ns"] <= r.real_time_ns <= want["outer_ns"],
              f"{name}: real time {r.real_time_ns} ns outside [{want['inner_ns']}, {want['outer_ns']}]")
        tc = r.events["perf::TASK-CLOCK"]
        check(tc is not None and 0 < tc <= want["outer_ns"], f"{name}: task-clock {tc} ns, window {want['outer_ns']}")
    if len(got) == 3:
        pages = truth["pages"] * truth["regions"]["touch"]["visits"]
        pf = got["touch"].events["perf::PAGE-FAULTS"]
        check(pages <= pf <= pages + 100, f"touch: {pf} page faults for {pages} fresh pages")
        outer, parts = got["outer"].events, [got["inner"].events, got["touch"].events]
        for e in f.events:
            check(outer[e] >= sum(x[e] for x in parts), f"outer {e} {outer[e]} < its children's")
        check(got["outer"].reads == 1 and got["outer"].last_read is not None and
              0 < got["outer"].last_read["real_time_nsec"] <= got["outer"].real_time_ns, "outer: one PAPI_hl_read")
    rc, out, err = report("hl", files[0])
    check(rc == 0 and "Traceback" not in err, f"tally-report hl: exit {rc}: {err[-500:]}")
    for name, r in got.items():
        check(re.search(rf"^\s+{name}\s+{r.visits}\s", out, re.M), f"tally-report hl lists {name} with {r.visits} visits")
    bad = os.path.join(d, "other.json")
    with open(bad, "w") as o:
        json.dump({"format": "something-else", "version": 1}, o)
    rc, out, err = report("hl", bad)
    check(rc == 2 and len(err.strip().splitlines()) == 1 and "not a Tally high-level" in err,
          f"tally-report hl of another JSON: exit {rc}, {err!r}")


CASES = {"versions": case_versions, "hl": case_hl, "numbers": case_numbers, "partial": case_partial, "errors": case_errors, "plots": case_plots,
         "export": case_export, "formats": case_formats, "perf": case_perf, "runtime": case_runtime,
         "gpu_files": case_gpu_files}

if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    CASES[sys.argv[1]]()
    sys.exit(done(sys.argv[1]))
