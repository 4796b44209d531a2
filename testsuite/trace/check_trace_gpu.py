#!/usr/bin/env python3
"""check_trace_gpu.py - checks of a trace's GPU streams (docs/trace.md),
read with otf2-print like check_trace.py.

Usage: check_trace_gpu.py OTF2PRINT ANCHOR [--kernels N] [--records N]
           [--streams N] [--cupti-dropped N] [--h5 FILE.h5] [--step NAME]
           [--log FILE] [--gpu-dropped N --per-stream N]

- otf2-print reads the archive; GPU streams are the ACCELERATOR_STREAM
  locations, each in an ACCELERATOR location group;
- per GPU stream: times never decrease, each record is an ENTER and its
  LEAVE of the same region, nothing nested, every ENTER carries
  tally::correlation_id;
- every kernel's correlation id is the value of exactly one launch mark
  (METRIC tally::cuda_launch) on a CPU thread's location, the launch
  inside an open region of that thread (the innermost one below the
  thread's root, else, as TALLY_CUDA_SCOPE=process attributes a worker
  thread's launch, thread 0's innermost), and the record starts at or
  after its launch (the GPU runs after the launch; --slack-ns N allows N
  ns of CUPTI's GPU-to-host clock mapping error); copies and memsets
  (no launch callback) carry their correlation id only;
- --kernels/--records/--streams: those counts exactly (kernels: records
  of regions other than "memcpy ...", "memset" and CUPTI's "WaitNs"; with --match S, those
  whose name holds S);
- --step NAME: every kernel launched after the first NAME region began
  was launched inside a NAME region (kernels per step printed);
- --h5 FILE: the kernels equal the gpu_kernels launches of the profile of
  the same run (first metric), in total and per region (the region's
  name at the launch against the row's region leaf);
- --gpu-dropped N --per-stream R: the cap dropped N GPU events in all,
  and per stream the kept events plus its tally::dropped_events are 2 x R
  (else: none dropped);
- --cupti-dropped N: the streams' tally::cupti_dropped_records add up to
  N, and the log (--log) says so (nothing when N is 0).
"""
import argparse
import collections
import re
import subprocess
import sys

EV = re.compile(r'^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$')
REGION = re.compile(r'Region: "(.*?)" <(\d+)>')
LOC = re.compile(r'^LOCATION\s+(\d+)\s+Name: "([^"]*)" <\d+>, Type: (\w+), # Events: (\d+), Group: "([^"]*)" <(\d+)>')
GROUP = re.compile(r'^LOCATION_GROUP\s+(\d+)\s+Name: "([^"]*)" <\d+>, Type: (\w+)')
CORR = re.compile(r'"tally::correlation_id" <\d+>; UINT32; (\d+)')
LAUNCH = re.compile(r'"tally::cuda_launch" <\d+>; UINT64; (\d+)')
PROP = re.compile(r'LOCATION_PROPERTY.*Location: "[^"]*" <(\d+)>, Name: "tally::dropped_events".*Value: (\d+)')
CUPTI = re.compile(r'LOCATION_PROPERTY.*Location: "[^"]*" <(\d+)>, Name: "tally::cupti_dropped_records".*Value: (\d+)')
fails = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        fails.append(msg)


def run(otf2print, *args):
    out = subprocess.run([otf2print, *args], capture_output=True, text=True, check=False)
    check(out.returncode == 0 and "error" not in out.stderr.lower(),
          f"otf2-print {' '.join(args[:-1])} reads the archive ({out.returncode}) {out.stderr[-300:]}")
    return out.stdout


def read(otf2print, anchor):
    locs, groups, dropped, cupti = {}, {}, {}, {}
    for line in run(otf2print, "-G", anchor).splitlines():
        m = LOC.match(line)
        if m:
            locs[int(m.group(1))] = (m.group(2), m.group(3), int(m.group(4)), int(m.group(6)))
        m = GROUP.match(line)
        if m:
            groups[int(m.group(1))] = (m.group(2), m.group(3))
        m = PROP.search(line)
        if m:
            dropped[int(m.group(1))] = int(m.group(2))
        m = CUPTI.search(line)
        if m:
            cupti[int(m.group(1))] = int(m.group(2))
    evs = collections.defaultdict(list)
    last = None
    for line in run(otf2print, anchor).splitlines():
        m = EV.match(line)
        if m:
            last = [m.group(1), int(m.group(3)), m.group(4)]
            evs[int(m.group(2))].append(last)
        elif last is not None and "ADDITIONAL ATTRIBUTES" in line:
            last[2] += " " + line.strip()
    return locs, groups, dropped, cupti, evs


