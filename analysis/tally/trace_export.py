"""tally-report --trace-export perfetto OUT: a Tally trace (the OTF2
archive TALLY_TRACE writes next to the .h5) as Chrome Trace Event JSON,
which Perfetto's UI and chrome://tracing open.

The archive is read with OTF2's own reader (the library that wrote it
applies the archive's mapping tables and clock offsets), not by parsing
otf2-print's text, whose layout is no interface: through Debian's
python3-otf2 bindings where this Python has them, else through
tally-otf2-dump (analysis/otf2dump/, OTF2's C reader, installed beside
tally-report), so a pip-only Python exports too.  TALLY_OTF2_DUMP names
the program and makes the export use it even where the bindings exist.
Ranks are processes (pid), threads tracks (tid), regions B/E slices, MPI messages flow arrows (s at the send, f at the matching
receive, each bound to its enclosing MPI call's slice), collectives
instant events with their bytes, metrics counter tracks (C).
"""
import codecs
import collections
import json
import os
import stat
import subprocess

from . import outfiles, settings
from .errors import TallyError
from .filecheck import printable


def archive_of(path):
    """The anchor file traces.otf2 for a .h5, a .trace directory or the anchor itself."""
    if path.endswith(".otf2") and os.path.isfile(path):
        return path
    if os.path.isdir(path):
        cand = os.path.join(path, "traces.otf2")
    else:
        base = path[:-3] if path.endswith(".h5") else path
        cand = base + ".trace/traces.otf2"
    if not os.path.isfile(cand):
        raise TallyError(f"{path}: no trace archive ({cand} not found; was the run made with --trace?)")
    return cand


_CODEC = "tally_otf2_names"


def _names_codec(name):
    """A UTF-8 that never fails: bytes that are not UTF-8 in a name of the
    archive become \\xNN (the bindings decode every name strictly: one
    region name of invalid UTF-8 ended the export in a traceback)."""
    if name != _CODEC:
        return None
    utf8 = codecs.lookup("utf-8")
    return codecs.CodecInfo(name=_CODEC, encode=lambda s, errors="strict": utf8.encode(s, "backslashreplace"),
                            decode=lambda b, errors="strict": utf8.decode(b, "backslashreplace"))


def _regular_files(anchor):
    """TallyError unless every file of the archive is a regular file (not
    a link, FIFO or device: OTF2 opens them by name and a FIFO at
    traces.def blocked the export for ever), checked on a descriptor
    opened non-blocking."""
    top = os.path.dirname(anchor) or "."
    paths = [anchor, os.path.join(top, "traces.def"), os.path.join(top, "tally.id")]
    sub = os.path.join(top, "traces")
    try:
        paths += [os.path.join(sub, n) for n in sorted(os.listdir(sub))[:100001]]
    except OSError:
        pass
    for p in paths:
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise TallyError(f"{printable(p)}: {e.strerror}; the trace archive is not read") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise TallyError(f"{printable(p)}: not a regular file; the trace archive is not read")
        finally:
            os.close(fd)


def _open(anchor):
    try:
        import otf2   # Debian python3-otf2, for the system python3
        import _otf2.Config
    except ImportError as e:
        raise TallyError(f"reading traces needs OTF2's Python bindings (Debian: python3-otf2) or "
                         f"tally-otf2-dump beside tally-report: {e}") from e
    _regular_files(anchor)
    codecs.register(_names_codec)
    if hasattr(_otf2.Config, "encoding"):
        _otf2.Config.encoding = _CODEC
    try:
        return otf2, otf2.reader.open(anchor)
    except Exception as e:   # pylint: disable=broad-except
        raise TallyError(f"{anchor}: OTF2 cannot read the archive ({e})") from e


def dump_program():
    """tally-otf2-dump: TALLY_OTF2_DUMP, else bin/ of the prefix the package is in (share/tally/python/tally:
    the installed bindir, build/bin in the build tree); None.  Never searched on PATH (a directory
    another user can write must not choose what runs)."""
    env = settings.text("TALLY_OTF2_DUMP")
    if env:
        return env
    pkg = os.path.dirname(os.path.realpath(__file__))
    here = os.path.normpath(os.path.join(pkg, "..", "..", "..", "..", "bin", "tally-otf2-dump"))
    return here if os.access(here, os.X_OK) else None


# OTF2_CollectiveOp's values, in order (OTF2_Events.h), as python3-otf2 names them
COLL_OPS = ("BARRIER BCAST GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV ALLTOALL ALLTOALLV ALLTOALLW "
            "ALLREDUCE REDUCE REDUCE_SCATTER SCAN EXSCAN REDUCE_SCATTER_BLOCK CREATE_HANDLE DESTROY_HANDLE "
            "ALLOCATE DEALLOCATE CREATE_HANDLE_AND_ALLOCATE DESTROY_HANDLE_AND_DEALLOCATE").split()
