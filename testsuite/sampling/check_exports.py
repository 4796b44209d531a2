#!/usr/bin/env python3
"""check_exports.py FILE - tally-report --sampling-export pprof and
speedscope on a sampled run of hot_app, each read back by a reader of its
own, independent of the exporter: the pprof file by a protobuf wire-format
decoder written here from profile.proto's field numbers (no protobuf
package), the speedscope file by Python's json.  Both must hold what the
file's samples table holds (tally.read): the samples per rank and thread,
the CPU time they stand for (samples / rate), the call paths (main ...
run_work; hot_inline, hot_lib, hot_fortran with their self samples), the
lines; and a planted fault (a sample's value changed) must be seen.  Then
the HTML page's flame graph (tally-report --html): its SVG read by an XML
parser, frames as wide as their samples, drawn by headless Chromium.
The Hatchet literal graph (--sampling-export hatchet) by a checker of its
own (structure, inclusive = self + children, sums against the file; the
hatchet package's from_literal too where it is installed); --plot's
flamegraph.png decoded, its bars and pixels against the samples."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th  # noqa: E402

PYPATH = os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "..", "..", "analysis"))
sys.path.insert(0, PYPATH)
try:
    import tally  # noqa: E402
except ImportError:
    print("h5py missing"); sys.exit(77)

HOT = ("hot_inline", "hot_lib", "hot_fortran")


# ---- a protobuf wire-format reader (varint, 64-bit, length-delimited, 32-bit)
def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """[(field number, wire type, value)]: ints for varints, bytes for the rest."""
    out, i = [], 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def ints(fs, num):
    """A repeated integer field, packed or not."""
    out = []
    for n, wt, v in fs:
        if n == num and wt == 0:
            out.append(v)
        elif n == num and wt == 2:
            i = 0
            while i < len(v):
                x, i = varint(v, i)
                out.append(x)
    return out


def one(fs, num, default=0):
    v = [x for n, _, x in fs if n == num]
    return v[-1] if v else default


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def read_pprof(data):
    """profile.proto's Profile as plain dicts."""
    top = fields(gzip.decompress(data))
    strs = [v.decode() for n, _, v in top if n == 6]
    check(strs and strs[0] == "", "pprof: string_table[0] is ''")
    st = lambda k: strs[k]  # noqa: E731
    types = [(st(one(f, 1)), st(one(f, 2))) for f in (fields(v) for n, _, v in top if n == 1)]
    funcs = {one(f, 1): (st(one(f, 2)), st(one(f, 4))) for f in (fields(v) for n, _, v in top if n == 5)}
    locs = {}
    for f in (fields(v) for n, _, v in top if n == 4):
        lines = [fields(v) for n, _, v in f if n == 4]
        locs[one(f, 1)] = [(funcs[one(l, 1)], signed(one(l, 2))) for l in lines]
    samples = []
    for f in (fields(v) for n, _, v in top if n == 2):
        labels = {st(one(l, 1)): signed(one(l, 3)) for l in (fields(v) for n, _, v in f if n == 3)}
        samples.append({"locs": ints(f, 1), "values": [signed(x) for x in ints(f, 2)], "labels": labels})
    pt = fields(one(top, 11, b""))
    return {"types": types, "locs": locs, "samples": samples, "period": one(top, 12),
            "period_type": (st(one(pt, 1)), st(one(pt, 2)))}


def truth(path):
    """From the file: samples per (rank, thread); self samples per hot
    function (innermost frame); the rate."""
    run = tally.read(path)
    smp, paths, status = run.table("samples"), run.table("sample_paths"), run.table("sampling_status")
    fn = dict(zip(paths["id"], paths["function"]))
    per, self_n = {}, dict.fromkeys(HOT, 0)
    for r, t, p, n in zip(smp["rank"], smp["thread"], smp["path"], smp["samples"]):
        per[(int(r), int(t))] = per.get((int(r), int(t)), 0) + int(n)
        if fn[int(p)] in self_n:
            self_n[fn[int(p)]] += int(n)
    return per, self_n, int(status["rate"].iloc[0])


def export(path, fmt, out):
    """tally-report --sampling-export FMT OUT (--html OUT when fmt is None)."""
    cmd = ["--sampling-export", fmt, out] if fmt else ["--html", out]
    r = subprocess.run([sys.executable, "-m", "tally", path, *cmd],
                       env=dict(os.environ, PYTHONPATH=PYPATH), capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "tally-report --sampling-export %s: exit %d %s" % (fmt, r.returncode, r.stderr.strip()))
    return open(out, "rb").read()


