"""sampling_hatchet.py - the call-path samples (TALLY_SAMPLING) as
Hatchet's literal graph format (docs/sampling.md), which
hatchet.GraphFrame.from_literal reads (and Thicket through it): a JSON
list of root nodes, each

  {"frame": {"name": FUNCTION, "type": "function", "file": ..., "line": ...,
             "module": ..., "inlined": 0|1},
   "metrics": {"samples": self, "samples (inc)": inclusive,
               "time": self s, "time (inc)": inclusive s},
   "children": [...]}

One node per call-path node of the file (sample_paths: unified across
ranks, inlined frames their own nodes), its samples summed over every
rank, thread and region; "time" is CPU seconds (samples / the rate);
with a counter as the source (TALLY_SAMPLING_EVENT) the pair is named for
the counter (e.g. "perf::PAGE-FAULTS") and holds its counts (samples x
the period).
Nodes without samples under them are left out.  Every node has the same
metrics, as from_literal wants."""
import json

from .sampling_export import _measure, _paths, _per_thread, _s


def _self_samples(run):
    out = {}
    for counts in _per_thread(run).values():
        for pid, n in counts.items():
            out[pid] = out.get(pid, 0) + n
    return out


def _inclusive(paths, self_n, children):
    """{path: inclusive samples}, children before parents (no recursion)."""
    inc, order, stack = {}, [], list(children.get(-1, []))
    while stack:
        pid = stack.pop()
        order.append(pid)
        stack.extend(children.get(pid, []))
    for pid in reversed(order):
        inc[pid] = self_n.get(pid, 0) + sum(inc[c] for c in children.get(pid, []))
    return inc


def hatchet_literal(run):
    """The literal graph as Python lists and dicts."""
    paths, (kind, _unit, period) = _paths(run), _measure(run)
    period = period / 1e9 if kind == "cpu" else period
    metric = "time" if kind == "cpu" else kind   # seconds, or the counter's counts
    self_n = _self_samples(run)
    children = {}
    for pid, p in sorted(paths.items()):
        parent = int(p["parent"])
        children.setdefault(parent if parent in paths else -1, []).append(pid)
    inc = _inclusive(paths, self_n, children)

    def make(pid):
        p = paths[pid]
        frame = {"name": _s(p["function"]) or "?", "type": "function", "file": _s(p["file"]),
                 "line": int(p["line"]), "module": _s(p["module"]), "inlined": int(p["inlined"])}
        s, i = self_n.get(pid, 0), inc[pid]
        return {"frame": frame, "metrics": {"samples": s, "samples (inc)": i, metric: s * period,
                                            metric + " (inc)": i * period}, "children": []}
    # build top-down without recursion
    roots, stack = [], [(pid, None) for pid in reversed(children.get(-1, []))]
    while stack:
        pid, into = stack.pop()
        if not inc.get(pid):
            continue
        node = make(pid)
        (roots if into is None else into["children"]).append(node)
        stack.extend((c, node) for c in reversed(children.get(pid, [])))
    return roots


def hatchet(run):
    """The literal graph as JSON text."""
    return json.dumps(hatchet_literal(run)) + "\n"
