"""flamegraph_png.py - the call-path samples' flame graph (flamegraph.py's
tree and frames) as a matplotlib figure, for `tally-report --plot DIR`
(DIR/flamegraph.png).  The same frames as the HTML page's SVG: a bar per
call-path node, its width its inclusive samples (the x axis is samples,
so a bar's width is its count), callers below callees, the outermost
frames on an 'all' bar; frames narrower than flamegraph.MIN_PX of
flamegraph.WIDTH left out.  Each bar carries its path id and samples
(Rectangle.get_gid: "flame <id> <samples>") for readers of the figure."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402

from . import flamegraph  # noqa: E402


def _rgb(name):
    r, g, b = (int(v) for v in flamegraph._colour(name)[4:-1].split(","))
    return (r / 255, g / 255, b / 255)


def figure(run):
    """("flamegraph", figure), None without samples."""
    t = flamegraph.tree(run)
    if t is None:
        return None
    nodes, children, total = t
    frames = flamegraph._frames(nodes, children, total)
    per_px = total / flamegraph.WIDTH
    depth = max([d for _, d, _, _ in frames] + [0]) + 1
    fig, ax = plt.subplots(figsize=(14, max(2.5, 0.22 * depth + 1.2)))
    bar = ax.barh(0, total, left=0, height=0.92, color=to_rgb("#c8c8c8"), edgecolor="white", linewidth=0.3)
    bar[0].set_gid(f"flame -1 {total}")
    ax.text(total * 0.002, 0, f"all ({total} samples)", va="center", fontsize=7)
    for nid, d, x, w in frames:
        name, file, line, n = nodes[nid]
        b = ax.barh(d, n, left=x * per_px, height=0.92, color=_rgb(name), edgecolor="white", linewidth=0.3)
        b[0].set_gid(f"flame {nid} {n}")
        if w >= 60:   # px of the SVG's 1200: room for a label
            room = int(w / 7)
            ax.text(x * per_px + total * 0.002, d, name if len(name) <= room else name[:max(1, room - 2)] + "..",
                    va="center", fontsize=6, clip_on=True)
    ax.set_xlim(0, total)
    ax.set_ylim(-0.6, depth - 0.4)
    ax.set_yticks([])
    ax.set_xlabel("samples (a frame's width: its inclusive samples; callers below)")
    ax.set_title(f"Flame graph: {total} samples, every rank and thread")
    for s in ("top", "right", "left"):
        ax.spines[s].set_visible(False)
    fig.tight_layout()
    return "flamegraph", fig
