#!/usr/bin/python3
"""A newcomer's first hour with tally-report (ctest label 'report', issue 34),
on files the runtime wrote:

    test_first_hour.py CASE     (CASE: names, plots, interp, package, html, links)

names    an OpenMP program whose regions sit in functions inlined three deep
         (names_prog.c) and the PyTorch file recorded on the H100: no text
         line over 120 columns; short names, whole ones in JSON and with
         --full-names; short kernel names distinct and demangled
plots    the label texts read back from the matplotlib figures: whole (each
         a label the names module gives), distinct, inside the figure;
         legends clear of the axes
interp   a python3 without h5py first on PATH, `python3 tally-report`,
         `python3 -m tally`, TALLY_PYTHON without h5py (one line, exit 2),
         and planted argparse.py/numpy.py/h5py.py with PYTHONPATH and
         PYTHONSTARTUP set: nothing of them runs
package  pip install --no-deps, offline, in a venv made with
         --system-site-packages, as nobody, from read-only copies of the build
         tree's install layout, of the sources and of the wheel: trees unchanged;
         tally-report from a writable prefix writes no __pycache__ there
         and from the sources: `import tally` and the tally-report entry point
html     the --html page in headless Chromium: no console error (a page
         with one is caught), a screenshot that is not blank
links    links planted at every name tally-report writes: the victim is
         never touched; a linked output directory is refused

Environment as for test_report.py, plus TALLY_NAMES_PROG (names_prog.c).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("TALLY_REPORT", "tally-report")
PKG = os.environ.get("TALLY_PYTHONPATH", os.path.join(HERE, "..", "..", "analysis"))
WORK = os.environ.get("TALLY_TEST_DIR", "/tmp/tally-report-test")
DATA = os.path.join(HERE, "data")
SRC = os.path.join(HERE, "..", "..", "analysis")
sys.path.insert(0, PKG)
try:
    import tally.fileio  # noqa: F401,E402  (the reader's HDF5 layer: ImportError without h5py)
    from tally import raw as read_raw  # noqa: E402  (the rows as stored, through the reader's checks)
except ImportError:
    print("SKIP: /usr/bin/python3 has no h5py (testsuite/install-deps.sh installs python3-h5py)")
    sys.exit(77)
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
from th import check, done  # noqa: E402

WIDTH = 120


def scratch(name):
    """A fresh directory under WORK."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def run(cmd, **kw):
    """(returncode, stdout, stderr) of cmd."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 300), **kw)
    return p.returncode, p.stdout, p.stderr


def runtime_file():
    """The file tally-run writes for names_prog (run once per case)."""
    prog, tally_run = os.environ.get("TALLY_NAMES_PROG", ""), os.environ.get("TALLY_RUN", "")
    if not (os.path.exists(prog) and os.path.exists(tally_run)):
        check(False, f"usage: TALLY_NAMES_PROG={prog!r} TALLY_RUN={tally_run!r}")
        sys.exit(done("first_hour"))
    d = scratch("names-run-" + sys.argv[1])
    env = dict(os.environ, OMP_NUM_THREADS="2")
    rc, _, err = run([tally_run, "--output-name=names.h5", "--", prog], cwd=d, env=env, timeout=120)
    f = os.path.join(d, "names.h5")
    check(rc == 0 and os.path.exists(f), f"tally-run names_prog: exit {rc}: {err[-1500:]}")
    if not os.path.exists(f):
        sys.exit(done("first_hour"))
    return f


def region_names(path):
    with read_raw(path) as f:
        return [n.decode() for n in f["regions"]["name"]]


def widest(text):
    return max((len(line) for line in text.splitlines()), default=0)


def case_names():
    """Short names in 120 columns; whole names in JSON and with --full-names."""
    f = runtime_file()
    whole = [n for n in region_names(f) if n.startswith("omp parallel @ kernel_body")]
    chains = [n for n in whole if n.count(" in ") >= 2]
    check(len(set(chains)) >= 2, f"the file holds the inline chains of both stages: {whole}")
    check(any(len(n) > WIDTH for n in whole), f"some whole name is over {WIDTH} characters: {whole}")
    rc, out, err = run([REPORT, f, "--top", "0"])
    check(rc == 0, f"tally-report: exit {rc}: {err}")
    check(widest(out) <= WIDTH, f"a line of {widest(out)} columns")
    check("omp parallel @ kernel_body (names_prog.c:" in out, "the innermost frame is shown")
    check(not any(n in out for n in chains), "no whole inline chain in the default text")
    rc, full, _ = run([REPORT, f, "--top", "0", "--full-names"])
    check(rc == 0 and all(n in full for n in chains), "--full-names shows the whole names")
    rc, js, _ = run([REPORT, f, "--top", "0", "--format", "json"])
    rows = {r["region"].strip() for s in json.loads(js)["sections"] if s["title"] == "Region tree" for r in s["rows"]}
    check(set(chains) <= rows, "JSON keeps the whole names")
    for name, bys in (("gpu_torch.h5", ("kernel", "region")), ("gpu_pcsamp.h5", ("region", "rank")),
                      ("gpu_kernel_replay.h5", ("kernel", "region"))):
        for by in bys:
            rc, out, err = run([REPORT, os.path.join(DATA, name), "--by", by, "--top", "0"])
            check(rc == 0 and widest(out) <= WIDTH, f"{name} --by {by}: exit {rc}, widest line {widest(out)}: {err}")
    from tally import read, report
    run_ = read(os.path.join(DATA, "gpu_torch.h5"))
    sec = {s.title: s.frame for s in report.build(run_, by="kernel", top=0, full=False)}
    kern = list(sec["GPU kernels by launches"]["kernel"])
    with read_raw(os.path.join(DATA, "gpu_torch.h5")) as h:
        want = {k.decode() for k in h["gpu_kernels"]["kernel"]}
    check(len(set(kern)) == len(want) == len(kern), f"{len(set(kern))} distinct short names for {len(want)} kernels")
    check(all(len(k) <= 100 and not k.startswith("_Z") for k in kern), f"short, demangled: {kern[:3]}")
    check("at::native::reduce_kernel #1d99" in kern or any(k.startswith("at::native::") for k in kern),
          f"demangled scopes kept: {kern[:5]}")


def _figure_texts(fig):
    """(tick label texts with their window extents, legend boxes, axes boxes, figure box)."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    labels, legends, axes = [], [], []
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        for t in ax.get_yticklabels() + ax.get_xticklabels():
            if t.get_text():
                labels.append((t.get_text(), t.get_window_extent(r)))
        axes.append(ax.get_window_extent(r))
        if ax.get_legend():
            legends.append(ax.get_legend().get_window_extent(r))
    return labels, legends, axes, fig.bbox