def gpu_records(locs, groups, evs):
    """[(loc, region, start, end, corr)] of every GPU stream, with the stream checks."""
    recs, bad = [], []
    for loc, (name, typ, nev, grp) in locs.items():
        if typ != "ACCELERATOR_STREAM":
            continue
        if groups.get(grp, ("", ""))[1] != "ACCELERATOR":
            bad.append(f"{name}: group {grp} is not an ACCELERATOR group")
        lst = evs.get(loc, [])
        prev, open_ = -1, None
        for kind, ts, rest in lst:
            if ts < prev:
                bad.append(f"{name}: time goes back at {ts}")
            prev = ts
            if kind == "ENTER":
                r, c = REGION.search(rest), CORR.search(rest)
                if open_ is not None or not r or not c:
                    bad.append(f"{name}: ENTER at {ts} nested or without region/correlation id")
                    continue
                open_ = (r.group(1), ts, int(c.group(1)))
            elif kind == "LEAVE":
                r = REGION.search(rest)
                if open_ is None or not r or r.group(1) != open_[0]:
                    bad.append(f"{name}: LEAVE at {ts} without its ENTER")
                    continue
                recs.append((loc, open_[0], open_[1], ts, open_[2]))
                open_ = None
        if open_ is not None:
            bad.append(f"{name}: a record left open")
    check(not bad, f"GPU streams: times never decrease, enter/leave pairs, correlation ids ({bad[:3]})")
    return recs


def launches(locs, evs):
    """corr -> (loc, ts, region stack names at the launch); stacks per CPU location."""
    out, dup, spans = {}, 0, collections.defaultdict(list)
    for loc, (name, typ, nev, grp) in locs.items():
        if typ != "CPU_THREAD":
            continue
        stack = []
        for kind, ts, rest in evs.get(loc, []):
            if kind == "ENTER":
                r = REGION.search(rest)
                stack.append((r.group(1) if r else "?", ts))
            elif kind == "LEAVE" and stack:
                nm, t0 = stack.pop()
                spans[loc].append((nm, t0, ts, len(stack)))
            elif kind == "METRIC":
                m = LAUNCH.search(rest)
                if m:
                    c = int(m.group(1))
                    dup += c in out
                    out[c] = (loc, ts, [s[0] for s in stack], [s[1] for s in stack])
    check(dup == 0, f"each correlation id marks one launch ({dup} repeated)")
    return out, spans