_Group = collections.namedtuple("_Group", "name")
_Loc = collections.namedtuple("_Loc", "name group")


def _num(v):
    try:
        return int(v)
    except ValueError:
        return float(v)


def _dump_records(prog, anchor, b_make):
    """Reads tally-otf2-dump's lines (its header comment says what they are): (builder, locations)."""
    try:
        # names are bytes the program chose: undecodable ones escaped, never a traceback
        out = subprocess.run([prog, anchor], capture_output=True, text=True, errors="backslashreplace",
                             check=False)
    except OSError as e:
        raise TallyError(f"{anchor}: cannot run {prog} ({e})") from e
    if out.returncode != 0:
        raise TallyError(f"{anchor}: {out.stderr.strip() or prog + ' failed'}")
    groups, locs, regions, members, classes, b = {}, {}, {}, {}, {}, None
    for line in out.stdout.splitlines():
        f = line.split("\t")
        k = f[0]
        if k == "C":
            b = b_make(int(f[1]), int(f[2]))
        elif k == "G":
            groups[int(f[1])] = _Group(f[2])
        elif k == "L":
            locs[int(f[1])] = _Loc(f[2], groups.get(int(f[3]), _Group("rank 0")))
        elif k == "R":
            regions[int(f[1])] = f[2]
        elif k == "N":
            members[int(f[1])] = f[2]
        elif k == "K":
            classes[int(f[1])] = [members.get(int(m), m) for m in f[2].split(",") if m]
        elif b is not None and int(f[1]) in locs:
            loc, t = locs[int(f[1])], int(f[2])
            if k == "B":
                b.enter(loc, t, regions.get(int(f[3]), f[3]))
            elif k == "E":
                b.leave(loc, t)
            elif k in "SV":
                b.message(loc, t, k == "S", int(f[3]), int(f[4]), int(f[5]))
            elif k == "O":
                op = int(f[3])
                b.collective(loc, t, COLL_OPS[op] if op < len(COLL_OPS) else str(op), int(f[4]), int(f[5]))
            elif k == "M":
                vals = [_num(v) for v in f[4].split(",") if v]
                b.metric(loc, t, dict(zip(classes.get(int(f[3]), []), vals)))
    if b is None:
        raise TallyError(f"{anchor}: no clock properties in the archive")
    return b, list(locs.values())


class _Builder:
    """Chrome trace events from the archive's events, in order per location."""

    def __init__(self, origin, resolution):
        self.origin, self.scale = origin, 1e6 / resolution
        self.events, self.sends, self.recvs = [], {}, {}

    def ts(self, t):
        return round((t - self.origin) * self.scale, 3)

    def track(self, loc):
        words = loc.name.split()
        if len(words) == 6 and words[0] == "rank" and words[2] == "GPU" and words[1].isdigit():
            # a GPU stream "rank R GPU D stream S": a track of rank R's process
            return int(words[1]), 1000000 + int(words[3]) * 100000 + int(words[5]) % 100000
        rank = loc.group.name.split()[-1] if loc.group.name.startswith("rank ") else loc.group.name
        try:
            rank = int(rank)
        except ValueError:
            rank = hash(loc.group.name) & 0xffff
        return rank, int(loc.name.split()[-1]) if loc.name.split()[-1].isdigit() else 0

    def enter(self, loc, t, name):
        pid, tid = self.track(loc)
        self.events.append({"pid": pid, "tid": tid, "ts": self.ts(t), "ph": "B", "name": name, "cat": "region"})

    def leave(self, loc, t):
        pid, tid = self.track(loc)
        self.events.append({"pid": pid, "tid": tid, "ts": self.ts(t), "ph": "E"})

    def message(self, loc, t, send, peer, tag, nbytes):
        pid, tid = self.track(loc)
        base = {"pid": pid, "tid": tid, "ts": self.ts(t)}
        if send:
            self.sends.setdefault((pid, peer, tag), []).append((base, nbytes))
        else:
            self.recvs.setdefault((peer, pid, tag), []).append((base, nbytes))

    def collective(self, loc, t, op, sent, received):
        pid, tid = self.track(loc)
        self.events.append({"pid": pid, "tid": tid, "ts": self.ts(t), "ph": "i", "s": "t", "name": op, "cat": "mpi",
                            "args": {"sent": sent, "received": received}})

    def metric(self, loc, t, vals):
        if "tally::cuda_launch" in vals:   # a launch mark (its correlation id), not a counter
            return
        pid, tid = self.track(loc)
        # counter tracks belong to a process: one per thread by name
        self.events.append({"pid": pid, "tid": tid, "ts": self.ts(t), "ph": "C", "name": f"counters thread {tid}",
                            "args": vals})

    def add(self, otf2, loc, ev):
        """One event of python3-otf2's reader."""
        E = otf2.events
        if isinstance(ev, E.Enter):
            self.enter(loc, ev.time, ev.region.name)
        elif isinstance(ev, E.Leave):
            self.leave(loc, ev.time)
        elif isinstance(ev, (E.MpiSend, E.MpiIsend)):
            self.message(loc, ev.time, True, int(ev.receiver), int(ev.msg_tag), int(ev.msg_length))
        elif isinstance(ev, (E.MpiRecv, E.MpiIrecv)):
            self.message(loc, ev.time, False, int(ev.sender), int(ev.msg_tag), int(ev.msg_length))
        elif isinstance(ev, E.MpiCollectiveEnd):
            self.collective(loc, ev.time, str(ev.collective_op).split(".")[-1], int(ev.size_sent),
                            int(ev.size_received))
        elif isinstance(ev, E.Metric):
            self.metric(loc, ev.time, {str(getattr(m, "name", m)): v for m, v in zip(ev.metric.members, ev.values)})

    def flows(self):
        """The k-th send from s to d with tag t is the k-th receive (MPI's non-overtaking order)."""
        n = unmatched = 0
        for key, sends in self.sends.items():
            recvs = self.recvs.get(key, [])
            for (sb, nbytes), (rb, _) in zip(sends, recvs):
                n += 1
                args = {"bytes": nbytes, "tag": key[2]}
                self.events.append(dict(sb, ph="s", id=n, name="message", cat="mpi", args=args))
                self.events.append(dict(rb, ph="f", bp="e", id=n, name="message", cat="mpi", args=args))
            unmatched += abs(len(sends) - len(recvs))
        for key, recvs in self.recvs.items():
            if key not in self.sends:
                unmatched += len(recvs)
        return n, unmatched