def _check_figures(path, full=False):
    """Every figure of path: region labels whole and distinct, inside the
    figure; legends clear of the axes."""
    from tally import names, read, report, plots
    rn = read(path)
    an = report.Analysis(rn)
    col = an.metric_column("time") if an.per_rank is not None else None
    figs = plots.figures(an, col, 40, full)
    check(figs, f"{path}: plots made")
    for kind, fig in figs:
        labels, legends, axes, box = _figure_texts(fig)
        texts = [t for t, _ in labels]
        if kind in ("heatmap", "imbalance"):
            ax = fig.axes[0]
            ys = [t.get_text() for t in ax.get_yticklabels()]
            ids = plots._top_regions(an, col, 40)   # pylint: disable=protected-access
            want = names.region_labels(rn.regions, ids, full)
            check(ys == want, f"{path} {kind}: labels {ys[:4]} are the names module's {want[:4]}")
            check(len(set(ys)) == len(ys), f"{path} {kind}: labels distinct: {ys}")
            check(not any("…" in y for y in ys), f"{path} {kind}: no label cut")
        for t, ext in labels:
            if t.replace(".", "").replace("−", "").replace("-", "").isdigit():
                continue   # numeric ticks: matplotlib's own; bbox_inches='tight' keeps them
            inside = ext.x0 >= box.x0 - 1 and ext.x1 <= box.x1 + 1 and ext.y0 >= box.y0 - 1 and ext.y1 <= box.y1 + 1
            check(inside, f"{path} {kind}: label {t!r} lies outside the figure ({ext} vs {box})")
        for lg in legends:
            clear = all(lg.x0 >= a.x1 or lg.x1 <= a.x0 or lg.y0 >= a.y1 or lg.y1 <= a.y0 for a in axes)
            check(clear, f"{path} {kind}: legend overlaps the axes")
            check(lg.x1 <= box.x1 + 1, f"{path} {kind}: legend inside the figure")
        print(f"{os.path.basename(path)} {kind}: {len(texts)} labels, {len(legends)} legends")
        plots.png_bytes(fig)


