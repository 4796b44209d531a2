"""Interchange: CSV of every table, and the region tree as Hatchet's literal JSON.

The literal layout (a list of root nodes) is written here from its
documented shape; see docs/report.md:

    [{"frame": {"name": "(thread)", "type": "region"},
      "metrics": {"time (inc)": 1.5, "time": 0.25, ...},
      "children": [ ... same shape ... ]}]

The tree is the reader's one tree per job (tally.graft): OpenMP workers'
regions under their master's entry, '(OpenMP worker idle)' of type 'idle'.
"""
import io
import json
import re

from . import outfiles, tree
from .graft import IDLE

KIND_NAMES = {0: "root", 1: "region", 2: "mpi", 3: "omp_parallel", 4: "omp_loop",
              5: "omp_barrier", 6: "omp_task"}


def _safe(name):
    """A table name usable as a file name ('nvtx/x' -> 'nvtx_x')."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def csv_dir(run, directory):
    """Write <table>.csv for every table with rows, and meta.csv (through
    outfiles: never through a planted link); return (paths written, names
    of the tables left out because they have no rows)."""
    paths, empty = [], []
    with outfiles.OutDir(directory, create=True) as d:
        for name, t in run.tables.items():
            if not len(t):
                empty.append(name)
                continue
            f, p = d.create(_safe(name) + ".csv")
            with f:
                t.to_csv(f, index=False)
            paths.append(p)
        f, p = d.create("meta.csv")
        with f:
            f.write("attribute,value\n")
            for k, v in run.meta.items():
                f.write(f"{k},\"{str(v).replace(chr(34), chr(34) * 2)}\"\n")
    return paths + [p], empty


def _node_metrics(sums, rid, events):
    """Hatchet metrics of one node: times in seconds summed over ranks and
    threads; a counter not measured (NaN) is null."""
    def get(col):
        v = float(sums[col].get(rid, 0)) if col in sums.columns else 0.0
        return None if v != v else v
    m = {"time (inc)": (get("incl_ns") or 0) / 1e9, "time": (get("excl_ns") or 0) / 1e9,
         "visits": int(get("visits") or 0)}
    for e in events:
        m[f"{e} (inc)"] = get(e)
        m[e] = get(f"{e} (excl)")
    return m


def literal(run):
    """The region tree in Hatchet's literal format (a list of root dicts)."""
    st = tree.with_exclusive(run)
    sums = st.groupby("region").sum(numeric_only=True, min_count=1)
    events = [e for e in run.event_names if e in st.columns]
    reg = run.regions
    names = dict(zip(reg["id"].astype(int), reg["name"]))
    kinds = dict(zip(reg["id"].astype(int), reg["kind"].astype(int)))
    kids = tree.children(reg)

    def node(rid):
        kind = "idle" if names[rid] == IDLE else KIND_NAMES.get(kinds[rid], "region")
        return {"frame": {"name": str(names[rid]), "type": kind},
                "metrics": _node_metrics(sums, rid, events),
                "children": [node(c) for c in kids.get(rid, [])]}
    return [node(r) for r in kids.get(-1, [])]


def hatchet_json(run, path):
    """Write the literal tree to a new file at path (outfiles); returns the path written."""
    buf = io.StringIO()
    json.dump(literal(run), buf, indent=1)
    return outfiles.write(path, buf.getvalue())
