#!/usr/bin/python3
"""check_nvtx_file.py FILE.h5 APP_STDOUT [filtered] - nvtx_app's job file
against what it submitted: payload rows field by field, the dynamic
schema's arrays, the deferred batch's converted times (within 1 us), nested
range visits and inclusive time/counters >= the children's, start/end
ranges across threads, names, marks.  `filtered`: the run had
TALLY_NVTX_DOMAINS=-app, so nothing of the domain "app" may be recorded.
Read with tally.raw (TLY_TEST_PYTHONPATH names the package)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


f = tally.raw(sys.argv[1])
if len(sys.argv) > 3 and sys.argv[3] == "mpi":
    # nvtx_mpi_app, 2 ranks: rank r pushed r + 1 rows {who = r, v = r + 0.5 k}
    rows = sorted((int(x["rank"]), float(x["v"]), int(x["who"]), int(x["event"])) for x in f["nvtx/payloads/pr"][:])
    want = sorted((r, r + 0.5 * k, r, 1) for r in range(2) for k in range(r + 1))
    check(rows == want, f"pr rows {rows} != {want}")
    check("nvtx/payloads/text" not in f, "variable-length table left out in parallel")
    per = sorted((int(x["rank"]), s(x["table"]), int(x["rows"])) for x in f["nvtx_schemas"][:])
    check(per == [(0, "pr", 1), (0, "text", 1), (1, "pr", 2), (1, "text", 2)], f"nvtx_schemas {per}")
    check(int(f.attrs["nranks"]) == 2, "2 ranks")
    sys.exit(done("check_nvtx_file"))
lines = [ln.split() for ln in open(sys.argv[2]) if ln.strip()]
filtered = len(sys.argv) > 3 and sys.argv[3] == "filtered"
regions = {int(r["id"]): r for r in f["regions"][:]}
name_of = {i: s(r["name"]) for i, r in regions.items()}
stats = {int(r["region"]): r for r in f["region_stats"][:] if int(r["thread"]) == 0}

def payload_checks():
    # -- payload struct: ints, floats, string, enum, nested struct, fixed array
    outer = f["nvtx/payloads/outer"][:]
    want = [ln for ln in lines if ln[0] == "outer"]
    check(len(outer) == len(want) == 3, f"outer rows {len(outer)} != {len(want)}")
    color = f.enum("nvtx/payloads/outer", "color")
    check(color == {"red": 1, "green": 2, "blue": 7}, f"color enum {color}")
    for row, w in zip(outer, want):
        i, u, fl, d, msg, col, ia, ib, a0, a1, a2 = w[1:]
        check(int(row["i"]) == int(i), f"i {row['i']} != {i}")
        check(int(row["u"]) == int(u), f"u {row['u']} != {u}")
        check(np.float32(row["f"]) == np.float32(float.fromhex(fl)), f"f {row['f']!r} != {fl}")
        check(float(row["d"]) == float.fromhex(d), f"d {row['d']!r} != {d}")
        check(s(row["s"]) == msg, f"s {row['s']} != {msg}")
        check(int(row["color"]) == int(col), f"color {row['color']} != {col}")
        check(int(row["in"]["a"]) == int(ia), f"in.a {row['in']['a']} != {ia}")
        check(float(row["in"]["b"]) == float.fromhex(ib), f"in.b {row['in']['b']} != {ib}")
        check(list(row["arr"]) == [int(a0), int(a1), int(a2)], f"arr {list(row['arr'])}")
        check(int(row["event"]) == 1, f"event {row['event']} != 1 (push)")
        # the range is named after the payload's event-message entry
        check(name_of.get(int(row["region"])) == "app::" + msg, f"region {row['region']} is not app::{msg}")
        check(int(stats[int(row["region"])]["visits"]) == 1, f"visits of app::{msg}")

    # -- dynamic schema, length-indexed array and zero-terminated string
    dyn = f["nvtx/payloads/dyn"][:]
    want = [ln for ln in lines if ln[0] == "dyn"]
    check(len(dyn) == len(want) == 2, f"dyn rows {len(dyn)} != {len(want)}")
    for row, w in zip(dyn, want):
        n = int(w[1])
        check(int(row["n"]) == n, f"dyn n {row['n']} != {n}")
        check([float(x) for x in row["vals"]] == [float.fromhex(x) for x in w[2:2 + n]], f"dyn vals {row['vals']}")
        check(s(row["tag"]) == w[2 + n], f"dyn tag {row['tag']} != {w[2 + n]}")
        check(int(row["event"]) == 0, "dyn event is a mark")

    # -- deferred batch: custom time domain, two sync points
    ev = f["nvtx/payloads/gpu_events"][:]
    want = [ln for ln in lines if ln[0] == "deferred"]
    check(len(ev) == len(want) == 3, f"deferred rows {len(ev)} != {len(want)}")
    for row, w in zip(ev, want):
        check(int(row["tag"]) == int(w[1]), f"tag {row['tag']} != {w[1]}")
        check(int(row["event"]) == 5, "event is deferred")
        check(abs(int(row["time_ns"]) - int(w[2])) <= 1000, f"time_ns {row['time_ns']} vs {w[2]} (> 1 us)")
        check(abs(int(row["end_ns"]) - int(w[3])) <= 1000, f"end_ns {row['end_ns']} vs {w[3]} (> 1 us)")

    # -- schemas listed with their row counts
    sch = {s(r["table"]): r for r in f["nvtx_schemas"][:]}
    for t, n in (("outer", 3), ("dyn", 2), ("gpu_events", 3), ("inner", 0)):
        check(t in sch and int(sch[t]["rows"]) == n, f"nvtx_schemas {t} rows")
    check(int(sch["dyn"]["type"]) == 2, "dyn is a dynamic schema")


def filtered_checks():
    check(["enabled", "0"] in lines, "nvtxDomainIsEnabled(app) answered 0")
    for t in ("outer", "dyn", "gpu_events"):
        n = len(f["nvtx/payloads/" + t]) if "nvtx/payloads/" + t in f else 0
        check(n == 0, f"{t}: {n} rows of a filtered domain")
    check(not any(v.startswith("app::") for v in name_of.values()), "no app:: region")


if filtered:
    filtered_checks()
else:
    check(["enabled", "1"] in lines, "nvtxDomainIsEnabled(app) answered 1")
    payload_checks()

# -- nested push/pop ranges: exact visits, inclusive >= children
by = {(int(r["parent"]), s(r["name"])): i for i, r in regions.items()}
out_id = by.get((0, "outer"))
in_id = by.get((out_id, "inner"))
check(out_id is not None and in_id is not None, "outer/inner regions exist")
if out_id is not None and in_id is not None:
    so, si = stats[out_id], stats[in_id]
    check(int(so["visits"]) == 5, f"outer visits {so['visits']} != 5")
    check(int(si["visits"]) == 15, f"inner visits {si['visits']} != 15")
    check(int(regions[out_id]["kind"]) == 7 and int(regions[in_id]["kind"]) == 7, "NVTX region kind 7")
    check(int(so["incl_ns"]) >= int(si["incl_ns"]) > 0, f"outer incl {so['incl_ns']} < inner {si['incl_ns']}")
    nev = len(f["events"])
    check(nev > 0, "counters recorded (events table not empty)")
    for k in range(nev):
        ename = s(f["events"][k]["name"])
        check(int(so["counters"][k]) >= int(si["counters"][k]) >= 0,
              f"{ename}: outer {so['counters'][k]} < inner {si['counters'][k]}")
        if "TASK-CLOCK" in ename or ename in ("PAPI_TOT_CYC", "PAPI_TOT_INS"):
            check(int(si["counters"][k]) > 0, f"{ename} of inner is 0")
    root = stats[0]
    check(int(root["incl_ns"]) >= int(so["incl_ns"]), "root incl >= outer")

marks = [s(m["message"]) for m in f["nvtx_marks"][:]]
check("done" in marks and "mark" in marks, f"marks 'done', 'mark' in {marks}")

# -- core forms: start/end range ended on another thread, names, messages
rg = [r for r in f["nvtx_ranges"][:] if s(r["message"]) == "async"]
check(len(rg) == 1, f"one 'async' start/end range ({len(rg)})")
if rg:
    check(int(rg[0]["start_thread"]) == 0 and int(rg[0]["end_thread"]) == 1,
          f"async started on thread 0, ended on 1: {rg[0]['start_thread']} {rg[0]['end_thread']}")
    check(int(rg[0]["end_ns"]) >= int(rg[0]["start_ns"]) > 0, "async end >= start")
names = [(int(x["kind"]), int(x["id"]), s(x["name"])) for x in f["nvtx_names"][:]]
check((0, 3, "io") in names, f"category 3 named io in {names}")
wide = by.get((0, "wide \u00e9"))
check(wide is not None and int(stats[wide]["visits"]) == 1, "wide-string range")
reg = by.get((0, "app::registered"))
if filtered:
    check(reg is None, "no app::registered region")
else:
    check(reg is not None and int(stats[reg]["visits"]) == 1, "registered-string range of domain app")
sys.exit(done("check_nvtx_file"))
