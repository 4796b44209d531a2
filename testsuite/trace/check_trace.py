#!/usr/bin/env python3
"""check_trace.py - checks of a trace TALLY_TRACE wrote, against the
profile of the same run (read with tally.read) and against what the test
program says it did.

Usage: check_trace.py OTF2PRINT FILE.h5 [--capped] [--user-events N] [--mpi]
                      [--exclude NAME] [--min-ns N] [--threads N]
                      [--kinds WORDS] [--reqs N]

- otf2-print reads the archive (events and global definitions);
- per location, times never decrease and enters and leaves nest;
- per location and region, enters == leaves == the profile's visits
  (not with --capped: then the kept events plus the location's
  tally::dropped_events equal 2 x the profile's visits, exactly);
- --user-events N: the program's own count of its region enters and
  leaves equals 2 x the profile's visits of user regions;
- --mpi: every send (MPI_SEND / MPI_ISEND) has its receive (MPI_RECV /
  MPI_IRECV) with the same sender, receiver, tag and length, and the
  other way round; collectives begin and end in pairs;
- --colls B,N: each rank's thread 0 has B collectives (ends) in all, N of
  them inside an MPI_Wait* call (the non-blocking ones, recorded where
  they complete);
- --persistent N: N messages of tag 7777 and 32 bytes (trace_ring's
  persistent requests, one per MPI_Start), each with its receive;
- --exclude NAME: no region on a path through NAME is in the trace, every
  other region's enters still equal its visits;
- --min-ns N: every traced region with no event inside lasts N ns or more;
- the archive's region paths (OTF2 canonical names) equal the .h5's;
- --threads N: the profile has N threads and the trace N locations;
- --metrics: each location has counter values (METRIC events), and each
  counter's values never decrease (they count since the thread's start);
- --kinds WORDS (TALLY_TRACE_KINDS): the archive's property
  TALLY::TRACE_KINDS (otf2-print -I) is WORDS, no region of another kind is in the trace
  (nor MPI messages and collectives without mpi), and every region of
  these kinds has enters == leaves == visits;
- --reqs N: each rank's thread 0 made N receive and N send requests
  pending at once (trace_ring's FLOOD) and nothing else of the kind: its
  MPI_IRECV_REQUEST, MPI_IRECV, MPI_ISEND and MPI_ISEND_COMPLETE records
  are 4 N exactly, none dropped (the trace's request map grows);
- --elsewhere N: each rank's thread 0 posted N receives and N sends that
  another thread completed (trace_mt): that thread has the N receives as
  MPI_RECV, and the rank's tally::dropped_events are 2 N exactly (the
  MPI_IRECV and MPI_ISEND_COMPLETE the posting location cannot have);
- --freed N: each rank's thread 0 freed N pending sends (MPI_Request_free,
  trace_ring): its tally::dropped_events are N exactly (their
  MpiIsendComplete, unseen), the only ones dropped;
- every location's root region "(thread)" lasts in the trace exactly the
  profile's time of it (incl_ns).
"""
import collections
import re
import subprocess
import sys

import tally

KIND_WORDS = {1: "user", 2: "mpi", 3: "openmp", 4: "openmp", 5: "openmp", 6: "openmp", 7: "nvtx"}
REQ_KINDS = ("MPI_IRECV_REQUEST", "MPI_IRECV", "MPI_ISEND", "MPI_ISEND_COMPLETE")
EV = re.compile(r'^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$')
REGION = re.compile(r'Region: "[^"]*" <(\d+)>')
FIELD = re.compile(r'(\w[\w ]*?): (?:"[^"]*" )?<?(\d+)>?(?:,|$)')
RPATH = re.compile(r'^REGION\s+(\d+)\s+Name: "[^"]*" <\d+> \(Aka\. "([^"]*)"')
PROP = re.compile(r'LOCATION_PROPERTY.*Location: "[^"]*" <(\d+)>, Name: "tally::dropped_events".*Value: (\d+)')
fails = []


def check(ok, msg):
    if not ok:
        fails.append(msg)


def fields(rest):
    """'Receiver: 1, Communicator: "MPI_COMM_WORLD" <0>, Tag: 3, Length: 8' -> dict"""
    out = {}
    for part in rest.split(", "):
        if ": " in part:
            k, v = part.split(": ", 1)
            m = re.search(r'<(\d+)>\s*$', v) or re.match(r'(\d+)', v)
            if m:
                out[k.strip()] = int(m.group(1))
    return out


def read_events(otf2print, anchor):
    out = subprocess.run([otf2print, anchor], capture_output=True, text=True, check=False)
    check(out.returncode == 0 and "error" not in out.stderr.lower(),
          "otf2-print failed (%d): %s" % (out.returncode, out.stderr[-500:]))
    evs = collections.defaultdict(list)
    for line in out.stdout.splitlines():
        m = EV.match(line)
        if m:
            evs[int(m.group(2))].append((m.group(1), int(m.group(3)), m.group(4)))
    return evs


