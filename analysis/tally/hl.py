"""The high-level API's JSON files (tally_hl_<host>_<pid>.json).

PAPI_hl_region_begin/end without tally-run write one summary per process
(src/api/hl_region_out.c), format "tally-hl-regions" version 1, described
in docs/hl-regions.md.  read() checks the format and version first and
ignores keys it does not know (a later version may add some); render()
prints one table per thread.
"""
import json
from dataclasses import dataclass, field

from .errors import TallyError

FORMAT = "tally-hl-regions"
VERSIONS = (1,)


@dataclass
class Region:
    """One region name of one thread: totals over its completed visits."""
    name: str
    visits: int
    real_time_ns: int
    events: dict            # event name -> count, None where it was not counted
    reads: int = 0
    last_read: dict = None  # {"real_time_nsec", "events"} of the latest PAPI_hl_read


@dataclass
class Thread:
    """A thread that called PAPI_hl_region_begin (tid: its kernel id)."""
    tid: int
    regions: list = field(default_factory=list)


@dataclass
class HlFile:
    """One summary file."""
    path: str
    version: int
    hostname: str
    pid: int
    events: list
    threads: list


def _int(path, where, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise TallyError(f"{path}: {where} is {v!r}, not a count")
    return v


def _region(path, events, r):
    name = r.get("name")
    if not isinstance(name, str):
        raise TallyError(f"{path}: a region without a name")
    vals = r.get("events", {})
    if not isinstance(vals, dict) or set(vals) - set(events):
        raise TallyError(f"{path}: region {name!r}: its events are not the file's list")
    vals = {e: None if vals.get(e) is None else _int(path, f"{name!r} {e}", vals[e]) for e in events}
    last = r.get("last_read")
    return Region(name, _int(path, f"{name!r} visits", r.get("visits")),
                  _int(path, f"{name!r} real_time_nsec", r.get("real_time_nsec")), vals,
                  _int(path, f"{name!r} reads", r.get("reads", 0)), last if isinstance(last, dict) else None)


def parse(path, doc):
    """An HlFile from the decoded JSON document doc (read from path)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TallyError(f"{path}: not a Tally high-level region summary (format is not {FORMAT!r})")
    if doc.get("version") not in VERSIONS:
        raise TallyError(f"{path}: {FORMAT} version {doc.get('version')!r} is not one this reader knows "
                         f"({', '.join(map(str, VERSIONS))}); use a newer tally-report")
    events = doc.get("events", [])
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise TallyError(f"{path}: its events are not a list of names")
    threads = []
    for t in doc.get("threads", []):
        regions = t.get("regions", []) if isinstance(t, dict) else None
        if not isinstance(regions, list):
            raise TallyError(f"{path}: a thread without a region list")
        threads.append(Thread(_int(path, "a tid", t.get("tid")), [_region(path, events, r) for r in regions]))
    return HlFile(path, doc["version"], str(doc.get("hostname", "")), _int(path, "pid", doc.get("pid")),
                  events, threads)


def read(path):
    """Read one summary file; TallyError (one sentence) when it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise TallyError(f"{path}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TallyError(f"{path}: not JSON ({e.__class__.__name__}); not a high-level region summary") from None
    return parse(path, doc)


def render(hl):
    """Text: the file's facts, then per thread its regions with visits,
    real time and every event's total."""
    out = [f"{hl.path}: {FORMAT} version {hl.version}, host {hl.hostname}, pid {hl.pid}, "
           f"{len(hl.threads)} thread(s)"]
    head = ["region", "visits", "real time [s]"] + hl.events
    for t in hl.threads:
        rows = [[r.name, str(r.visits), f"{r.real_time_ns / 1e9:.6f}"] +
                ["-" if r.events[e] is None else str(r.events[e]) for e in hl.events] for r in t.regions]
        width = [max(len(x) for x in col) for col in zip(head, *rows)]
        out.append(f"\nthread {t.tid}:")
        for row in [head] + rows:
            out.append("  " + "  ".join(x.ljust(w) if i == 0 else x.rjust(w)
                                        for i, (x, w) in enumerate(zip(row, width))).rstrip())
    return "\n".join(out) + "\n"