def case_plots():
    """Label texts read back from the figures."""
    _check_figures(runtime_file())
    _check_figures(os.path.join(DATA, "gpu_pcsamp.h5"))
    d = scratch("plots-gen")
    f = os.path.join(d, "g.h5")
    schema = os.environ.get("TALLY_SCHEMA_DEF", os.path.join(HERE, "..", "..", "wrappers", "output", "schema.def"))
    subprocess.run([sys.executable, os.path.join(HERE, "gen_tally_file.py"), schema, f, "--ranks", "6", "--regions",
                    "45", "--extra"], check=True)
    _check_figures(f)
    _check_figures(f, full=True)


def _python_without_h5py(d):
    """A python3 that lacks h5py: a venv without system site packages."""
    venv = os.path.join(d, "noh5")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
    py = os.path.join(venv, "bin", "python3")
    check(run([py, "-c", "import h5py"])[0] != 0, f"{py} lacks h5py")
    return py


def case_interp():
    """tally-report under a python3 without h5py, and isolated."""
    f = runtime_file()
    d = scratch("interp")
    py = _python_without_h5py(d)
    env = dict(os.environ, PATH=os.path.dirname(py) + os.pathsep + os.environ.get("PATH", ""))
    for how, cmd, extra in (("python3 tally-report", [py, REPORT, f], {}),
                            ("tally-report", [REPORT, f], {}),
                            ("python3 -m tally", [py, "-m", "tally", f], {"PYTHONPATH": PKG})):
        rc, out, err = run(cmd, env=dict(env, **extra), cwd=d)
        check(rc == 0 and "== Region tree" in out, f"{how} with {py} first on PATH: exit {rc}: {err[-800:]}")
    for how, cmd, extra in (("tally-report", [REPORT, f], {}),
                            ("python3 -m tally", [py, "-m", "tally", f], {"PYTHONPATH": PKG})):
        rc, out, err = run(cmd, env=dict(env, TALLY_PYTHON=py, **extra), cwd=d)
        check(rc == 2 and len(err.strip().splitlines()) == 1 and "TALLY_PYTHON" in err and "Traceback" not in err,
              f"{how} with TALLY_PYTHON lacking h5py: exit {rc}, {err!r}")
    # planted modules in the current directory, PYTHONPATH and PYTHONSTARTUP: none runs.  The
    # python3 a user starts without -I imports what it finds before Tally's code runs (site's
    # importlib, `-m tally`'s tally); from there on Tally starts its Python isolated.
    plant = scratch("interp-plant")
    marker = os.path.join(plant, "RAN")
    env = dict(os.environ, PYTHONPATH=plant, PYTHONSTARTUP=os.path.join(plant, "argparse.py"))
    ways = (("tally-report", [REPORT, f, "--top", "3"], ("importlib", "subprocess", "encodings", "tally")),
            ("python3 tally-report", ["/usr/bin/python3", REPORT, f], ()),
            ("python3 -m tally", ["/usr/bin/python3", "-m", "tally", f], ()))
    for how, cmd, more in ways:
        for m in ("argparse", "numpy", "h5py", "pandas", "matplotlib") + more:
            with open(os.path.join(plant, m + ".py"), "w") as o:
                o.write(f"open({marker!r}, 'a').write({m!r} + '\\n')\n")
        rc, out, err = run(cmd, env=dict(env, PYTHONPATH=plant + os.pathsep + PKG) if "-m" in cmd else env, cwd=plant)
        ran = open(marker).read().split() if os.path.exists(marker) else []
        check(not ran and rc == 0 and "== Region tree" in out,
              f"{how} in a directory of planted modules: exit {rc}, planted code ran: {ran}; {err[-500:]}")
        for m in os.listdir(plant):
            os.unlink(os.path.join(plant, m))