def pprof_check(prof, per, self_n, rate):
    check(prof["types"] == [("samples", "count"), ("cpu", "nanoseconds")], "pprof: sample types %s" % prof["types"])
    check(prof["period_type"] == ("cpu", "nanoseconds") and prof["period"] == round(1e9 / rate),
          "pprof: period %s %s" % (prof["period"], prof["period_type"]))
    got, got_self, through = {}, dict.fromkeys(HOT, 0), 0
    for s in prof["samples"]:
        key = (s["labels"].get("rank"), s["labels"].get("thread"))
        got[key] = got.get(key, 0) + s["values"][0]
        check(abs(s["values"][1] - s["values"][0] * 1e9 / rate) <= 1, "pprof: cpu ns = samples / rate")
        frames = [prof["locs"][l][0][0][0] for l in s["locs"]]   # innermost first
        if frames[0] in got_self:
            got_self[frames[0]] += s["values"][0]
            ok = "run_work" in frames and "main" in frames[frames.index("run_work"):]
            through += s["values"][0] if ok else 0
    check(got == per, "pprof: samples per (rank, thread) %s, the file's %s" % (got, per))
    check(got_self == self_n, "pprof: self samples %s, the file's %s" % (got_self, self_n))
    check(through >= 0.95 * sum(self_n.values()), "pprof: hot samples unwound through run_work to main")
    lines = {f: l for loc in prof["locs"].values() for (f, file), l in loc if f == "hot_lib" and file.endswith("hot_lib.c")}
    check(lines.get("hot_lib", 0) > 0, "pprof: hot_lib has its file and line")
    return got


def speedscope_check(doc, per, self_n, rate):
    check(doc.get("$schema") == "https://www.speedscope.app/file-format-schema.json", "speedscope: $schema")
    frames = doc["shared"]["frames"]
    got, got_self = {}, dict.fromkeys(HOT, 0)
    for p in doc["profiles"]:
        check(p["type"] == "sampled" and p["unit"] == "nanoseconds", "speedscope: a sampled profile in ns")
        check(len(p["samples"]) == len(p["weights"]) and p["endValue"] == sum(p["weights"]), "speedscope: weights")
        rank, thread = (int(x) for x in p["name"].replace("rank ", "").split(" thread "))
        got[(rank, thread)] = round(sum(p["weights"]) * rate / 1e9)
        for stack, w in zip(p["samples"], p["weights"]):
            names = [frames[i]["name"] for i in stack]   # outermost first
            if names[-1] in got_self:
                got_self[names[-1]] += round(w * rate / 1e9)
                check("run_work" in names and "main" in names[:names.index("run_work")],
                      "speedscope: %s under main and run_work: %s" % (names[-1], names))
    check(got == per, "speedscope: samples per (rank, thread) %s, the file's %s" % (got, per))
    check(got_self == self_n, "speedscope: self samples %s, the file's %s" % (got_self, self_n))


def html_check(path, per, self_n):
    """tally-report --html: the flame graph's SVG, read by an XML parser: each
    frame's width is its samples' share, hot_inline's frames hold its samples
    (it is a leaf: self = inclusive); the page drawn by headless Chromium
    (where installed) without console errors, not blank."""
    import xml.etree.ElementTree as ET
    export(path, None, "page.html")
    page = open("page.html", encoding="utf-8").read()
    check('<h2 id="flame">' in page and "<script" not in page, "html: a flame graph section, no script")
    a = page.find("<svg class=\"flame\"")
    svg = ET.fromstring(page[a:page.find("</svg>", a) + 6]) if a >= 0 else None
    check(svg is not None, "html: the flame graph's <svg>")
    if svg is None:
        return
    ns = "{http://www.w3.org/2000/svg}"
    width = float(svg.get("width"))
    gs = svg.findall(ns + "g")
    total = int(gs[0].get("data-samples"))
    bad, inl = 0, 0
    for g in gs:
        n, w = int(g.get("data-samples")), float(g.find(ns + "rect").get("width"))
        bad += abs(w / width - n / total) > 0.001
        if g.find(ns + "title").text.startswith("hot_inline "):
            inl += n
    print("flame graph: %d frames, %d samples; hot_inline %d" % (len(gs), total, inl))
    check(bad == 0 and len(gs) > 5, "html: every frame's width is its share of the samples (%d wrong)" % bad)
    check(total == sum(per.values()), "html: 'all' holds %d samples, the file %d" % (total, sum(per.values())))
    check(inl == self_n["hot_inline"], "html: hot_inline's frames hold %d samples, the file's %d"
          % (inl, self_n["hot_inline"]))
    exe = shutil.which("chromium", path="/usr/bin:/bin")
    if not exe:
        print("no /usr/bin/chromium: the page is not drawn")
        return
    with tempfile.TemporaryDirectory() as prof:
        r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            "--enable-logging=stderr", "--v=0", "--hide-scrollbars", "--window-size=1280,2400",
                            f"--user-data-dir={prof}", "--screenshot=page.png",
                            "file://" + os.path.abspath("page.html")], capture_output=True, text=True, timeout=100)
    console = [ln for ln in r.stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]
    check(r.returncode == 0 and os.path.exists("page.png") and not console,
          "chromium draws the page: exit %d, console %s" % (r.returncode, console))
    if os.path.exists("page.png"):
        import numpy as np
        from PIL import Image
        sd = np.asarray(Image.open("page.png").convert("L"), dtype=float).std()
        check(sd >= 5.0, "the screenshot is not blank (pixel sd %.1f)" % sd)


