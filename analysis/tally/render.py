"""Rendering report sections as text, CSV, JSON or Markdown."""
import html
import io
import json
import math
import textwrap

import numpy as np


def _cell(v):
    """One value as report text: integers plainly, floats to 4 significant digits."""
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "-"
        return f"{v:.0f}" if float(v).is_integer() and abs(v) < 1e15 else f"{v:.4g}"
    return str(v)


def _strings(frame):
    """frame with every cell formatted."""
    return frame.apply(lambda col: col.map(_cell)) if len(frame) else frame.astype(str)


#: the widest text line by default; the first (key) column's cells are cut at KEY_MAX
WIDTH = 120
KEY_MAX = 100


def _cut(v, n):
    """v in at most n characters (an ellipsis marks a cut)."""
    return v if len(v) <= n else v[:max(1, n - 1)] + "…"


def _blocks(widths, width):
    """Column indices per block: the key column (0) and as many others as
    fit in width; every block repeats the key."""
    blocks, cur, used = [], [0], widths[0]
    for i in range(1, len(widths)):
        if len(cur) > 1 and used + 2 + widths[i] > width:
            blocks.append(cur)
            cur, used = [0], widths[0]
        cur.append(i)
        used += 2 + widths[i]
    return blocks + [cur]


def _aligned(frame, width=WIDTH):
    """Lines of a table: text columns left-aligned, numbers right-aligned;
    with a width, cells are cut to fit and columns that do not fit beside
    the key column go to further blocks (width None: one block, whole cells)."""
    f = _strings(frame)
    cols = [str(c) for c in frame.columns]
    rows = [[str(v) for v in row] for row in f.itertuples(index=False)]
    left = [frame[c].dtype == object for c in frame.columns]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    if width:
        caps = [KEY_MAX] + [max(12, width - 2 - min(widths[0], KEY_MAX))] * (len(cols) - 1)
        cols = [_cut(c, cap) for c, cap in zip(cols, caps)]
        rows = [[_cut(v, cap) for v, cap in zip(r, caps)] for r in rows]
        widths = [min(w, cap) for w, cap in zip(widths, caps)]
    out = []
    for b in (_blocks(widths, width) if width else [list(range(len(cols)))]):
        def line(values, b=b):
            return "  ".join(values[i].ljust(widths[i]) if left[i] else values[i].rjust(widths[i]) for i in b).rstrip()
        out += ([""] if out else []) + [line(cols)] + [line(r) for r in rows]
    return out


def text(sections, width=WIDTH):
    """Plain text: a title line, the table, the note; no line wider than
    width (None: no limit)."""
    out = []
    for s in sections:
        out.append(_cut(f"== {s.title}", width) if width else f"== {s.title}")
        out += ["(no rows)"] if s.frame.empty else _aligned(s.frame, width)
        if s.note:
            note = f"({s.note})"
            out += textwrap.wrap(note, width, initial_indent="   ", subsequent_indent="    ",
                                 break_on_hyphens=False) if width else [f"   {note}"]
        out.append("")
    return "\n".join(out)


def _md(v):
    """A cell or title as Markdown text: HTML escaped as in the HTML report
    (a region named <script> stays text where Markdown is shown as HTML),
    pipes escaped, newlines as spaces."""
    return html.escape(str(v), quote=True).replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def markdown(sections):
    """GitHub Markdown: '## title' and a pipe table per section."""
    out = []
    for s in sections:
        out += [f"## {_md(s.title)}", ""]
        f = _strings(s.frame)
        out.append("| " + " | ".join(_md(c) for c in f.columns) + " |")
        out.append("|" + "---|" * len(f.columns))
        for row in f.itertuples(index=False):
            out.append("| " + " | ".join(_md(v) for v in row) + " |")
        if s.note:
            out += ["", f"_{_md(s.note)}_"]
        out.append("")
    return "\n".join(out)


def csv(sections):
    """CSV: each section as '# title' followed by its table."""
    buf = io.StringIO()
    for s in sections:
        buf.write(f"# {s.title}\n")
        s.frame.to_csv(buf, index=False)
        buf.write("\n")
    return buf.getvalue()


def _jsonable(v):
    """numpy scalars -> Python, NaN -> None."""
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if math.isnan(v) else float(v)
    return v


def records(frame):
    """A DataFrame as a list of JSON-ready dicts."""
    cols = [str(c) for c in frame.columns]
    return [{c: _jsonable(v) for c, v in zip(cols, row)} for row in frame.itertuples(index=False)]


def as_json(sections):
    """JSON: {"sections": [{"title", "note", "rows": [...]}, ...]}."""
    return json.dumps({"sections": [{"title": s.title, "note": s.note, "rows": records(s.frame)}
                                    for s in sections]}, indent=1, default=str)


FORMATS = {"text": text, "markdown": markdown, "csv": csv, "json": as_json}


def render(sections, fmt, width=WIDTH):
    """The report in format fmt (text, csv, json, markdown); text lines fit width."""
    return text(sections, width) if fmt == "text" else FORMATS[fmt](sections)
