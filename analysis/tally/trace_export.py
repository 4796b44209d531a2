"""tally-report --trace-export perfetto OUT: a Tally trace (the OTF2
archive TALLY_TRACE writes next to the .h5) as Chrome Trace Event JSON,
which Perfetto's UI and chrome://tracing open.

The archive is read with OTF2's own reader through Debian's python3-otf2
bindings (the library that wrote it applies the archive's mapping tables
and clock offsets), not by parsing otf2-print's text, whose layout is no
interface.  Ranks are processes (pid), threads tracks (tid), regions B/E
slices, MPI messages flow arrows (s at the send, f at the matching
receive, each bound to its enclosing MPI call's slice), collectives
instant events with their bytes, metrics counter tracks (C).
"""
import codecs
import json
import os
import stat

from . import outfiles
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
    paths = [anchor, os.path.join(top, "traces.def")]
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
        raise TallyError(f"reading traces needs OTF2's Python bindings (Debian: python3-otf2): {e}") from e
    _regular_files(anchor)
    codecs.register(_names_codec)
    if hasattr(_otf2.Config, "encoding"):
        _otf2.Config.encoding = _CODEC
    try:
        return otf2, otf2.reader.open(anchor)
    except Exception as e:   # pylint: disable=broad-except
        raise TallyError(f"{anchor}: OTF2 cannot read the archive ({e})") from e


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

    def add(self, otf2, loc, ev):
        pid, tid = self.track(loc)
        base = {"pid": pid, "tid": tid, "ts": self.ts(ev.time)}
        E = otf2.events
        if isinstance(ev, E.Enter):
            self.events.append(dict(base, ph="B", name=ev.region.name, cat="region"))
        elif isinstance(ev, E.Leave):
            self.events.append(dict(base, ph="E"))
        elif isinstance(ev, (E.MpiSend, E.MpiIsend)):
            key = (pid, int(ev.receiver), int(ev.msg_tag))
            self.sends.setdefault(key, []).append((base, int(ev.msg_length)))
        elif isinstance(ev, (E.MpiRecv, E.MpiIrecv)):
            key = (int(ev.sender), pid, int(ev.msg_tag))
            self.recvs.setdefault(key, []).append((base, int(ev.msg_length)))
        elif isinstance(ev, E.MpiCollectiveEnd):
            self.events.append(dict(base, ph="i", s="t", name=str(ev.collective_op).split(".")[-1], cat="mpi",
                                    args={"sent": int(ev.size_sent), "received": int(ev.size_received)}))
        elif isinstance(ev, E.Metric):
            vals = {str(getattr(m, "name", m)): v for m, v in zip(ev.metric.members, ev.values)}
            if "tally::cuda_launch" in vals:   # a launch mark (its correlation id), not a counter
                return
            # counter tracks belong to a process: one per thread by name
            self.events.append(dict(base, ph="C", name=f"counters thread {tid}", args=vals))

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


def perfetto(path, out):
    """Export; returns (events, messages, unmatched)."""
    anchor = archive_of(path)
    otf2, reader = _open(anchor)
    with reader as trace:
        props = trace.definitions.clock_properties
        b = _Builder(props.global_offset, props.timer_resolution)
        meta = []
        for loc in trace.definitions.locations:
            pid, tid = b.track(loc)
            pname = loc.group.name if tid < 1000000 else f"rank {pid}"   # a GPU stream's group is its device
            meta.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": pname}})
            meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": loc.name}})
        for loc, ev in trace.events:
            b.add(otf2, loc, ev)
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