def hatchet_problems(doc, per, self_n, rate):
    """What is wrong with a Hatchet literal graph against the file: a list
    of roots, each node {"frame": {"name", "type"}, "metrics": {...},
    "children": [...]}, every node the same metrics, inclusive = self +
    the children's inclusive, time = samples / rate, all self samples =
    the file's, each hot function's self samples the file's, under main
    and run_work."""
    bad, keys, total, got_self, under = [], None, 0, dict.fromkeys(HOT, 0), 0
    if not isinstance(doc, list) or not doc:
        return ["not a non-empty list of roots"]
    todo = [(n, ()) for n in doc]
    while todo:
        n, above = todo.pop()
        if not (isinstance(n, dict) and isinstance(n.get("frame"), dict) and isinstance(n.get("metrics"), dict)
                and isinstance(n.get("children"), list)):
            return bad + ["a node without frame, metrics and children: %r" % (n,)]
        f, m = n["frame"], n["metrics"]
        if not isinstance(f.get("name"), str) or f.get("type") != "function":
            bad.append("frame %r: no name or type" % f)
        keys = keys or sorted(m)
        if sorted(m) != keys:
            bad.append("node %s: metrics %s, others %s" % (f.get("name"), sorted(m), keys))
            continue
        inc = m["samples"] + sum(c["metrics"].get("samples (inc)", 0) for c in n["children"])
        if m["samples (inc)"] != inc or m["samples"] < 0:
            bad.append("node %s: inclusive %s, self + children %s" % (f["name"], m["samples (inc)"], inc))
        if abs(m["time"] - m["samples"] / rate) > 1e-9 or abs(m["time (inc)"] - m["samples (inc)"] / rate) > 1e-9:
            bad.append("node %s: time is not samples / rate" % f["name"])
        total += m["samples"]
        if f["name"] in got_self:
            got_self[f["name"]] += m["samples"]
            names = above + (f["name"],)
            under += m["samples"] if "run_work" in names and "main" in names[:names.index("run_work")] else 0
        todo.extend((c, above + (f["name"],)) for c in n["children"])
    if keys != ["samples", "samples (inc)", "time", "time (inc)"]:
        bad.append("metrics %s" % keys)
    if total != sum(per.values()):
        bad.append("self samples in all %d, the file's %d" % (total, sum(per.values())))
    if got_self != self_n:
        bad.append("self samples %s, the file's %s" % (got_self, self_n))
    if under < 0.95 * sum(self_n.values()):
        bad.append("hot samples under main and run_work: %d of %d" % (under, sum(self_n.values())))
    return bad


def hatchet_check(path, per, self_n, rate):
    doc = json.loads(export(path, "hatchet", "out.hatchet.json"))
    bad = hatchet_problems(doc, per, self_n, rate)
    check(not bad, "hatchet: %s" % "; ".join(bad[:5]))
    # self-test: a leaf's self samples changed is seen
    leaf = doc[0]
    while leaf["children"]:
        leaf = leaf["children"][0]
    leaf["metrics"]["samples"] += 1
    check(hatchet_problems(doc, per, self_n, rate), "self-test: a changed Hatchet node is seen")
    leaf["metrics"]["samples"] -= 1
    try:
        import hatchet as ht
    except ImportError:
        print("hatchet: %d roots, structure and sums checked here (no hatchet package)" % len(doc))
        return
    gf = ht.GraphFrame.from_literal(doc)
    check(int(gf.dataframe["samples"].sum()) == sum(per.values()), "hatchet: GraphFrame.from_literal's samples")


