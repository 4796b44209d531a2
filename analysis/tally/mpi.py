"""The MPI profile: calls by time and bytes, per rank, message sizes."""
import numpy as np
import pandas as pd

from . import stats

HIST_PREFIX = "hist_"


def hist_columns(mpi):
    """The message-size bucket columns, in bucket order."""
    cols = [c for c in mpi.columns if c.startswith(HIST_PREFIX) and c[len(HIST_PREFIX):].isdigit()]
    return sorted(cols, key=lambda c: int(c[len(HIST_PREFIX):]))


def bucket_label(k):
    """Size range of log2 bucket k: 0 -> '0 B', k -> '[2^(k-1), 2^k) B'."""
    return "0 B" if k == 0 else f"{_size(2 ** (k - 1))} - {_size(2 ** k)}"


def _size(n):
    """Bytes in binary units."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024:
            return f"{n:g} {unit}"
        n /= 1024
    return f"{n:g} PiB"


def by_function(run, all_ranks):
    """Per MPI function: calls, time (total and across-rank stats), bytes."""
    mpi = run.mpi
    g = mpi.groupby("function")
    out = pd.DataFrame({"calls": g["calls"].sum(), "time_s": g["time_ns"].sum() / 1e9,
                        "bytes_sent": g["bytes_sent"].sum(), "bytes_recv": g["bytes_recv"].sum()})
    s = stats.summary(mpi.assign(time_s=mpi["time_ns"] / 1e9), "time_s", "function", "rank", all_ranks)
    out = out.join(s.add_prefix("time_s ").add_suffix(" over ranks"))
    with np.errstate(divide="ignore", invalid="ignore"):
        out["bytes/call"] = (out["bytes_sent"] + out["bytes_recv"]) / out["calls"]
    return out.sort_values("time_s", ascending=False).reset_index()


def by_site(run):
    """MPI call sites (mpiP style): calls, time and bytes per function and
    calling stack, summed over ranks and over the address stacks that share
    a source name (an unrolled loop); None when the file has none."""
    if not run.has("mpi_sites"):
        return None
    t = run.table("mpi_sites")
    if t.empty:
        return None
    g = t.groupby(["function", "site"])
    out = pd.DataFrame({"calls": g["calls"].sum(), "time_s": g["time_ns"].sum() / 1e9,
                        "bytes_sent": g["bytes_sent"].sum(), "bytes_recv": g["bytes_recv"].sum(),
                        "ranks": g["rank"].nunique(),
                        "address": g["address"].first()})
    with np.errstate(divide="ignore", invalid="ignore"):
        out["time/call [us]"] = out["time_s"] / out["calls"] * 1e6
    return out.sort_values("time_s", ascending=False).reset_index()


def by_rank(run):
    """Per rank: MPI time, share of the rank's wall time, bytes, bandwidth."""
    mpi = run.mpi
    g = mpi.groupby("rank")
    out = pd.DataFrame({"mpi_time_s": g["time_ns"].sum() / 1e9,
                        "bytes": g["bytes_sent"].sum() + g["bytes_recv"].sum()})
    wall = run.ranks.set_index("rank")["elapsed_ns"] / 1e9 if run.has("ranks") else None
    if wall is not None:
        out["mpi_fraction"] = out["mpi_time_s"] / wall.reindex(out.index)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["bytes/s in MPI"] = np.where(out["mpi_time_s"] > 0, out["bytes"] / out["mpi_time_s"], np.nan)
    return out.reset_index()


def time_matrix(run):
    """rank x function matrix of MPI time in seconds (for the breakdown plot)."""
    return stats.grid(run.mpi.assign(time_s=run.mpi["time_ns"] / 1e9), "time_s", "rank", "function")


def histogram(run):
    """Calls per message-size bucket over all ranks and functions (non-empty buckets)."""
    cols = hist_columns(run.mpi)
    sums = run.mpi[cols].sum() if cols else pd.Series(dtype="int64")
    rows = [(bucket_label(int(c[len(HIST_PREFIX):])), int(v)) for c, v in sums.items() if v]
    return pd.DataFrame(rows, columns=["message size", "calls"])
