"""One tree per job (issue 52): OpenMP workers' regions under the path
where the master entered the parallel region, their idle time a named row.

The runtime records each thread's own tree: a worker thread of an OpenMP
team starts its implicit task at its root, so the file holds the
parallel region twice, '(thread) / compute / omp parallel @ f (x.c:34)'
on the thread that started it and '(thread) / omp parallel @ f (x.c:34)'
on the workers.  The reader (tally.read) grafts the workers' copy, and
everything under it, onto the master's, per rank:

* a master entry of a parallel region is an instance of it on a thread
  that is not an OpenMP worker (threads.kind != 1), or one below another
  region on a worker (a nested region the worker started);
* a worker's instance at its root goes under the rank's master entry when
  the region has exactly one; entered from several paths on the rank, it
  stays at the root (the file cannot tell which entry a team served), and
  the run's graft note counts it;
* a worker's time outside its root's children (waiting in the pool for
  the next team) becomes the row '(OpenMP worker idle)' under its root,
  counters likewise where every child was counted; only on a worker whose
  root holds OpenMP regions alone (a thread with other regions of its own
  at its root keeps its root's exclusive time).

The report, the HTML page and the exports all work on the grafted run;
tally.read(path, stored_tree=True) keeps the threads' trees as stored.
"""
import numpy as np
import pandas as pd

IDLE = "(OpenMP worker idle)"
_PARALLEL, _WORKER = 3, 1
_OPENMP = (3, 4, 5, 6)   # regions.kind of OpenMP parallel, loop, barrier wait, task
#: tables whose rows carry rank, thread and a region id
ID_TABLES = ("region_stats", "degraded", "samples", "nvtx_marks")
#: tables whose rows carry rank, thread and a region path
PATH_TABLES = ("pass_values", "gpu_kernels")


class _Regions:
    """The regions table as dicts, with new rows added by (path, kind)."""

    def __init__(self, reg):
        self.rows = {int(r.id): {"id": int(r.id), "parent": int(r.parent), "kind": int(r.kind),
                                 "name": str(r.name), "path": str(r.path),
                                 **({"address": r.address} if "address" in reg.columns else {})}
                     for r in reg.itertuples(index=False)}
        self.by_path = {(r["path"], r["kind"]): i for i, r in self.rows.items()}
        self.has_address = "address" in reg.columns

    def add(self, parent, kind, name):
        """The id of the region name (kind) under parent, made when new."""
        path = self.rows[parent]["path"] + " / " + name if parent >= 0 else name
        rid = self.by_path.get((path, kind))
        if rid is None:
            rid = max(self.rows) + 1
            self.rows[rid] = {"id": rid, "parent": parent, "kind": kind, "name": name, "path": path,
                              **({"address": ""} if self.has_address else {})}
            self.by_path[(path, kind)] = rid
        return rid

    def subtree(self, rid):
        """rid and its descendants, parents first."""
        kids = {}
        for i, r in self.rows.items():
            kids.setdefault(r["parent"], []).append(i)
        out, queue = [], [rid]
        while queue:
            i = queue.pop(0)
            out.append(i)
            queue.extend(sorted(kids.get(i, [])))
        return out


def _workers(run):
    """{rank: set of OpenMP worker thread indexes}; without a threads
    table every thread but 0."""
    th = run.tables.get("threads")
    st = run.tables["region_stats"]
    out = {}
    if th is not None and len(th) and "kind" in th.columns:
        for r, t, k in zip(th["rank"].astype(int), th["thread"].astype(int), th["kind"].astype(int)):
            if k == _WORKER:
                out.setdefault(r, set()).add(t)
        return out
    for r, t in set(zip(st["rank"].astype(int), st["thread"].astype(int))):
        if t != 0:
            out.setdefault(r, set()).add(t)
    return out


def _plan(regs, st, workers):
    """{(rank, worker root instance id): master entry id} and the
    parallel regions left at the root (entered from several paths)."""
    roots = {i for i, r in regs.rows.items() if r["parent"] < 0}
    entries, at_root = {}, {}
    for rank, thread, rid in set(zip(st["rank"].astype(int), st["thread"].astype(int), st["region"].astype(int))):
        r = regs.rows.get(rid)
        if r is None or r["kind"] != _PARALLEL:
            continue
        key = (rank, r["name"])
        if thread in workers.get(rank, ()) and r["parent"] in roots:
            at_root.setdefault(key, set()).add(rid)
        else:
            entries.setdefault(key, set()).add(rid)
    plan, several = {}, set()
    for key, ids in at_root.items():
        ent = entries.get(key, set())
        if len(ent) > 1:
            several.add(key[1])
        elif len(ent) == 1 and next(iter(ent)) not in ids:
            for w in ids:
                plan[(key[0], w)] = next(iter(ent))
    return plan, several


def _id_maps(regs, plan):
    """{rank: {old id: new id}} for every region under a grafted instance."""
    maps = {}
    for (rank, w), m in plan.items():
        local = maps.setdefault(rank, {})
        local[w] = m
        for rid in regs.subtree(w)[1:]:
            r = regs.rows[rid]
            parent = local[r["parent"]]
            local[rid] = regs.add(parent, r["kind"], r["name"])
    return maps


