#!/usr/bin/env python3
"""check_perfetto.py - a structural check of Chrome Trace Event JSON (what
tally-report --trace-export perfetto writes), written against the Trace
Event Format document (Google, "Trace Event Format", the JSON Object
Format):

- the file is a JSON object whose traceEvents is a list of objects;
- every event has a known ph; pid and tid are integers; ts is a number
  (metadata events M aside); B, X, i, C, s, f and M events have a name;
- duration events: per (pid, tid) every E closes the latest open B, no B
  stays open, and times on a track never decrease;
- flow events: s and f share cat, name and id, one s and one f per id,
  the f not before its s, and each binds to a slice open on its own track
  at its time (s: the enclosing slice; f with bp "e": the enclosing one);
- counter events C carry args of numbers; instant events i a scope s;
- metadata M names processes and threads with args.name.

Usage: check_perfetto.py FILE.json [MIN_FLOWS]
"""
import bisect
import collections
import json
import numbers
import sys

PH = set("BEXiICsftfMbeNODnPpRc(") | {"M"}
fails = []


def check(ok, msg):
    if not ok and len(fails) < 50:
        fails.append(msg)


def main():
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
    min_flows = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list), "no traceEvents list")
    evs = doc.get("traceEvents", [])
    tracks = collections.defaultdict(list)
    flows = collections.defaultdict(list)
    for i, e in enumerate(evs):
        ph = e.get("ph")
        check(isinstance(e, dict) and ph in PH, "event %d: ph %r" % (i, ph))
        check(isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int), "event %d: pid/tid" % i)
        if ph != "M":
            check(isinstance(e.get("ts"), numbers.Number), "event %d: ts %r" % (i, e.get("ts")))
        if ph in ("B", "X", "i", "C", "s", "f", "M"):
            check(isinstance(e.get("name"), str) and e["name"], "event %d (%s): no name" % (i, ph))
        if ph == "M":
            check(e.get("name") in ("process_name", "thread_name", "process_sort_index", "thread_sort_index",
                                    "process_labels") and isinstance(e.get("args", {}).get("name", ""), (str, int)),
                  "event %d: metadata %r" % (i, e.get("name")))
        elif ph == "C":
            check(isinstance(e.get("args"), dict) and e["args"]
                  and all(isinstance(v, numbers.Number) for v in e["args"].values()), "event %d: counter args" % i)
        elif ph == "i":
            check(e.get("s", "t") in ("g", "p", "t"), "event %d: instant scope" % i)
        elif ph == "X":
            check(isinstance(e.get("dur"), numbers.Number) and e["dur"] >= 0, "event %d: dur" % i)
        if ph in ("B", "E", "X", "s", "f", "i", "C"):
            tracks[(e.get("pid"), e.get("tid"))].append((i, e))
        if ph in ("s", "f"):
            check("id" in e, "event %d: flow without id" % i)
            flows[(e.get("cat"), e.get("name"), e.get("id"))].append(e)
    slices = {}
    nslices = 0
    for key, lst in tracks.items():
        # events of one track in file order; B/E must be ordered in time
        stack, last, spans = [], None, []
        for i, e in lst:
            if e["ph"] in ("B", "E"):
                check(last is None or e["ts"] >= last, "track %s: time goes back at event %d" % (key, i))
                last = e["ts"]
            if e["ph"] == "B":
                stack.append(e)
            elif e["ph"] == "E":
                check(stack, "track %s: E without B (event %d)" % (key, i))
                if stack:
                    b = stack.pop()
                    check(e["ts"] >= b["ts"], "track %s: E before its B" % (key,))
                    spans.append((b["ts"], e["ts"]))
            elif e["ph"] == "X":
                spans.append((e["ts"], e["ts"] + e["dur"]))
        check(not stack, "track %s: %d B without E" % (key, len(stack)))
        slices[key] = spans
        nslices += len(spans)

    # inside a slice: the latest end among the slices that begin at or
    # before the time reaches it (spans sorted by begin, running maximum of ends)
    index = {}
    for key, spans in slices.items():
        spans.sort()
        ends, m = [], float("-inf")
        for _, x in spans:
            m = max(m, x)
            ends.append(m)
        index[key] = ([b for b, _ in spans], ends)

    def inside(e):
        begins, ends = index.get((e["pid"], e["tid"]), ([], []))
        k = bisect.bisect_right(begins, e["ts"]) - 1
        return k >= 0 and ends[k] >= e["ts"]

    for key, lst in flows.items():
        phs = sorted(x["ph"] for x in lst)
        check(phs == ["f", "s"], "flow %s: %s (want one s and one f)" % (key, phs))
        if phs == ["f", "s"]:
            s = next(x for x in lst if x["ph"] == "s")
            f = next(x for x in lst if x["ph"] == "f")
            check(f["ts"] >= s["ts"], "flow %s: ends before it starts" % (key,))
            check(inside(s), "flow %s: its start binds to no slice" % (key,))
            check(f.get("bp") == "e" and inside(f), "flow %s: its end binds to no enclosing slice" % (key,))
    check(len(flows) >= min_flows, "%d flows, want at least %d" % (len(flows), min_flows))
    print("perfetto: %d events, %d tracks, %d slices, %d flows" % (len(evs), len(tracks), nslices, len(flows)))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