def _read(anchor):
    """(builder with every event, locations): python3-otf2 where it is and no TALLY_OTF2_DUMP, else the program."""
    prog = settings.text("TALLY_OTF2_DUMP")
    if not prog:
        try:
            import otf2  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        except ImportError:
            prog = dump_program()
    if prog:
        _regular_files(anchor)   # a FIFO planted in the archive blocks no reader
        return _dump_records(prog, anchor, _Builder)
    otf2, reader = _open(anchor)
    with reader as trace:
        props = trace.definitions.clock_properties
        b = _Builder(props.global_offset, props.timer_resolution)
        locs = list(trace.definitions.locations)
        for loc, ev in trace.events:
            b.add(otf2, loc, ev)
    return b, locs


def _archive_id(anchor):
    """The id the archive carries (tally.id beside traces.otf2), None when it has none;
    read non-blocking from a regular file (a FIFO planted there blocks nothing)."""
    p = os.path.join(os.path.dirname(anchor) or ".", "tally.id")
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise TallyError(f"{printable(p)}: {e.strerror}; the trace archive is not read") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TallyError(f"{printable(p)}: not a regular file; the trace archive is not read")
        return os.read(fd, 128).decode("ascii", "backslashreplace").strip()
    finally:
        os.close(fd)


def check_pair(path, anchor):
    """A .h5 is exported with its own archive only: the file's trace_id is the archive's
    id (a same-name run's archive beside it, or one put there, is refused in one line).
    A file and an archive that both carry no id (Tally before ids) are read as before."""
    if os.path.isdir(path) or path.endswith(".otf2"):
        return   # the archive named itself: nothing to pair
    from .reader import read   # pylint: disable=import-outside-toplevel
    mine = read(path).meta.get("trace_id")
    mine = str(mine).strip() if mine is not None else None
    theirs = _archive_id(anchor)
    if mine == theirs:
        return
    where = printable(os.path.dirname(anchor) or ".")
    said = "carries no id" if theirs is None else f"is trace {printable(theirs)}"
    own = "a file written without a trace" if not mine else f"trace {printable(mine)}"
    raise TallyError(f"{printable(path)}: the trace archive {where} is not this file's ({own}; the archive {said}): "
                     "another run's archive under this name; export the archive by its own name instead")


def perfetto(path, out):
    """Export; returns (events, messages, unmatched)."""
    anchor = archive_of(path)
    check_pair(path, anchor)
    b, locs = _read(anchor)
    meta = []
    for loc in locs:
        pid, tid = b.track(loc)
        pname = loc.group.name if tid < 1000000 else f"rank {pid}"   # a GPU stream's group is its device
        meta.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": pname}})
        meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": loc.name}})
    nmsg, unmatched = b.flows()
    seen, uniq = set(), []
    for m in meta:
        k = (m["name"], m["pid"], m["tid"])
        if k not in seen:
            seen.add(k)
            uniq.append(m)
    doc = {"traceEvents": uniq + b.events, "displayTimeUnit": "ns",
           "otherData": {"source": anchor, "messages": nmsg, "unmatched_messages": unmatched}}
    # through the reader's one writer: never through a link, never over a file
    written = outfiles.write(out, json.dumps(doc, separators=(",", ":")) + "\n")
    return len(b.events), nmsg, unmatched, written
