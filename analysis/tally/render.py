"""Rendering report sections as text, CSV, JSON or Markdown."""
import io
import json
import math

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


def _aligned(frame):
    """Lines of a table: text columns left-aligned, numbers right-aligned."""
    f = _strings(frame)
    cols = [str(c) for c in frame.columns]
    left = [frame[c].dtype == object for c in frame.columns]
    widths = [max([len(c)] + [len(v) for v in f[k]]) for c, k in zip(cols, frame.columns)]

    def line(values):
        return "  ".join(v.ljust(w) if lft else v.rjust(w) for v, w, lft in zip(values, widths, left)).rstrip()
    return [line(cols)] + [line([str(v) for v in row]) for row in f.itertuples(index=False)]


def text(sections):
    """Plain text: a title line, the table, the note."""
    out = []
    for s in sections:
        out.append(f"== {s.title}")
        out += ["(no rows)"] if s.frame.empty else _aligned(s.frame)
        if s.note:
            out.append(f"   ({s.note})")
        out.append("")
    return "\n".join(out)


def markdown(sections):
    """GitHub Markdown: '## title' and a pipe table per section."""
    out = []
    for s in sections:
        out += [f"## {s.title}", ""]
        f = _strings(s.frame)
        out.append("| " + " | ".join(str(c) for c in f.columns) + " |")
        out.append("|" + "---|" * len(f.columns))
        for row in f.itertuples(index=False):
            out.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
        if s.note:
            out += ["", f"_{s.note}_"]
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


def render(sections, fmt):
    """The report in format fmt (text, csv, json, markdown)."""
    return FORMATS[fmt](sections)