def _remap_ids(t, maps, workers, column="region"):
    """t with column remapped on the workers' rows (rank -> {old: new})."""
    if t is None or not len(t) or not {"rank", "thread", column} <= set(t.columns):
        return t
    new = t[column].to_numpy().copy()
    for i, (rank, thread, v) in enumerate(zip(t["rank"].astype(int), t["thread"].astype(int), t[column])):
        m = maps.get(rank)
        if m and thread in workers.get(rank, ()):
            new[i] = m.get(int(v), v) if not isinstance(v, str) else m.get(v, v)
    return t.assign(**{column: new})


def _sum_duplicates(st, events):
    """One region_stats row per (rank, thread, region): a worker's grafted
    instance and its own nested entry of the same region summed."""
    if not st.duplicated(["rank", "thread", "region"]).any():
        return st
    agg = {c: "sum" for c in ("visits", "incl_ns") if c in st.columns}
    agg.update({e: (lambda s: s.sum(min_count=1)) for e in events if e in st.columns})
    if "uncounted" in st.columns:
        agg["uncounted"] = "min"
    agg.update({c: "first" for c in st.columns if c not in agg and c not in ("rank", "thread", "region")})
    return st.groupby(["rank", "thread", "region"], as_index=False, sort=False).agg(agg)


def _idle_rows(regs, st, workers, events):
    """Rows of '(OpenMP worker idle)': per worker thread its root's time
    (and counters) less its root's children's, in the stored tree."""
    parent = {i: r["parent"] for i, r in regs.rows.items()}
    kind = {i: r["kind"] for i, r in regs.rows.items()}
    rows = []
    for (rank, thread), g in st.groupby(["rank", "thread"]):
        if int(thread) not in workers.get(int(rank), ()):
            continue
        par = g["region"].astype(int).map(parent)
        for _, root in g[par < 0].iterrows():
            kids = g[par == int(root["region"])]
            if not kids["region"].astype(int).map(kind).isin(_OPENMP).all():
                continue   # not a team's worker alone: its root's own time is not idle time
            row = {"rank": int(rank), "thread": int(thread),
                   "region": regs.add(int(root["region"]), 0, IDLE), "visits": 0,
                   "incl_ns": int(root["incl_ns"]) - int(kids["incl_ns"].sum())}
            for e in events:
                row[e] = root[e] - kids[e].sum() if not kids[e].isna().any() else np.nan
            if "uncounted" in st.columns:
                row["uncounted"] = int(root["uncounted"])
            if row["incl_ns"] > 0:
                rows.append(row)
    return rows


def _compact(run, regs, used):
    """Regions kept (used, with their ancestors), renumbered as row indexes
    in depth-first-safe order (parents first); id columns remapped."""
    keep = set()
    for rid in used:
        while rid in regs.rows and rid not in keep:
            keep.add(rid)
            rid = regs.rows[rid]["parent"]
    order = sorted(keep)
    new = {old: i for i, old in enumerate(order)}
    rows = []
    for old in order:
        r = dict(regs.rows[old])
        r["id"], r["parent"] = new[old], new.get(r["parent"], -1)
        rows.append(r)
    run.tables["regions"] = pd.DataFrame(rows, columns=list(run.tables["regions"].columns))
    for name in ID_TABLES:
        t = run.tables.get(name)
        if t is not None and len(t) and "region" in t.columns:
            run.tables[name] = t.assign(region=t["region"].map(lambda v: new.get(int(v), -1)).astype(int))


def one_tree(run):
    """Graft run's OpenMP workers' regions in place (see the module's doc);
    sets run.graft = {'grafted': worker instances moved, 'idle_rows': n,
    'several': names of parallel regions left at the root}."""
    run.graft = {"grafted": 0, "idle_rows": 0, "several": []}
    reg, st = run.tables.get("regions"), run.tables.get("region_stats")
    if reg is None or st is None or not len(reg) or not len(st):
        return run
    workers = _workers(run)
    if not workers:
        return run
    regs = _Regions(reg)
    events = [e for e in run.event_names if e in st.columns]
    idle = _idle_rows(regs, st, workers, events)
    plan, several = _plan(regs, st, workers)
    run.graft["several"] = sorted(several)
    if not plan and not idle:
        return run
    maps = _id_maps(regs, plan)
    for name in ID_TABLES:
        run.tables[name] = _remap_ids(run.tables.get(name), maps, workers)
    paths = {rank: {regs.rows[o]["path"]: regs.rows[n]["path"] for o, n in m.items()} for rank, m in maps.items()}
    for name in PATH_TABLES:
        run.tables[name] = _remap_ids(run.tables.get(name), paths, workers)
    st = run.tables["region_stats"]
    if idle:
        st = pd.concat([st, pd.DataFrame(idle).astype({c: st[c].dtype for c in ("rank", "thread", "region")})],
                       ignore_index=True)
    run.tables["region_stats"] = _sum_duplicates(st, events)
    for name in list(ID_TABLES) + list(PATH_TABLES):
        if run.tables.get(name) is None:
            run.tables.pop(name, None)
    used = set(run.tables["region_stats"]["region"].astype(int))
    for name in ID_TABLES[1:]:
        t = run.tables.get(name)
        if t is not None and len(t) and "region" in t.columns:
            used |= {int(v) for v in t["region"] if int(v) in regs.rows}
    grafted = {i for (_, w) in plan for i in regs.subtree(w)}
    used |= {i for i in regs.rows if i not in grafted and i < len(reg)}   # the file's other regions stay
    _compact(run, regs, used)
    run.graft = {"grafted": len(plan), "idle_rows": len(idle), "several": sorted(several)}
    return run
