"""Merging per-rank partial files into one Run.

Each partial file holds one rank's rows and its own region table (ids are
local to the file), so regions are unified by (path, kind) and every
column called 'region' is renumbered.  Each holds its own call-path
nodes too (sample_paths): a node is the same in two files when its parent
is and its frame (function, file, line, module, inlined) is, and the
samples' 'path' column is renumbered.  Counter columns are aligned by
event name.  Job-wide tables without a 'rank' column are taken once.
"""
import pandas as pd

from .errors import TallyError
from .rankset import RankSet
from .run import Run

# Tables that are job-wide even though they may look per-rank.
_REGION_TABLE = "regions"


def _depth(by_id, rid):
    """Depth of region rid through its parents (cycles stop the walk)."""
    depth, seen = 0, set()
    while rid in by_id and rid not in seen:
        seen.add(rid)
        rid, depth = int(by_id[rid].parent), depth + 1
    return depth


def _unify_regions(runs):
    """One region table for all runs, and per run a map old id -> new id."""
    keys, rows, maps = {}, [], []
    for run in runs:
        reg = run.table(_REGION_TABLE)
        by_id = {int(r.id): r for r in reg.itertuples(index=False)}
        local = {}
        for r in sorted(by_id.values(), key=lambda r: _depth(by_id, int(r.id))):
            key = (r.path, int(r.kind))
            if key not in keys:
                parent = local.get(int(r.parent), -1)
                keys[key] = len(rows)
                rows.append({"id": len(rows), "parent": parent, "kind": int(r.kind),
                             "name": r.name, "path": r.path})
            local[int(r.id)] = keys[key]
        maps.append(local)
    cols = ["id", "parent", "kind", "name", "path"]
    return pd.DataFrame(rows, columns=cols), maps


_PATHS = "sample_paths"
_FRAME = ("function", "file", "line", "module", "inlined")


def _unify_paths(runs):
    """One sample_paths table for all runs, and per run a map old id -> new
    id; None when no run has one."""
    have = [r for r in runs if r.has(_PATHS)]
    if not have:
        return None, [{} for _ in runs]
    cols = list(have[0].table(_PATHS).columns)
    keys, rows, maps = {}, [], []
    for run in runs:
        local = {}
        if run.has(_PATHS):
            by_id = {int(r.id): r for r in run.table(_PATHS).itertuples(index=False)}
            for r in sorted(by_id.values(), key=lambda r: _depth(by_id, int(r.id))):
                parent = local.get(int(r.parent), -1)
                key = (parent,) + tuple(getattr(r, c) for c in _FRAME)
                if key not in keys:
                    keys[key] = len(rows)
                    row = r._asdict()
                    row.update(id=len(rows), parent=parent)
                    rows.append(row)
                local[int(r.id)] = keys[key]
        maps.append(local)
    return pd.DataFrame(rows, columns=cols), maps


def _unify_events(runs):
    """The events table of the merged run: union by name, first order kept."""
    frames = [r.table("events") for r in runs if r.has("events")]
    if not frames:
        return runs[0].table("events")
    ev = pd.concat(frames).drop_duplicates("name").reset_index(drop=True)
    ev["index"] = range(len(ev))
    return ev


def _merge_table(name, runs, maps, path_maps):
    """Concatenate table name over runs, renumbering its 'region' column
    (and the samples' 'path')."""
    parts = []
    for run, m, pm in zip(runs, maps, path_maps):
        if name not in run.tables:
            continue
        t = run.tables[name]
        if "region" in t.columns:
            t = t.assign(region=t["region"].map(lambda v, m=m: m.get(int(v), -1)))
        if name == "samples" and "path" in t.columns:
            t = t.assign(path=t["path"].map(lambda v, pm=pm: pm.get(int(v), -1)))
        parts.append(t)
    if not parts:
        return None
    merged = pd.concat(parts, ignore_index=True)
    if "rank" not in merged.columns:
        merged = merged.drop_duplicates().reset_index(drop=True)
    if name != "region_stats":
        return merged
    # counters a file did not have (or did not measure) stay absent (NaN)
    return merged.fillna({c: 0 for c in ("visits", "incl_ns", "uncounted") if c in merged.columns})


def _merge_meta(runs):
    """Root attributes of the merged run."""
    meta = dict(min(runs, key=lambda r: r.meta.get("partial_rank", 0)).meta)
    meta["start_time"] = min(int(r.meta.get("start_time", 0)) for r in runs)
    meta["end_time"] = max(int(r.meta.get("end_time", 0)) for r in runs)
    meta["nranks"] = max(int(r.meta.get("nranks", 1)) for r in runs)
    meta["partial"] = 1
    meta["partial_rank"] = -1
    meta["partial_reason"] = "; ".join(sorted({str(r.meta.get("partial_reason", "")) for r in runs}))
    return meta


def merge(runs):
    """One Run from several per-rank partial Runs."""
    ranks = [r.meta.get("partial_rank", -1) for r in runs]
    dup = sorted({x for x in ranks if ranks.count(x) > 1})
    if dup:
        raise TallyError(f"several partial files hold rank(s) {dup}; keep one file per rank in the directory")
    regions, maps = _unify_regions(runs)
    tables = {"events": _unify_events(runs), _REGION_TABLE: regions}
    paths, path_maps = _unify_paths(runs)
    if paths is not None:
        tables[_PATHS] = paths
    names = [n for r in runs for n in r.tables if n not in tables]
    for name in dict.fromkeys(names):
        t = _merge_table(name, runs, maps, path_maps)
        if t is not None:
            tables[name] = t
    docs = {k: v for r in runs for k, v in r.docs.items()}
    out = Run(runs[0].schema, _merge_meta(runs), tables, docs, [s for r in runs for s in r.sources])
    out.partial = True
    out.partial_ranks = sorted(int(x) for x in ranks)
    out.partial_reasons = {int(r.meta.get("partial_rank", -1)): r.meta.get("partial_reason", "") for r in runs}
    out.missing_ranks = RankSet(out.nranks, out.ranks_present)
    return out