def read_dropped(otf2print, anchor):
    """(tally::dropped_events per location, region paths by id)"""
    out = subprocess.run([otf2print, "-G", anchor], capture_output=True, text=True, check=False)
    check(out.returncode == 0, "otf2-print -G failed: %s" % out.stderr[-500:])
    paths = {int(m.group(1)): m.group(2) for m in map(RPATH.match, out.stdout.splitlines()) if m}
    return {int(m.group(1)): int(m.group(2)) for m in map(PROP.search, out.stdout.splitlines()) if m}, paths


def archive_property(otf2print, anchor, name):
    """A property of the anchor file (otf2-print -I: 'Property name' and
    'Property value' lines), None when absent."""
    out = subprocess.run([otf2print, "-I", anchor], capture_output=True, text=True, check=False)
    at = None
    for line in out.stdout.splitlines():
        if line.startswith("Property name"):
            at = line[len("Property name"):].strip()
        elif line.startswith("Property value") and at == name:
            return line[len("Property value"):].strip()
    return None


def thread_times(evs, paths):
    """per location: the root's (thread) duration in the trace (first enter to its leave)."""
    roots = {r for r, p in paths.items() if p == "(thread)"}
    out = {}
    for loc, lst in evs.items():
        t0 = None
        for kind, ts, rest in lst:
            m = REGION.search(rest) if kind in ("ENTER", "LEAVE") else None
            if m and int(m.group(1)) in roots:
                if kind == "ENTER":
                    t0 = ts
                elif t0 is not None:
                    out[loc] = ts - t0
    return out


def per_location(evs, min_ns=0):
    """enters/leaves per (loc, region); checks order and nesting."""
    enters, leaves = collections.Counter(), collections.Counter()
    for loc, lst in evs.items():
        last, stack, prev = -1, [], None
        for kind, ts, rest in lst:
            if min_ns and kind == "LEAVE" and prev and prev[0] == "ENTER":
                check(ts - prev[1] >= min_ns, "location %d: a region of %d ns traced (min %d)" % (loc, ts - prev[1], min_ns))
            prev = (kind, ts)
            check(ts >= last, "location %d: time goes back %d -> %d at %s" % (loc, last, ts, kind))
            last = max(last, ts)
            if kind in ("ENTER", "LEAVE"):
                reg = int(REGION.search(rest).group(1))
                if kind == "ENTER":
                    stack.append(reg)
                    enters[(loc, reg)] += 1
                else:
                    check(stack and stack[-1] == reg, "location %d: leave of %d, open %s" % (loc, reg, stack[-3:]))
                    stack and stack.pop()
                    leaves[(loc, reg)] += 1
        check(not stack, "location %d: regions left open %s" % (loc, stack))
    return enters, leaves


def check_metrics(evs):
    n = 0
    for loc, lst in evs.items():
        last = {}
        vals = [rest for kind, _, rest in lst if kind == "METRIC"]
        check(vals, "location %d: no counter values" % loc)
        for rest in vals:
            for name, v in re.findall(r'\("([^"]+)" <\d+>; INT64; (-?\d+)\)', rest):
                check(int(v) >= last.get(name, 0), "location %d: %s goes back %d -> %s" % (loc, name, last.get(name, 0), v))
                last[name] = int(v)
                n += 1
    return n


