"""sampling_export.py - the call-path samples (TALLY_SAMPLING) in formats
other tools open (docs/sampling.md):

  pprof       profile.proto, gzipped (go tool pprof, pprof's web UI,
              Grafana Pyroscope, Polar Signals...): written by the small
              protobuf encoder below, no protobuf package needed;
  speedscope  speedscope's JSON file format (speedscope.app and its CLI);
  hatchet     Hatchet's literal graph format (sampling_hatchet.py).

One sample per (rank, thread, path) of the samples table, its value the
samples and the CPU time they stand for (samples / rate); each path node
(sample_paths row) is a location of its own, inlined frames included."""
import gzip
import json
import re

from .errors import TallyError


def _s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def _paths(run):
    """The sample_paths rows as dicts by id."""
    p = run.table("sample_paths")
    cols = ("parent", "function", "file", "line", "module", "inlined")
    return {int(i): dict(zip(cols, vals)) for i, *vals in zip(p["id"], *(p[c] for c in cols))}


def _stack(paths, pid):
    """Path ids from the innermost frame out."""
    out = []
    while pid >= 0 and pid in paths and len(out) < 4096:
        out.append(pid)
        pid = int(paths[pid]["parent"])
    return out


def _measure(run):
    """What one sample stands for: (type, unit, amount).  A CPU-time source:
    ("cpu", "nanoseconds", 1e9 / the rate asked); a counter as the source
    (TALLY_SAMPLING_EVENT: `source` "perf NAME", `note` "one sample every
    PERIOD NAME ..."): (NAME, "count", PERIOD)."""
    st = run.table("sampling_status") if run.has("sampling_status") else None
    if st is not None:
        for src, note in zip(st["source"], st["note"]):
            src, note = _s(src), _s(note)
            m = re.match(r"one sample every (\d+) ", note)
            if src.startswith("perf ") and src != "perf cpu-clock" and m:
                return src[5:], "count", int(m.group(1))
    rates = [int(r) for r in st["rate"] if int(r) > 0] if st is not None else []
    return "cpu", "nanoseconds", 1e9 / rates[0] if rates else 1e6


def _per_thread(run):
    """{(rank, thread): {path: samples}}."""
    s = run.table("samples")
    g = s.groupby(["rank", "thread", "path"])["samples"].sum()
    out = {}
    for (rank, thread, path), n in g.items():
        out.setdefault((int(rank), int(thread)), {})[int(path)] = int(n)
    return out


# ---- protobuf, by hand: varints and length-delimited fields --------------
def _varint(v):
    v &= (1 << 64) - 1   # int64 negatives as 10-byte two's complement
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _int(field, v):
    return _varint(field << 3) + _varint(int(v)) if v else b""


def _bytes(field, data):
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _packed(field, values):
    return _bytes(field, b"".join(_varint(int(v)) for v in values)) if values else b""


class _Strings:
    def __init__(self):
        self.index, self.list = {"": 0}, [""]

    def __call__(self, s):
        s = s.decode() if isinstance(s, bytes) else str(s)
        if s not in self.index:
            self.index[s] = len(self.list)
            self.list.append(s)
        return self.index[s]


def pprof(run):
    """profile.proto, gzipped: sample types samples/count and cpu/nanoseconds
    (NAME/count for a counter as the source),
    labels rank and thread; bytes."""
    paths, (kind, unit, period) = _paths(run), _measure(run)
    strs, body = _Strings(), bytearray()
    funcs, maps = {}, {}
    for t, u in (("samples", "count"), (kind, unit)):
        body += _bytes(1, _int(1, strs(t)) + _int(2, strs(u)))
    for (rank, thread), counts in sorted(_per_thread(run).items()):
        for pid, n in sorted(counts.items()):
            locs = [i + 1 for i in _stack(paths, pid)]
            labels = _bytes(3, _int(1, strs("rank")) + _int(3, rank)) + _bytes(3, _int(1, strs("thread")) + _int(3, thread))
            body += _bytes(2, _packed(1, locs) + _packed(2, [n, round(n * period)]) + labels)
    for pid, p in sorted(paths.items()):
        mod = _s(p["module"])
        mid = maps.setdefault(mod, len(maps) + 1)
        key = (_s(p["function"]), _s(p["file"]))
        fid = funcs.setdefault(key, len(funcs) + 1)
        line = _bytes(4, _int(1, fid) + _int(2, int(p["line"])))
        body += _bytes(4, _int(1, pid + 1) + _int(2, mid) + line)
    for (name, file), fid in funcs.items():
        body += _bytes(5, _int(1, fid) + _int(2, strs(name)) + _int(3, strs(name)) + _int(4, strs(file)))
    for mod, mid in maps.items():
        # no addresses are kept, only names and lines: has_functions,
        # has_filenames, has_line_numbers, so pprof symbolizes nothing
        body += _bytes(3, _int(1, mid) + _int(5, strs(mod)) + _int(7, 1) + _int(8, 1) + _int(9, 1))
    body += _bytes(11, _int(1, strs(kind)) + _int(2, strs(unit))) + _int(12, round(period))
    for s in strs.list:   # the table last: every string is in it by now
        body += _bytes(6, s.encode())
    return gzip.compress(bytes(body), mtime=0)


def speedscope(run, name="tally"):
    """speedscope's file format (https://www.speedscope.app/file-format-schema.json):
    one sampled profile per rank and thread, weights in ns of CPU time (a
    counter's counts, unit "none", when a counter was the source); str."""
    paths, (kind, unit, period) = _paths(run), _measure(run)
    frames, index = [], {}
    for pid, p in sorted(paths.items()):
        f = {"name": _s(p["function"]), "file": _s(p["file"]), "line": int(p["line"])}
        if not f["file"]:
            del f["file"], f["line"]
        index[pid] = index.setdefault(tuple(sorted(f.items())), len(frames))
        if index[pid] == len(frames):
            frames.append(f)
    profiles = []
    for (rank, thread), counts in sorted(_per_thread(run).items()):
        stacks, weights = [], []
        for pid, n in sorted(counts.items()):
            stacks.append([index[i] for i in reversed(_stack(paths, pid))])
            weights.append(round(n * period))
        profiles.append({"type": "sampled", "name": f"rank {rank} thread {thread}" + ("" if kind == "cpu" else f" ({kind})"),
                         "unit": unit if unit == "nanoseconds" else "none",
                         "startValue": 0, "endValue": sum(weights), "samples": stacks, "weights": weights})
    return json.dumps({"$schema": "https://www.speedscope.app/file-format-schema.json", "name": name,
                       "exporter": "tally-report", "activeProfileIndex": 0,
                       "shared": {"frames": frames}, "profiles": profiles}) + "\n"


FORMATS = ("folded", "pprof", "speedscope", "hatchet")


def export(run, fmt, name="tally"):
    """(data, binary) of the samples in fmt."""
    from . import sampling
    if fmt == "folded":
        return sampling.folded(run), False
    if fmt == "pprof":
        return pprof(run), True
    if fmt == "speedscope":
        return speedscope(run, name), False
    if fmt == "hatchet":
        from . import sampling_hatchet
        return sampling_hatchet.hatchet(run), False
    raise TallyError(f"--sampling-export: unknown format '{fmt}' ({', '.join(FORMATS)})")
