"""The region tree: exclusive values and per-rank aggregates.

Exclusive value of a region = its inclusive value minus the inclusive
values of its children, on the same rank and thread, for time and counters
alike: a counter's exclusive value is not measured (NaN) where a child's
counters were not read (an MPI call without TALLY_MPI_COUNTERS), since the
part of the inclusive value the child took is not known (issue 52: halo's
exclusive TASK-CLOCK held its MPI calls while its exclusive time did not).  Per rank, a region's
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


def _recorded_parents(st, parent):
    """Per row of region_stats, its nearest ancestor with a row on the same
    rank and thread (-1: none): the parent itself but where the reader
    grafted a worker's region under a path its thread never entered
    (tally.graft: an OpenMP worker's parallel region under the master's
    'compute'), whose time is then its root's child."""
    par = st["region"].map(pd.Series(parent, dtype="int64")).fillna(-1).astype(int).to_numpy()
    rk, th, rg = (st[c].astype("int64").to_numpy() for c in ("rank", "thread", "region"))
    span = int(max(rg.max(), par.max(), 0)) + 2   # one int64 key per (rank, thread, region): np.isin, not MultiIndex
    base = (rk * (int(th.max()) + 1) + th) * span
    lost = np.flatnonzero((par >= 0) & ~np.isin(base + par + 1, base + rg + 1))
    if not len(lost):
        return par
    rows = set(zip(rk.tolist(), th.tolist(), rg.tolist()))
    for i in lost:
        p, hops = int(par[i]), 0
        while p >= 0 and (int(rk[i]), int(th[i]), p) not in rows and hops < 4096:
            p, hops = parent.get(p, -1), hops + 1
        par[i] = p if hops < 4096 else -1
    return par


def with_exclusive(run):
    """region_stats plus excl_ns and '<event> (excl)' columns."""
    st = run.region_stats
    if not len(st):
        return st.assign(excl_ns=pd.Series(dtype="int64"))
    cols = value_columns(run)
    parent = dict(zip(run.regions["id"].astype(int), run.regions["parent"].astype(int)))
    st = st.assign(parent=_recorded_parents(st, parent))
    by_parent = st.groupby(["rank", "thread", "parent"])
    kids = by_parent[cols].sum()
    keys = ["rank", "thread", "parent"]
    unknown = st[cols].isna().join(st[keys]).groupby(keys)[cols].any()   # vectorised: 64 x 1,000 in ms
    for k in (kids, unknown):
        k.index = k.index.set_names(["rank", "thread", "region"])
    keyed = st.set_index(["rank", "thread", "region"])
    sub = kids.reindex(keyed.index, fill_value=0)
    gap = unknown.reindex(keyed.index, fill_value=False).astype(bool)
    out = keyed.copy()
    for c in cols:
        name = "excl_ns" if c == "incl_ns" else f"{c} (excl)"
        val = keyed[c].to_numpy() - sub[c].to_numpy()
        out[name] = val if c == "incl_ns" else np.where(gap[c].to_numpy(), np.nan, val)
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
