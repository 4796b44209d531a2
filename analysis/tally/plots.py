"""PNG plots: rank x region heatmap, imbalance bars, MPI time per rank,
stall reasons per hot line.  matplotlib is imported only here (Agg).

Labels are the short names of names.py, whole (never cut) and distinct;
regions run down the y axis so that a label reads horizontally at any
length; legends sit outside the axes, clear of the data.  figures()
builds them, write() saves them through outfiles (the --plot directory),
png_bytes() for the HTML page.
"""
import io
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from . import gpu, mpi, names, outfiles, stats  # noqa: E402

MAX_REGIONS = 40
FONT = 7


def _top_regions(an, column, top):
    """Ids of the regions with the largest max of column across ranks."""
    s = stats.summary(an.per_rank, column, all_columns=an.ranks)
    return list(s["max"].sort_values(ascending=False).head(min(top, MAX_REGIONS)).index)


def _labels(an, ids, full):
    """Distinct region labels of ids: short names (or whole ones) with the
    ancestors that tell regions of one name apart."""
    return names.region_labels(an.run.regions, ids, full)


def _unit_label(column):
    """Axis label of a per_rank column."""
    return {"time_s": "inclusive time [s]", "excl_s": "exclusive time [s]", "visits": "visits [count]"}.get(
        column, column if "[" in column else f"{column} [count]")


def _height(n):
    """Figure height (inches) for n labelled rows."""
    return max(3.5, 0.16 * n + 1.8)


def heatmap(an, column, top, full=False):
    """Region x rank heatmap of column (regions down, largest first)."""
    ids = _top_regions(an, column, top)
    g = stats.grid(an.per_rank, column, all_columns=an.ranks).reindex(ids)
    fig, ax = plt.subplots(figsize=(max(7, 0.12 * len(an.ranks) + 6), _height(len(ids))))
    im = ax.imshow(g.to_numpy(), aspect="auto", interpolation="nearest", cmap="viridis")
    ax.set_yticks(range(len(ids)), _labels(an, ids, full), fontsize=FONT)
    ax.set_ylabel("region (largest first)")
    ax.set_xlabel("MPI rank")
    step = max(1, len(an.ranks) // 16)
    ax.set_xticks(range(0, len(an.ranks), step), [str(r) for r in an.ranks[::step]])
    fig.colorbar(im, ax=ax, label=_unit_label(column))
    ax.set_title(f"{_unit_label(column)} per region and rank")
    return "heatmap", fig


def imbalance(an, column, top, full=False):
    """Horizontal bars of imbalance (max/mean - 1) of column per region."""
    ids = _top_regions(an, column, top)
    s = stats.summary(an.per_rank, column, all_columns=an.ranks).reindex(ids)
    fig, ax = plt.subplots(figsize=(8, _height(len(ids))))
    ax.barh(range(len(ids)), np.nan_to_num(s["imbalance"].to_numpy() * 100), color="tab:red")
    ax.set_yticks(range(len(ids)), _labels(an, ids, full), fontsize=FONT)
    ax.invert_yaxis()
    ax.set_ylabel("region (largest first)")
    ax.set_xlabel("imbalance, max/mean - 1 [%]")
    ax.set_title(f"Load imbalance of {_unit_label(column)} across {len(an.ranks)} ranks")
    return "imbalance", fig


def mpi_breakdown(an, top, full=False):
    """Stacked bars: MPI time per rank, split by function; legend right of the axes."""
    m = mpi.time_matrix(an.run)
    order = m.sum().sort_values(ascending=False).index
    m = m[order[:10]].assign(**({"other": m[order[10:]].sum(axis=1)} if len(order) > 10 else {}))
    fig, ax = plt.subplots(figsize=(max(7, 0.15 * len(m) + 5), 4.5))
    bottom = np.zeros(len(m))
    for fn in m.columns:
        ax.bar(m.index.astype(int), m[fn].to_numpy(), bottom=bottom, label=str(fn), width=0.8)
        bottom += m[fn].to_numpy()
    ranks = [int(r) for r in m.index]
    ax.set_xticks(ranks[::max(1, len(ranks) // 16)])
    ax.set_xlabel("MPI rank")
    ax.set_ylabel("time in MPI [s]")
    ax.set_title("MPI time per rank by function")
    ax.legend(fontsize=FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return "mpi_time", fig


def _where(label, full):
    """'path/to/file.cu:12' -> 'file.cu:12' unless full."""
    if full or ":" not in str(label):
        return str(label)
    path, line = str(label).rsplit(":", 1)
    return f"{os.path.basename(path)}:{line}"


def stall_bars(an, top, full=False):
    """Stacked horizontal bars of samples per stall reason for the hottest lines."""
    m = gpu.stall_matrix(an.run).head(min(top, 20)).drop(columns="total")
    labels = names.distinct(m.index, lambda w: _where(w, full))
    fig, ax = plt.subplots(figsize=(9, _height(len(m))))
    left = np.zeros(len(m))
    for reason in m.columns:
        ax.barh(range(len(m)), m[reason].to_numpy(), left=left, label=str(reason))
        left += m[reason].to_numpy()
    ax.set_yticks(range(len(m)), [labels[str(w)] for w in m.index], fontsize=FONT)
    ax.invert_yaxis()
    ax.set_ylabel("source line (hottest first)")
    ax.set_xlabel("PC samples [count]")
    ax.set_title("Stall reasons per hot line")
    ax.legend(fontsize=FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return "stalls", fig


def figures(an, column, top, full=False):
    """(name, figure) of every plot whose data exists, laid out."""
    out = []
    if an.per_rank is not None:
        out += [heatmap(an, column, top, full), imbalance(an, column, top, full)]
    if an.run.has("mpi"):
        out.append(mpi_breakdown(an, top, full))
    if gpu.stall_matrix(an.run) is not None:
        out.append(stall_bars(an, top, full))
    for _, fig in out:
        fig.tight_layout()
    return out


def png_bytes(fig):
    """fig as PNG bytes; the figure is closed."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def rendered(an, column, top, full=False):
    """Every plot as (name.png, PNG bytes); with samples the flame graph
    too (flamegraph_png.py: the HTML page has it as an SVG)."""
    from . import flamegraph_png
    flame = flamegraph_png.figure(an.run)
    return [(name + ".png", png_bytes(fig)) for name, fig in figures(an, column, top, full) + ([flame] if flame else [])]


def write_rendered(items, directory):
    """Each (file name, bytes) of items as a new file in directory
    (created, never through a planted link: outfiles); the paths written."""
    paths = []
    with outfiles.OutDir(directory, create=True) as d:
        for name, data in items:
            f, p = d.create(name, binary=True)
            with f:
                f.write(data)
            paths.append(p)
    return paths


def write(an, column, directory, top, full=False):
    """Every plot as directory/<name>.png; returns the paths written."""
    return write_rendered(rendered(an, column, top, full), directory)
