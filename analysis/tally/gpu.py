"""GPU tables: kernels and PC samples, found by what their columns say.

The report recognises them by shape rather than by name: a kernel table
has 'kernel' in its name and a time column; a PC-sample table has 'pc' or
'sample' in its name, a line column and a samples column (long form with
a stall-reason column, or wide form with one 'stall_*' column per reason).
"""
import pandas as pd


def _first(columns, *candidates, contains=None):
    """The first column equal to a candidate, or containing `contains`."""
    for c in candidates:
        if c in columns:
            return c
    return next((c for c in columns if contains and contains in c), None)


def kernel_table(run):
    """(name, DataFrame) of the GPU kernel table, or (None, None)."""
    for name, t in run.tables.items():
        if "kernel" in name.lower() and len(t) and _time_column(t):
            return name, t
    return None, None


def _time_column(t):
    """The kernel time column (…time_ns, …_ns or …duration)."""
    return _first(t.columns, "time_ns", "duration_ns", contains="_ns")


def top_kernels(run, top):
    """Top kernels by total time with launches and mean of metric columns."""
    _, t = kernel_table(run)
    if t is None:
        return None
    name = _first(t.columns, "name", "kernel", "function", contains="name")
    tcol = _time_column(t)
    num = [c for c in t.columns if c not in ("rank", "device", "thread", "region", name, tcol)
           and pd.api.types.is_numeric_dtype(t[c])]
    g = t.groupby(name)
    out = pd.DataFrame({"time_s": g[tcol].sum() / 1e9})
    for c in num:
        out[c] = g[c].sum() if c in ("launches", "calls", "samples") else g[c].mean()
    occ = next((c for c in num if "warps_active" in c and "pct" in c), None)
    if occ:
        out = out.rename(columns={occ: "achieved occupancy [%]"})
    return out.sort_values("time_s", ascending=False).head(top).reset_index()


def pc_table(run):
    """The PC-sample DataFrame, or None (schema.def's pc_samples first)."""
    t = run.tables.get("pc_samples")
    if t is not None and len(t) and "line" in t.columns:
        return t
    for name, t in run.tables.items():
        low = name.lower()
        if ("pc" in low or "sample" in low) and len(t) and "line" in t.columns:
            return t
    return None


def stall_matrix(run):
    """(file:line) x stall reason matrix of samples, hottest lines first; or None."""
    t = pc_table(run)
    if t is None:
        return None
    if "not_issued" in t.columns:   # '_not_issued' reasons are subsets of their base reason
        t = t[t["not_issued"] == 0]
    where = t["file"].astype(str) + ":" + t["line"].astype(str) if "file" in t.columns else t["line"].astype(str)
    reason = _first(t.columns, "stall_reason", "reason", "stall")
    if reason and "samples" in t.columns:
        m = t.assign(where=where).pivot_table(index="where", columns=reason, values="samples",
                                              aggfunc="sum", fill_value=0)
    else:
        wide = [c for c in t.columns if c.startswith("stall_")]
        m = t.assign(where=where).groupby("where")[wide].sum()
    m["total"] = m.sum(axis=1)
    return m.sort_values("total", ascending=False)


def hot_lines(run, top):
    """Hottest source lines with samples per stall reason; or None."""
    m = stall_matrix(run)
    if m is None:
        return None
    return m.head(top).reset_index().rename(columns={"where": "line"})