def _tree_digest(top):
    """{relative path: (mode, bytes or link target)} of every entry under top."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in sorted(dirs + files):
            p = os.path.join(d, n)
            st = os.lstat(p)
            data = os.readlink(p) if os.path.islink(p) else (open(p, "rb").read() if os.path.isfile(p) else b"")
            out[os.path.relpath(p, top)] = (st.st_mode, st.st_uid, data)
    return out


def _as_user():
    """argv prefix that runs a command as an unprivileged user (nobody) when
    this test runs as root, else as this user; (prefix, uid)."""
    if os.geteuid() != 0:
        return [], os.geteuid()
    import pwd
    nobody = pwd.getpwnam("nobody")
    return (["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"],
            nobody.pw_uid)


def _others_can_reach(path):
    """Whether every directory above and at path lets others through (o+x)."""
    path = os.path.realpath(path)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def _user_scratch(name):
    """A fresh directory the unprivileged user can reach: under WORK, or,
    when the build tree is closed to others (Spack's stage is 0700), a
    private one in /tmp (removed at exit)."""
    d = scratch(name)
    if os.geteuid() != 0 or _others_can_reach(d):
        return d
    import atexit
    import tempfile
    d = tempfile.mkdtemp(prefix=f"tally-{name}-", dir="/tmp")

    def remove():   # the read-only copies made writable first
        for dp, dn, fn in os.walk(d):
            os.chmod(dp, 0o755)
        shutil.rmtree(d, ignore_errors=True)
    atexit.register(remove)
    return d


def _read_only_copy(src, dst):
    """src copied to dst, owned by this user (root), read-only for all."""
    shutil.copytree(src, dst, symlinks=False, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    for d, dirs, files in os.walk(dst, topdown=False):
        for n in files:
            os.chmod(os.path.join(d, n), 0o444)
        os.chmod(d, 0o555)


def case_package():
    """The pip package, offline, in a --system-site-packages venv, installed
    by an unprivileged user from a root-owned read-only prefix, from a
    read-only copy of the sources and from the prefix's wheel: every install
    works and neither tree changes by a byte; tally-report run as root from a
    prefix writes no __pycache__ there."""
    f = runtime_file()
    with read_raw(f) as h:
        nreg = len(h["regions"])
    d = _user_scratch("package")
    os.chmod(d, 0o755)
    user, uid = _as_user()
    wheel = os.path.join(PKG, "tally_report-1-py3-none-any.whl")
    check(os.path.isfile(wheel), f"the build stages the reader's wheel: {wheel}")
    trees = {"install layout": os.path.join(d, "prefix-ro"), "sources": os.path.join(d, "src-ro")}
    _read_only_copy(PKG, trees["install layout"])
    _read_only_copy(SRC, trees["sources"])
    before = {k: _tree_digest(v) for k, v in trees.items()}
    home = os.path.join(d, "home")
    os.makedirs(home)
    os.chown(home, uid, -1)
    fcopy = os.path.join(home, "job.h5")
    shutil.copy(f, fcopy)
    os.chown(fcopy, uid, -1)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1",
               http_proxy="http://0.0.0.0:9", https_proxy="http://0.0.0.0:9", HOME=home)
    ways = (("install layout", [trees["install layout"]]), ("sources", [trees["sources"]]),
            ("wheel", [os.path.join(trees["install layout"], os.path.basename(wheel))]))
    for how, what in ways:
        venv = os.path.join(home, "venv-" + how.split()[0])
        rc, _, err = run(user + ["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv], env=env, cwd=home)
        check(rc == 0, f"{how}: venv as uid {uid}: {err[-500:]}")
        py, entry = os.path.join(venv, "bin", "python3"), os.path.join(venv, "bin", "tally-report")
        rc, out, err = run(user + [py, "-m", "pip", "install", "--no-deps", *what], env=env, cwd=home)
        check(rc == 0, f"pip install from the {how} as uid {uid}: exit {rc}: {err[-1500:]}")
        code = ("import sys, tally; r = tally.read(sys.argv[1], stored_tree=True); "
                "print(tally.__file__); print(len(r.tables['regions']))")
        rc, out, err = run(user + [py, "-I", "-c", code, fcopy], env=env, cwd=home)
        lines = out.split()
        check(rc == 0 and len(lines) == 2 and lines[0].startswith(venv) and lines[1] == str(nreg),
              f"{how}: import tally from the venv reads {nreg} regions: {out} {err[-800:]}")
        rc, out, err = run(user + [entry, fcopy, "--top", "5"], env=env, cwd=home)
        check(rc == 0 and "== Region tree" in out and "omp parallel @ kernel_body" in out,
              f"{how}: the tally-report entry point: exit {rc}: {err[-800:]}")
    for k, v in trees.items():
        after = _tree_digest(v)
        changed = sorted(set(after) ^ set(before[k]) | {p for p in after if after[p] != before[k].get(p)})
        check(not changed, f"pip installs left the {k} changed: {changed[:5]}")
    # tally-report run by its owner (root in CI) from a prefix: no __pycache__ written there
    own = os.path.join(d, "prefix-rw")   # the launcher and the package, laid out as built
    rep, pkg = os.path.realpath(shutil.which(REPORT) or REPORT), os.path.realpath(PKG)
    top = os.path.commonpath([rep, pkg])
    launcher = os.path.join(own, os.path.relpath(rep, top))
    os.makedirs(os.path.dirname(launcher))
    shutil.copy(rep, launcher)
    shutil.copytree(pkg, os.path.join(own, os.path.relpath(pkg, top)), ignore=shutil.ignore_patterns("__pycache__"))
    rc, out, err = run([launcher, f, "--top", "3"], cwd=d)
    caches = [dp for dp, dn, fn in os.walk(own) if os.path.basename(dp) == "__pycache__"]
    check(rc == 0 and "== Region tree" in out and not caches,
          f"tally-report from a writable prefix: exit {rc}, __pycache__ written: {caches} {err[-500:]}")


CHROMIUM = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--enable-logging=stderr", "--v=0", "--hide-scrollbars", "--window-size=1280,2400"]


def _chromium(page, shot):
    """Load page in headless Chromium, screenshot to shot; (rc, console error lines)."""
    exe = shutil.which("chromium", path="/usr/bin:/bin")
    with tempfile.TemporaryDirectory() as prof:
        rc, out, err = run([exe, *CHROMIUM, f"--user-data-dir={prof}", f"--screenshot={shot}",
                            "file://" + os.path.abspath(page)], timeout=180)
    console = [ln for ln in err.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]
    return rc, console, err


def _blank(png):
    """True when the screenshot is (nearly) one colour."""
    import numpy as np
    from PIL import Image
    px = np.asarray(Image.open(png).convert("L"), dtype=float)
    return px.std() < 5.0, px.std()


def case_html():
    """The job summary page in headless Chromium."""
    if not shutil.which("chromium", path="/usr/bin:/bin"):
        print("SKIP: no /usr/bin/chromium (testsuite/install-deps.sh installs Debian's chromium)")
        sys.exit(77)
    d = scratch("html")
    # the detection works: a page with a console error is caught
    bad = os.path.join(d, "bad.html")
    with open(bad, "w") as o:
        o.write("<!DOCTYPE html><html><body><p>x</p><script>console.error('planted error');</script></body></html>")
    _, console, err = _chromium(bad, os.path.join(d, "bad.png"))
    check(any("planted error" in c for c in console), f"a console error is seen: {err[-1500:]}")
    gen = os.path.join(d, "g.h5")
    schema = os.environ.get("TALLY_SCHEMA_DEF", os.path.join(HERE, "..", "..", "wrappers", "output", "schema.def"))
    subprocess.run([sys.executable, os.path.join(HERE, "gen_tally_file.py"), schema, gen, "--ranks", "4", "--regions",
                    "20", "--extra"], check=True)
    for f in (runtime_file(), gen, os.path.join(DATA, "gpu_torch.h5")):
        page = os.path.join(d, os.path.basename(f) + ".html")
        rc, _, err = run([REPORT, f, "--html", page])
        check(rc == 0 and os.path.getsize(page) > 2000, f"--html {f}: exit {rc}: {err}")
        html = open(page, encoding="utf-8").read()
        check("http://" not in html and "https://" not in html and "<script" not in html,
              f"{page}: self-contained, no script")
        for part in ("<h2 id=", "Run", "</table>"):
            check(part in html, f"{page}: has {part}")
        if f == gen:
            for part in ("Region tree", "MPI calls by time", "GPU kernels", "nvtx/payload_step",
                         'src="data:image/png;base64,'):
                check(part in html, f"{page}: has {part}")
        shot = page + ".png"
        rc, console, err = _chromium(page, shot)
        check(rc == 0 and os.path.exists(shot), f"chromium {page}: exit {rc}: {err[-1500:]}")
        check(not console, f"{page}: console errors {console}")
        if os.path.exists(shot):
            blank, sd = _blank(shot)
            check(not blank, f"{shot}: the screenshot is blank (pixel sd {sd:.1f})")
            print(f"{os.path.basename(page)}: {len(html)} bytes, screenshot pixel sd {sd:.1f}")


def case_links():
    """Links planted at the names tally-report writes: the victim stays."""
    f = runtime_file()
    d = scratch("links")
    victim = os.path.join(d, "victim")
    with open(victim, "w") as o:
        o.write("precious\n")
    before = os.stat(victim)
    out = os.path.join(d, "out")
    for sub in ("png", "csv"):
        os.makedirs(os.path.join(out, sub))
    planted = {"png/heatmap.png": None, "png/imbalance.png": None,
               "csv/regions.csv": None, "csv/meta.csv": None, "tree.json": None, "page.html": None, "report.txt": None}
    for name in planted:
        os.symlink(victim, os.path.join(out, name))
    rc, _, err = run([REPORT, f, "--plot", os.path.join(out, "png"), "--csv-dir", os.path.join(out, "csv"),
                      "--hatchet", os.path.join(out, "tree.json"), "--html", os.path.join(out, "page.html"),
                      "-o", os.path.join(out, "report.txt")], cwd=d)
    check(rc == 0, f"exit {rc}: {err}")
    after = os.stat(victim)
    check(open(victim).read() == "precious\n" and after.st_mtime_ns == before.st_mtime_ns
          and after.st_size == before.st_size, "the victim is untouched")
    for name in planted:
        p = os.path.join(out, name)
        stem, ext = os.path.splitext(p)
        check(os.path.islink(p) and os.path.isfile(stem + ".1" + ext) and not os.path.islink(stem + ".1" + ext),
              f"{name}: the link stays, {os.path.basename(stem)}.1{ext} written beside it")
    # a link in place of the output directory is refused, nothing lands in its target
    target = os.path.join(d, "target")
    os.makedirs(target)
    for opt in ("--plot", "--csv-dir"):
        link = os.path.join(d, "linked" + opt)
        os.symlink(target, link)
        rc, _, err = run([REPORT, f, opt, link], cwd=d)
        check(rc == 2 and len(err.strip().splitlines()) == 1 and "symbolic link" in err and not os.listdir(target),
              f"{opt} into a linked directory: exit {rc}, {err!r}, target holds {os.listdir(target)}")


CASES = {"names": case_names, "plots": case_plots, "interp": case_interp, "package": case_package,
         "html": case_html, "links": case_links}

if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    CASES[sys.argv[1]]()
    sys.exit(done("first_hour " + sys.argv[1]))