def check_mpi(evs, colls=None, persist=None):
    sends, recvs = collections.Counter(), collections.Counter()
    coll = collections.Counter()
    nsend = 0
    for loc, lst in evs.items():
        rank = loc >> 16
        stack = []
        for kind, _, rest in lst:
            f = fields(rest)
            if kind == "ENTER":
                m = re.search(r'Region: "([^"]*)"', rest)
                stack.append(m.group(1) if m else "?")
            elif kind == "LEAVE" and stack:
                stack.pop()
            if kind == "MPI_COLLECTIVE_END":
                coll[(loc, "in_wait")] += bool(stack) and stack[-1].startswith("MPI_Wait")
            if kind in ("MPI_SEND", "MPI_ISEND"):
                check(all(k in f for k in ("Receiver", "Tag", "Length")), "location %d: %s %s" % (loc, kind, rest))
                sends[(rank, f.get("Receiver"), f.get("Tag"), f.get("Length"))] += 1
                nsend += 1
            elif kind in ("MPI_RECV", "MPI_IRECV"):
                check(all(k in f for k in ("Sender", "Tag", "Length")), "location %d: %s %s" % (loc, kind, rest))
                recvs[(f.get("Sender"), rank, f.get("Tag"), f.get("Length"))] += 1
            elif kind.startswith("MPI_COLLECTIVE_"):
                coll[(loc, kind)] += 1
    check(nsend > 0, "no MPI sends in the trace")
    if persist is not None:   # trace_ring's persistent requests: tag 7777, 32 bytes, started each round
        got = sum(v for k, v in sends.items() if k[2] == 7777 and k[3] == 32)
        check(got == persist, "%d persistent-request messages (tag 7777), want %d" % (got, persist))
        print("PERSISTENT %d messages from MPI_Start, each matched by its receive" % got)
    check(sends == recvs, "sends without receives %s; receives without sends %s"
          % (list((sends - recvs).items())[:5], list((recvs - sends).items())[:5]))
    for (loc, kind), n in list(coll.items()):
        if kind == "MPI_COLLECTIVE_BEGIN":
            check(coll[(loc, "MPI_COLLECTIVE_END")] == n, "location %d: collective begins and ends differ" % loc)
    if colls:
        want_all, want_wait = colls
        for loc in evs:
            if loc & 0xffff == 0:
                got = (coll[(loc, "MPI_COLLECTIVE_END")], coll[(loc, "in_wait")])
                check(got == (want_all, want_wait), "location %d: %d collectives, %d in MPI_Wait* (want %d, %d)"
                      % (loc, got[0], got[1], want_all, want_wait))
        print("COLLECTIVES per rank %d, non-blocking (in MPI_Wait*) %d" % (want_all, want_wait))
    return nsend


def check_elsewhere(evs, dropped, n):
    """trace_mt: requests of thread 0 completed on another thread of its rank."""
    for rank in sorted({loc >> 16 for loc in evs}):
        locs = [loc for loc in evs if loc >> 16 == rank]
        other = [loc for loc in locs if loc & 0xffff]
        recvs = sum(1 for loc in other for k, _, rest in evs[loc] if k == "MPI_RECV" and fields(rest).get("Tag") == 5)
        d = sum(dropped.get(loc, 0) for loc in locs)
        check(recvs == n and d == 2 * n, "rank %d: %d receives on the completing thread, %d dropped; want %d and %d"
              % (rank, recvs, d, n, 2 * n))
        for loc in other:   # counted there; the rest must be none
            dropped[loc] = dropped.get(loc, 0) - d
            d = 0
    print("ELSEWHERE %d receives per rank written where they completed, %d records counted dropped" % (n, 2 * n))


