"""GPU tables: kernels and PC samples.

The runtime writes `gpu_kernels` (schema.def): one row per rank, device,
launching thread, region, kernel and metric, with the metric's total, min,
mean and max over the kernel's launches.  Tables of another shape (a
kernel name column and a time column, one row per kernel) are still read:
a kernel table has 'kernel' in its name and a time column; a PC-sample
table has 'pc' or 'sample' in its name, a line column and a samples column
(long form with a stall-reason column, or wide form with one 'stall_*'
column per reason).
"""
import pandas as pd

# Kernel time metrics, best first: the top-kernels table is ordered by the
# first one collected, else by launches.
TIME_METRICS = ("gpu__time_duration.sum", "gpu__time_duration.avg", "gpu__time_duration.max")


def _first(columns, *candidates, contains=None):
    """The first column equal to a candidate, or containing `contains`."""
    for c in candidates:
        if c in columns:
            return c
    return next((c for c in columns if contains and contains in c), None)


def _long_form(t):
    """True for the runtime's layout (a row per kernel and metric)."""
    return all(c in t.columns for c in ("kernel", "metric", "total", "launches"))


def kernel_table(run):
    """(name, DataFrame) of the GPU kernel table, or (None, None)."""
    t = run.tables.get("gpu_kernels")
    if t is not None and len(t) and _long_form(t):
        return "gpu_kernels", t
    for name, t in run.tables.items():
        if "kernel" in name.lower() and len(t) and _time_column(t):
            return name, t
    return None, None


def _time_column(t):
    """The kernel time column (…time_ns, …_ns or …duration)."""
    return _first(t.columns, "time_ns", "duration_ns", contains="_ns")


def _top_long(t, top):
    """Kernels of the runtime's table: launches (counted once, from the
    first metric's rows), each metric's total over all launches and its
    mean per launch; ordered by kernel time when a time metric was
    collected, else by launches."""
    metrics = list(dict.fromkeys(t["metric"]))
    first = t[t["metric"] == metrics[0]]
    out = pd.DataFrame({"launches": first.groupby("kernel")["launches"].sum()})
    for m in metrics:
        g = t[t["metric"] == m].groupby("kernel")
        out[f"{m} total"] = g["total"].sum(min_count=1)
        out[f"{m} per launch"] = out[f"{m} total"] / g["launches"].sum()
    key = next((f"{m} total" for m in TIME_METRICS if m in metrics), "launches")
    return out.sort_values([key, "launches"], ascending=False).head(top).reset_index()


def top_kernels(run, top):
    """(title, DataFrame) of the top kernels with launches and metric
    values, or None."""
    _, t = kernel_table(run)
    if t is None:
        return None
    if _long_form(t):
        timed = any(m in set(t["metric"]) for m in TIME_METRICS)
        title = "GPU kernels by time" if timed else "GPU kernels by launches"
        if "cache" in t.columns and len(t):   # schema 5: the cache control used
            modes = sorted({c.decode() if isinstance(c, bytes) else str(c) for c in t["cache"]})
            title += f" (caches before each kernel: {', '.join(modes)})"
        return title, _top_long(t, top or len(t))
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
    return "GPU kernels by time", out.sort_values("time_s", ascending=False).head(top).reset_index()


#: the CPU's call-path samples (tally-run --sampling, sampling.py): not GPU PC samples
_CPU_SAMPLE_TABLES = ("samples", "sample_paths", "sampling_status")


def pc_table(run):
    """The GPU PC-sample DataFrame, or None (schema.def's pc_samples first;
    never the CPU's call-path samples, whose paths also have lines)."""
    t = run.tables.get("pc_samples")
    if t is not None and len(t) and "line" in t.columns:
        return t
    for name, t in run.tables.items():
        low = name.lower()
        if name in _CPU_SAMPLE_TABLES:
            continue
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
    return m.head(top or len(m)).reset_index().rename(columns={"where": "line"})


#: short, so that the "GPUs by rank" table fits 120 columns with a whole
#: UUID (the report's note says what they mean)
_PROFILED = {1: "yes", 0: "no, :device=", -1: "no, shared", -2: "no, failed"}
PROFILED_NOTE = ("profiled 'no, shared': another process profiles that GPU (its rank under 'owner'); "
                 "'no, :device=': the metrics name another device; 'no, failed': the profiler could not start")


def rank_map(run):
    """The rank -> GPU map of `gpu_devices` (schema 5): a row per rank and
    GPU used, with its UUID, PCI bus id, whether the rank profiled it and
    which rank did (owner); the GPU's name is a column only when the GPUs
    differ (else rank_map_name gives it).  None when the file has no such
    rows."""
    t = run.tables.get("gpu_devices")
    if t is None or not len(t):
        return None
    cols = ["rank", "device", "uuid", "pci_bus_id"] + (["name"] if t["name"].nunique() > 1 else []) + ["launches"]
    out = t[cols].copy()
    out["profiled"] = [_PROFILED.get(int(p), str(p)) for p in t["profiled"]]
    out["owner"] = t["owner_rank"].values
    return out.sort_values(["rank", "device"]).reset_index(drop=True)


def rank_map_name(run):
    """The one name of the GPUs of `gpu_devices`, or None when they differ."""
    t = run.tables.get("gpu_devices")
    if t is None or not len(t) or t["name"].nunique() != 1:
        return None
    v = t["name"].iloc[0]
    return v.decode() if isinstance(v, bytes) else str(v)
