"""tally-report --html: the job on one self-contained page, as Darshan's
job summary does for I/O: job facts, the region tree (top regions),
imbalance, MPI, GPU kernels, NVTX payload tables and every other section
of the text report, the call-path samples' flame graph as an inline SVG
(flamegraph.py), with the plots embedded as data: URIs.  No script, no
external resource: the page opens offline from anywhere."""
import base64
import datetime
import html

from . import render

CSS = """body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px;margin:.4em 0}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}
th{background:#eef}td.t,th.t{text-align:left}td.t{white-space:pre}div.w{overflow-x:auto}p.note{font-size:12px;color:#555}
nav a{margin-right:1em;font-size:13px}figure{display:inline-block;margin:.5em}
img{max-width:100%;border:1px solid #ccc}figcaption{font-size:12px;color:#555}
svg.flame{max-width:100%;height:auto;border:1px solid #ccc}svg.flame g:hover rect{stroke:#000}"""


def _e(v):
    """v as escaped HTML text; control characters shown as \\xNN."""
    s = "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in str(v))
    return html.escape(s, quote=True)


def _anchor(i):
    return f"s{i}"


def table(frame):
    """A DataFrame as an HTML table: text cells left, numbers right."""
    f = render._strings(frame)   # pylint: disable=protected-access
    text = [frame[c].dtype == object for c in frame.columns]
    head = "".join(f"<th class=t>{_e(c)}</th>" if t else f"<th>{_e(c)}</th>" for c, t in zip(frame.columns, text))
    out = [f"<div class=w><table><tr>{head}</tr>"]
    for row in f.itertuples(index=False):
        out.append("<tr>" + "".join(f"<td class=t>{_e(v)}</td>" if t else f"<td>{_e(v)}</td>"
                                    for v, t in zip(row, text)) + "</tr>")
    return "\n".join(out + ["</table></div>"])


def _plots(an, column, top, full):
    """<figure>s of every plot, PNGs as data: URIs."""
    from . import plots
    out = []
    for name, fig in plots.figures(an, column, top or 40, full):
        uri = "data:image/png;base64," + base64.b64encode(plots.png_bytes(fig)).decode("ascii")
        out.append(f'<figure><img alt="{_e(name)}" src="{uri}"><figcaption>{_e(name)}</figcaption></figure>')
    return out


def page(run, an, column, sections, args):
    """The whole page as a string."""
    from . import flamegraph
    title = f"Tally job summary: {run.meta.get('program', '') or args.path}"
    flame = flamegraph.svg(run)
    body = [f"<h1>{_e(title)}</h1>",
            f"<p class=note>{_e(args.path)}; written {_e(datetime.datetime.now().isoformat(timespec='seconds'))} "
            "by tally-report</p>",
            "<nav>" + " ".join(f'<a href="#{_anchor(i)}">{_e(s.title)}</a>' for i, s in enumerate(sections))
            + (' <a href="#flame">Flame graph</a>' if flame else "") + ' <a href="#plots">Plots</a></nav>']
    for i, s in enumerate(sections):
        body.append(f'<h2 id="{_anchor(i)}">{_e(s.title)}</h2>')
        body.append("<p class=note>(no rows)</p>" if s.frame.empty else table(s.frame))
        if s.note:
            body.append(f"<p class=note>{_e(s.note)}</p>")
    if flame:
        body += ['<h2 id="flame">Flame graph (samples)</h2>',
                 "<p class=note>call-path samples of every rank and thread (tally-run --sampling): a frame's width "
                 "is its inclusive samples, its callers below it; hover a frame for its file:line and count</p>",
                 f"<div class=w>{flame}</div>"]
    figs = _plots(an, column, args.top, args.full_names) if column is not None or run.has("mpi") else []
    body.append('<h2 id="plots">Plots</h2>')
    body += figs or ["<p class=note>(no data to plot)</p>"]
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