def main():
    args = sys.argv[1:]
    otf2print, h5 = args[0], args[1]
    capped, mpi = "--capped" in args, "--mpi" in args
    user = int(args[args.index("--user-events") + 1]) if "--user-events" in args else None
    excl = args[args.index("--exclude") + 1] if "--exclude" in args else None
    min_ns = int(args[args.index("--min-ns") + 1]) if "--min-ns" in args else 0
    anchor = h5[:-3] + ".trace/traces.otf2"
    run = tally.read(h5, stored_tree=True)   # the threads' trees as the runtime wrote them
    st, regs = run.tables["region_stats"], run.tables["regions"]
    kinds = dict(zip(regs["id"].astype(int), regs["kind"].astype(int)))
    visits = collections.Counter()
    for r, th, reg, v in zip(st["rank"], st["thread"], st["region"], st["visits"]):
        visits[((int(r) << 16) | int(th), int(reg))] += int(v)
    evs = read_events(otf2print, anchor)
    dropped, opaths = read_dropped(otf2print, anchor)
    enters, leaves = per_location(evs, min_ns)
    paths = dict(zip(regs["id"].astype(int), regs["path"].astype(str)))
    # the archive's region paths (canonical names) are the .h5's, spelled the same
    diff = [(r, opaths.get(r), p) for r, p in paths.items() if opaths.get(r) != p]
    check(not diff, "%d region paths differ between the archive and the .h5, e.g. %s" % (len(diff), diff[:2]))
    if excl:   # left out of the trace: not in it at all, the others exact
        out = {r for r, p in paths.items() if excl in p.split(" / ")}
        check(out, "no region %s in the profile" % excl)
        check(not any(r in out for (_, r) in enters), "excluded region %s traced" % excl)
        visits = collections.Counter({k: v for k, v in visits.items() if k[1] not in out})
    kinds_arg = args[args.index("--kinds") + 1] if "--kinds" in args else None
    if kinds_arg is not None:   # TALLY_TRACE_KINDS: the others absent, these exact
        prop = archive_property(otf2print, anchor, "TALLY::TRACE_KINDS")
        check(prop == kinds_arg, "archive property TALLY::TRACE_KINDS %r, want %r" % (prop, kinds_arg))
        want = set(kinds_arg.split(","))
        out = {r for r, k in kinds.items() if k in KIND_WORDS and KIND_WORDS[k] not in want}
        check(out, "no region of a kind left out (%s) in the profile" % kinds_arg)
        got = collections.Counter(KIND_WORDS[kinds[r]] for (_, r) in enters if r in out)
        check(not got, "regions of kinds left out traced: %s" % dict(got))
        if "mpi" not in want:
            msgs = sum(1 for lst in evs.values() for k, _, _ in lst if k.startswith("MPI_"))
            check(msgs == 0, "%d MPI message/collective records without the kind mpi" % msgs)
        visits = collections.Counter({k: v for k, v in visits.items() if k[1] not in out})
        print("KINDS %s: %d regions of the other kinds left out, %d traced regions exact"
              % (kinds_arg, len(out), len({r for (_, r) in visits})))
    reqs = int(args[args.index("--reqs") + 1]) if "--reqs" in args else None
    if reqs is not None:   # the request records kept plus those counted dropped: all made
        for loc, lst in evs.items():
            if loc & 0xffff:
                continue
            kept = sum(1 for k, _, _ in lst if k in REQ_KINDS)
            d = dropped.get(loc, -1)
            check(kept == 4 * reqs and d == 0, "location %d: %d request records kept, %d dropped, want %d and 0"
                  % (loc, kept, d, 4 * reqs))
        print("REQUESTS %d pending per rank: %d request records per location, none dropped" % (reqs, 4 * reqs))
    if "--elsewhere" in args:
        check_elsewhere(evs, dropped, int(args[args.index("--elsewhere") + 1]))
    if "--freed" in args:
        nfreed = int(args[args.index("--freed") + 1])
        for loc in evs:
            if loc & 0xffff:
                continue
            check(dropped.get(loc, -1) == nfreed, "location %d: %s dropped, want the %d freed sends' ends"
                  % (loc, dropped.get(loc), nfreed))
            dropped[loc] = dropped.get(loc, 0) - nfreed
        print("FREED %d sends per rank freed pending: their ends counted dropped, nothing else" % nfreed)
    check(len(evs) == len({loc for loc, _ in visits}),
          "%d locations in the trace, %d threads in the profile" % (len(evs), len({loc for loc, _ in visits})))
    if "--threads" in args:
        want = int(args[args.index("--threads") + 1])
        nthr = len({loc for loc, _ in visits})
        check(nthr == want and len(evs) == want, "%d threads in the profile, %d locations in the trace, want %d"
              % (nthr, len(evs), want))
    if not capped and not min_ns:
        for key in set(visits) | set(enters):
            check(enters[key] == visits[key] and leaves[key] == visits[key],
                  "location %d region %d: %d enters, %d leaves, %d visits"
                  % (key[0], key[1], enters[key], leaves[key], visits[key]))
        check(sum(dropped.values()) == 0, "events dropped without a cap: %s" % dropped)
    times = thread_times(evs, paths)
    prof = {}
    for r, th, reg, ns in zip(st["rank"], st["thread"], st["region"], st["incl_ns"]):
        if paths.get(int(reg)) == "(thread)":
            prof[(int(r) << 16) | int(th)] = int(ns)
    bad = [(loc, times.get(loc), ns) for loc, ns in prof.items() if loc in evs and times.get(loc) != ns]
    check(not bad, "%d locations whose (thread) lasts otherwise in the trace than in the profile "
          "(location, trace ns, profile ns): %s" % (len(bad), bad[:4]))
    for loc in evs if not (excl or min_ns) else []:
        kept = sum(n for (l, _), n in enters.items() if l == loc) + sum(n for (l, _), n in leaves.items() if l == loc)
        made = 2 * sum(v for (l, _), v in visits.items() if l == loc)
        check(kept + dropped.get(loc, -1) == made,
              "location %d: %d kept + %s dropped != %d made" % (loc, kept, dropped.get(loc), made))
    if user is not None:
        uv = 2 * sum(v for (l, reg), v in visits.items() if kinds.get(reg) == 1)
        check(uv == user, "program made %d user region events, the profile counts %d" % (user, uv))
    colls = tuple(int(x) for x in args[args.index("--colls") + 1].split(",")) if "--colls" in args else None
    persist = int(args[args.index("--persistent") + 1]) if "--persistent" in args else None
    nsend = check_mpi(evs, colls, persist) if mpi else 0
    if "--metrics" in args:
        print("counter values: %d, never decreasing per location" % check_metrics(evs))
    nev = sum(len(x) for x in evs.values())
    print("trace: %d locations, %d events (%d enters), %d dropped, %d sends matched"
          % (len(evs), nev, sum(enters.values()), sum(dropped.values()), nsend))
    for f in fails[:20]:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