def png_check(path, per, self_n):
    """tally-report --plot DIR: DIR/flamegraph.png decodes, is not blank;
    its figure's bars (flamegraph_png.figure, each bar's gid "flame <id>
    <samples>") are as wide as their samples: the 'all' bar the file's
    samples, hot_inline's bars its self samples (a leaf); and in the
    picture hot_inline's colour spans its share of the 'all' bar's pixel
    columns (within 2 points)."""
    import numpy as np
    from PIL import Image
    r = subprocess.run([sys.executable, "-m", "tally", path, "--plot", "plots"],
                       env=dict(os.environ, PYTHONPATH=PYPATH), capture_output=True, text=True, timeout=120)
    png = os.path.join("plots", "flamegraph.png")
    check(r.returncode == 0 and os.path.exists(png), "tally-report --plot: flamegraph.png (exit %d %s)"
          % (r.returncode, r.stderr.strip()[-300:]))
    if not os.path.exists(png):
        return
    img = np.asarray(Image.open(png).convert("RGB"), dtype=int)
    check(img.shape[0] > 100 and img.shape[1] > 500 and img.std() >= 5.0, "flamegraph.png decodes, not blank %s"
          % (img.shape,))
    from tally import flamegraph, flamegraph_png
    name, fig = flamegraph_png.figure(tally.read(path))
    ax = fig.axes[0]
    bars = {}
    for p in ax.patches:
        if (p.get_gid() or "").startswith("flame "):
            _, nid, n = p.get_gid().split()
            bars[int(nid)] = (int(n), p.get_width(), p.get_facecolor()[:3])
    total = sum(per.values())
    check(bars.get(-1, (0, 0))[:2] == (total, total), "flame PNG: the 'all' bar %s, the file's %d samples"
          % (bars.get(-1), total))
    wrong = [(n, w) for n, w, _ in bars.values() if abs(n - w) > 1e-6 * total]   # matplotlib keeps x0, x1
    check(not wrong, "flame PNG: every bar as wide as its samples (not: %s)" % wrong[:5])
    sp = tally.read(path).table("sample_paths")
    paths = dict(zip(sp["id"], sp["function"]))
    inl = sum(n for nid, (n, _, _) in bars.items() if nid >= 0 and str(paths[nid]) == "hot_inline")
    check(inl == self_n["hot_inline"], "flame PNG: hot_inline's bars %d samples, the file's %d"
          % (inl, self_n["hot_inline"]))
    # the picture: columns holding hot_inline's colour against the 'all' bar's
    colour = np.array([round(255 * c) for c in flamegraph_png._rgb("hot_inline")])
    grey = np.array([200, 200, 200])
    others = {str(paths[nid]) for nid in bars if nid >= 0 and str(paths[nid]) != "hot_inline"}
    if any(flamegraph._colour(o) == flamegraph._colour("hot_inline") for o in others):
        print("flame PNG: another function has hot_inline's colour: pixels not counted")
        return

    def cols(c):   # pixel columns holding colour c
        return int((np.abs(img - c).sum(axis=2) <= 6).any(axis=0).sum())
    share, want = cols(colour) / max(1, cols(grey)), self_n["hot_inline"] / total
    print("flame PNG: hot_inline spans %.1f%% of the columns, %.1f%% of the samples" % (100 * share, 100 * want))
    check(abs(share - want) <= 0.02, "flame PNG: hot_inline's pixels %.3f of the width, samples %.3f" % (share, want))


def main():
    path = sys.argv[1]
    per, self_n, rate = truth(path)
    print("file: samples per (rank, thread) %s, self %s, rate %d" % (per, self_n, rate))
    check(all(v > 0 for v in self_n.values()), "the run has samples in each hot function")
    prof = read_pprof(export(path, "pprof", "out.pb.gz"))
    pprof_check(prof, per, self_n, rate)
    # self-test: the reader sees a changed value
    prof["samples"][0]["values"][0] += 1
    bad = {}
    for s in prof["samples"]:
        key = (s["labels"]["rank"], s["labels"]["thread"])
        bad[key] = bad.get(key, 0) + s["values"][0]
    check(bad != per, "self-test: a changed pprof sample is seen")
    doc = json.loads(export(path, "speedscope", "out.speedscope.json"))
    speedscope_check(doc, per, self_n, rate)
    hatchet_check(path, per, self_n, rate)
    html_check(path, per, self_n)
    png_check(path, per, self_n)
    sys.exit(th.done("exports"))


main()