def region_at(launch, main_stack_at):
    """The launch's region: its thread's innermost below the root, else thread 0's innermost."""
    loc, ts, names, _ = launch
    if len(names) > 1:
        return names[-1]
    if (loc & 0xffff) != 0:
        m = main_stack_at(loc >> 16, ts)
        if m:
            return m[-1]
    return names[-1] if names else "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("otf2print")
    ap.add_argument("anchor")
    for a in ("--kernels", "--records", "--streams", "--cupti-dropped", "--gpu-dropped", "--per-stream"):
        ap.add_argument(a, type=int)
    ap.add_argument("--match", help="--kernels counts kernels whose name holds this")
    ap.add_argument("--slack-ns", type=int, default=0,
                    help="a record may start this much before its launch mark (CUPTI's GPU-to-host mapping)")
    ap.add_argument("--h5")
    ap.add_argument("--step")
    ap.add_argument("--log")
    a = ap.parse_args()
    locs, groups, dropped, cupti, evs = read(a.otf2print, a.anchor)
    recs = gpu_records(locs, groups, evs)
    # WaitNs: a kernel CUPTI runs inside a launch while its profiler
    # collects per kernel (docs/trace.md), not one of the program's
    kern = [r for r in recs if not r[1].startswith("memcpy ") and r[1] not in ("memset", "WaitNs")]
    nstreams = sum(1 for v in locs.values() if v[1] == "ACCELERATOR_STREAM")
    print(f"STREAMS {nstreams} RECORDS {len(recs)} KERNELS {len(kern)}")
    la, spans = launches(locs, evs)
    # copies and memsets have no launch callback (the hook sees kernel
    # launches only): only kernels must have their launch mark
    missing = [r for r in kern if r[4] not in la]
    check(bool(recs) or a.records == 0, f"the trace has GPU records ({len(recs)})")
    check(not missing, f"every kernel's correlation id has its launch mark ({len(missing)} without)")
    early = [(r, la[r[4]][1] - r[2]) for r in recs if r[4] in la and r[2] < la[r[4]][1]]
    worst = max((e[1] for e in early), default=0)
    lag = sorted(r[2] - la[r[4]][1] for r in recs if r[4] in la)
    if lag:
        print(f"LAUNCH_TO_START ns: min {lag[0]} median {lag[len(lag) // 2]} max {lag[-1]}")
    check(worst <= a.slack_ns, f"every record starts at or after its launch, within {a.slack_ns} ns "
          f"({len(early)} before; worst {worst} ns)")
    outside = [r for r in recs if r[4] in la and not la[r[4]][2]]
    check(not outside, f"every launch lies inside an open region of its thread ({len(outside)} outside)")

    def main_stack_at(rank, ts):
        return [nm for nm, t0, t1, d in sorted(spans.get(rank << 16, []), key=lambda s: s[3])
                if t0 <= ts <= t1]

    if a.step:
        steps = sorted((t0, t1) for loc, sp in spans.items() for nm, t0, t1, d in sp if nm == a.step)
        check(bool(steps), f"the trace has {len(steps)} '{a.step}' regions")
        per = collections.Counter()
        late = 0
        for r in kern:
            if r[4] not in la:
                continue
            ts = la[r[4]][1]
            hit = [i for i, (t0, t1) in enumerate(steps) if t0 <= ts <= t1]
            if hit:
                per[hit[0]] += 1
            elif steps and ts > steps[0][0]:
                late += 1
        print("KERNELS_PER_STEP", [per[i] for i in range(len(steps))])
        check(late == 0, f"every kernel launched after the first '{a.step}' began is inside a step ({late} not)")
    nk = sum(1 for r in kern if a.match in r[1]) if a.match else len(kern)
    for opt, val, what in ((a.kernels, nk, "kernels" + (f" named *{a.match}*" if a.match else "")), (a.records, len(recs), "records"),
                           (a.streams, nstreams, "GPU streams")):
        if opt is not None:
            check(val == opt, f"{val} {what} in the trace (want {opt})")
    gdrop = {k: v for k, v in dropped.items() if locs.get(k, ("", ""))[1] == "ACCELERATOR_STREAM"}
    if a.gpu_dropped is None:
        check(not any(gdrop.values()), f"no GPU record dropped by the cap ({sum(gdrop.values())})")
    else:
        # per stream, kept + dropped = 2 x its records (the cap counts events)
        check(sum(gdrop.values()) == a.gpu_dropped and all(
            locs[k][2] - sum(1 for e in evs.get(k, []) if e[0] == "BUFFER_FLUSH") + v == 2 * a.per_stream
            for k, v in gdrop.items()),
            f"GPU events dropped by the cap: {sum(gdrop.values())} (want {a.gpu_dropped}); kept + dropped = "
            f"2 x {a.per_stream} per stream")
    if a.cupti_dropped is not None:
        nstream = sum(1 for v in locs.values() if v[1] == "ACCELERATOR_STREAM")
        check(len(cupti) == nstream and sum(cupti.values()) == a.cupti_dropped,
              f"tally::cupti_dropped_records of the {len(cupti)} streams: {sum(cupti.values())} "
              f"(want {a.cupti_dropped})")
    if a.cupti_dropped is not None and a.log:
        text = open(a.log, errors="replace").read()
        m = re.search(r"CUPTI dropped (\d+) GPU activity records", text)
        said = int(m.group(1)) if m else 0
        check(said == a.cupti_dropped, f"the log says CUPTI dropped {said} records (want {a.cupti_dropped})")
    if a.h5:
        import os   # pylint: disable=import-outside-toplevel
        sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis")))
        import tally   # pylint: disable=import-outside-toplevel  (tally.raw: the rows as stored)

        def s(x):
            return x.decode() if isinstance(x, bytes) else str(x)
        with tally.raw(a.h5) as f:
            k = f.get("gpu_kernels")
            k = [] if k is None else k
            first = s(k[0]["metric"]) if len(k) else ""
            want = collections.Counter()
            for r in k:
                if s(r["metric"]) == first:
                    want[s(r["region"]).split("/")[-1].strip()] += int(r["launches"])
        got = collections.Counter(region_at(la[r[4]], main_stack_at) for r in kern if r[4] in la)
        check(len(kern) == sum(want.values()),
              f"{len(kern)} kernels in the trace = {sum(want.values())} gpu_kernels launches of the profile")
        diff = {n: (got[n], want[n]) for n in set(got) | set(want) if got[n] != want[n]}
        print("KERNELS_PER_REGION", dict(sorted(got.items())[:12]))
        check(not diff, f"kernels per launching region equal the profile's launches ({diff})")
    if fails:
        print(f"check_trace_gpu: {len(fails)} check(s) failed")
        return 1
    print("check_trace_gpu: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
