"""PNG plots: rank x region heatmap, imbalance bars, MPI time per rank,
stall reasons per hot line.  matplotlib is imported only here (Agg)."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from . import gpu, mpi, stats  # noqa: E402

MAX_REGIONS = 40


def _short(name, n=28):
    """A label no longer than n characters."""
    name = str(name)
    return name if len(name) <= n else "…" + name[-(n - 1):]


def _save(fig, directory, name):
    """Save fig as directory/name.png and close it; return the path."""
    path = os.path.join(directory, name + ".png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _top_regions(an, column, top):
    """Ids of the regions with the largest max of column across ranks."""
    s = stats.summary(an.per_rank, column, all_columns=an.ranks)
    return list(s["max"].sort_values(ascending=False).head(min(top, MAX_REGIONS)).index)


def heatmap(an, column, directory, top):
    """Rank x region heatmap of column."""
    ids = _top_regions(an, column, top)
    g = stats.grid(an.per_rank, column, all_columns=an.ranks).reindex(ids)
    names = dict(zip(an.run.regions["id"].astype(int), an.run.regions["name"]))
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(ids) + 3), max(4, 0.12 * len(an.ranks) + 3)))
    im = ax.imshow(g.to_numpy().T, aspect="auto", interpolation="nearest", cmap="viridis")
    ax.set_xticks(range(len(ids)), [_short(names.get(int(i), i)) for i in ids], rotation=60, ha="right", fontsize=7)
    ax.set_xlabel("region (largest first)")
    ax.set_ylabel("MPI rank")
    step = max(1, len(an.ranks) // 16)
    ax.set_yticks(range(0, len(an.ranks), step), [str(r) for r in an.ranks[::step]])
    fig.colorbar(im, ax=ax, label=_unit_label(column))
    ax.set_title(f"{_unit_label(column)} per rank and region")
    return _save(fig, directory, "heatmap")


def _unit_label(column):
    """Axis label of a per_rank column."""
    return {"time_s": "inclusive time [s]", "excl_s": "exclusive time [s]", "visits": "visits [count]"}.get(
        column, column if "[" in column else f"{column} [count]")


def imbalance(an, column, directory, top):
    """Bars of imbalance (max/mean - 1) of column per region."""
    ids = _top_regions(an, column, top)
    s = stats.summary(an.per_rank, column, all_columns=an.ranks).reindex(ids)
    names = dict(zip(an.run.regions["id"].astype(int), an.run.regions["name"]))
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(ids) + 3), 4.5))
    ax.bar(range(len(ids)), np.nan_to_num(s["imbalance"].to_numpy() * 100), color="tab:red")
    ax.set_xticks(range(len(ids)), [_short(names.get(int(i), i)) for i in ids], rotation=60, ha="right", fontsize=7)
    ax.set_xlabel("region (largest first)")
    ax.set_ylabel("imbalance, max/mean - 1 [%]")
    ax.set_title(f"Load imbalance of {_unit_label(column)} across {len(an.ranks)} ranks")
    return _save(fig, directory, "imbalance")


def mpi_breakdown(an, directory, top):
    """Stacked bars: MPI time per rank, split by function."""
    m = mpi.time_matrix(an.run)
    order = m.sum().sort_values(ascending=False).index
    m = m[order[:10]].assign(**({"other": m[order[10:]].sum(axis=1)} if len(order) > 10 else {}))
    fig, ax = plt.subplots(figsize=(max(6, 0.15 * len(m) + 4), 4.5))
    bottom = np.zeros(len(m))
    for fn in m.columns:
        ax.bar(m.index.astype(int), m[fn].to_numpy(), bottom=bottom, label=fn, width=0.8)
        bottom += m[fn].to_numpy()
    ranks = [int(r) for r in m.index]
    ax.set_xticks(ranks[::max(1, len(ranks) // 16)])
    ax.set_xlabel("MPI rank")
    ax.set_ylabel("time in MPI [s]")
    ax.set_title("MPI time per rank by function")
    ax.legend(fontsize=7, ncol=2)
    return _save(fig, directory, "mpi_time")


def stall_bars(an, directory, top):
    """Stacked bars of samples per stall reason for the hottest lines."""
    m = gpu.stall_matrix(an.run).head(min(top, 20)).drop(columns="total")
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(m) + 4), 4.5))
    bottom = np.zeros(len(m))
    for reason in m.columns:
        ax.bar(range(len(m)), m[reason].to_numpy(), bottom=bottom, label=str(reason))
        bottom += m[reason].to_numpy()
    ax.set_xticks(range(len(m)), [_short(w) for w in m.index], rotation=45, ha="right", fontsize=7)
    ax.set_xlabel("source line (hottest first)")
    ax.set_ylabel("PC samples [count]")
    ax.set_title("Stall reasons per hot line")
    ax.legend(fontsize=7)
    return _save(fig, directory, "stalls")


def all_plots(an, column, directory, top):
    """Every plot whose data exists; returns the paths written."""
    os.makedirs(directory, exist_ok=True)
    out = []
    if an.per_rank is not None:
        out += [heatmap(an, column, directory, top), imbalance(an, column, directory, top)]
    if an.run.has("mpi"):
        out.append(mpi_breakdown(an, directory, top))
    if gpu.stall_matrix(an.run) is not None:
        out.append(stall_bars(an, directory, top))
    return out
