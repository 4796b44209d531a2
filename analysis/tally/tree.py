"""The region tree: exclusive values and per-rank aggregates.

Exclusive value of a region = its inclusive value minus the inclusive
values of its children, on the same rank and thread.  Per rank, a region's
wall time is the largest inclusive time over the rank's threads (threads
run side by side); visits and counters are summed over threads.
"""
import numpy as np
import pandas as pd


def children(regions):
    """parent id -> list of child ids, in id order."""
    out = {}
    for rid, parent in zip(regions["id"].astype(int), regions["parent"].astype(int)):
        out.setdefault(parent, []).append(rid)
    return out


def value_columns(run):
    """Columns of region_stats summed in the tree: visits, incl_ns and events."""
    return ["incl_ns"] + [e for e in run.event_names if e in run.region_stats.columns]


def with_exclusive(run):
    """region_stats plus excl_ns and '<event> (excl)' columns."""
    st = run.region_stats
    if not len(st):
        return st.assign(excl_ns=pd.Series(dtype="int64"))
    cols = value_columns(run)
    parent = dict(zip(run.regions["id"].astype(int), run.regions["parent"].astype(int)))
    st = st.assign(parent=st["region"].map(pd.Series(parent)).fillna(-1).astype(int))
    kids = st.groupby(["rank", "thread", "parent"])[cols].sum()
    kids.index = kids.index.set_names(["rank", "thread", "region"])
    keyed = st.set_index(["rank", "thread", "region"])
    sub = kids.reindex(keyed.index, fill_value=0)
    out = keyed.copy()
    for c in cols:
        name = "excl_ns" if c == "incl_ns" else f"{c} (excl)"
        out[name] = keyed[c].to_numpy() - sub[c].to_numpy()
    return out.reset_index().drop(columns=["parent"])


def per_rank(run, stats=None):
    """One row per (rank, region): visits and counters summed over threads,
    time_s = wall (max over threads of incl), excl_s likewise."""
    st = with_exclusive(run) if stats is None else stats
    cols = [c for c in st.columns if c not in ("rank", "thread", "region", "incl_ns", "excl_ns", "uncounted")]
    g = st.groupby(["rank", "region"])
    out = g[cols].sum(min_count=1)   # not measured anywhere stays NaN, not 0
    out["time_s"] = g["incl_ns"].max() / 1e9
    out["excl_s"] = g["excl_ns"].max() / 1e9
    out["threads"] = g.size()
    return out.reset_index()


def dfs_order(regions, keep=None):
    """(id, depth) pairs in depth-first order; keep: set of ids to show."""
    kids = children(regions)
    order, stack = [], [(r, 0) for r in reversed(kids.get(-1, []))]
    while stack:
        rid, depth = stack.pop()
        if keep is None or rid in keep:
            order.append((rid, depth))
        stack.extend((c, depth + 1) for c in reversed(kids.get(rid, [])))
    return order


def with_ancestors(regions, ids):
    """ids plus all their ancestors."""
    parent = dict(zip(regions["id"].astype(int), regions["parent"].astype(int)))
    out = set()
    for rid in ids:
        while rid >= 0 and rid not in out:
            out.add(rid)
            rid = parent.get(rid, -1)
    return out


def depth_of(regions):
    """id -> depth in the tree (roots 0)."""
    return {rid: d for rid, d in dfs_order(regions)}


def as_array(values):
    """Float numpy array of a column (helper for callers)."""
    return np.asarray(values, dtype=float)
