"""flamegraph.py - the call-path samples (TALLY_SAMPLING) as a flame graph:
an inline SVG for the HTML page (no script: each frame's <title> is its
tooltip), all ranks and threads together.  A frame's width is its
inclusive samples; the outermost frames stand on an 'all' bar; a frame
narrower than MIN_PX is left out (its samples stay in its parent's
width)."""
import html
import zlib

WIDTH, ROW, FONT = 1200, 16, 11
MIN_PX = 0.5
MAX_RECTS = 4000


def _e(v):
    return html.escape(str(v), quote=True)


def _s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def tree(run):
    """(nodes, children, total): nodes {id: [name, file, line, inclusive]} of
    the sample_paths rows, children {id: [ids]} with -1 the 'all' root;
    None without samples."""
    if not run.has("samples") or not run.has("sample_paths"):
        return None
    p, s = run.table("sample_paths"), run.table("samples")
    nodes = {int(i): [_s(f), _s(fl), int(ln), 0] for i, f, fl, ln in zip(p["id"], p["function"], p["file"], p["line"])}
    parent = {int(i): int(q) for i, q in zip(p["id"], p["parent"])}
    for pid, n in s.groupby("path")["samples"].sum().items():
        j, hops = int(pid), 0
        while j >= 0 and j in nodes and hops < 4096:   # each ancestor once per path
            nodes[j][3] += int(n)
            j, hops = parent.get(j, -1), hops + 1
    children = {}
    for i, q in parent.items():
        if nodes[i][3] > 0:
            children.setdefault(q if q in nodes else -1, []).append(i)
    total = sum(nodes[i][3] for i in children.get(-1, []))
    return (nodes, children, total) if total > 0 else None


def _colour(name):
    h = zlib.crc32(name.encode())
    return f"rgb({205 + h % 50},{80 + (h >> 8) % 120},{30 + (h >> 16) % 40})"


def _frames(nodes, children, total):
    """(id, depth, x0, width px) of every frame drawn, the outermost first."""
    out, stack, scale = [], [(-1, 0, 0.0)], WIDTH / total
    while stack and len(out) < MAX_RECTS:
        nid, depth, x = stack.pop()
        for c in sorted(children.get(nid, []), key=lambda k: nodes[k][0]):
            w = nodes[c][3] * scale
            if w >= MIN_PX:
                out.append((c, depth + 1, x, w))
                stack.append((c, depth + 1, x))
            x += w
    return out


def svg(run):
    """The flame graph as an <svg> element (str), None without samples."""
    t = tree(run)
    if t is None:
        return None
    nodes, children, total = t
    frames = _frames(nodes, children, total)
    depth = max([d for _, d, _, _ in frames] + [0]) + 1
    height = depth * ROW + 4
    out = [f'<svg class="flame" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="monospace" font-size="{FONT}">',
           f'<g data-id="-1" data-samples="{total}"><title>all: {total} samples (100%)</title>'
           f'<rect x="0" y="{height - ROW}" width="{WIDTH}" height="{ROW - 1}" fill="rgb(200,200,200)"/>'
           f'<text x="3" y="{height - 4}">all ({total} samples)</text></g>']
    for nid, d, x, w in frames:
        name, file, line, n = nodes[nid]
        y = height - (d + 1) * ROW
        where = f" ({file}:{line})" if file else ""
        label = name if len(name) * FONT * 0.6 <= w - 4 else name[:max(0, int((w - 4) / (FONT * 0.6)) - 2)] + ".."
        out.append(f'<g data-id="{nid}" data-samples="{n}"><title>{_e(name + where)}: {n} samples '
                   f'({100.0 * n / total:.1f}%)</title>'
                   f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{ROW - 1}" fill="{_colour(name)}"/>'
                   + (f'<text x="{x + 2:.2f}" y="{y + ROW - 4}">{_e(label)}</text>' if w >= 3 * FONT else "")
                   + "</g>")
    out.append("</svg>")
    return "\n".join(out)
