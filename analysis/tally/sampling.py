"""sampling.py - the call-path samples (TALLY_SAMPLING, docs/sampling.md):
hot functions and lines in all and per region, with the ranks' imbalance,
and folded stacks (flamegraph.pl, speedscope, inferno read them).

A sample's path is a row of sample_paths (its innermost frame); the
frames up to the outermost follow `parent`."""
import pandas as pd


def source_note(run):
    """What a sample stands for, in the file's words (sampling_status.note
    of the first sampled thread: the source and its rate or period); ""
    without one."""
    if not run.has("sampling_status"):
        return ""
    st = run.table("sampling_status")
    notes = [str(n) for n, s in zip(st["note"], st["status"]) if str(n) and not str(s)]
    return notes[0] if notes else ""


def loss_note(run):
    """The samples lost and why, summed over the file's threads
    (sampling_status: lost_full, lost_stack, lost_unwind, and from schema 8
    unsignalled, the perf source's periods that brought no signal); ""
    when none was lost."""
    if not run.has("sampling_status"):
        return ""
    st = run.table("sampling_status")
    why = (("lost_full", "buffer full"), ("lost_stack", "on an alternate stack"), ("lost_unwind", "unwinding"),
           ("unsignalled", "periods without a signal"))
    parts = [f"{int(st[c].sum())} {w}" for c, w in why if c in st and int(st[c].sum()) > 0]
    if not parts:
        return ""
    return f"{int(st['kept'].sum())} samples kept; lost: " + ", ".join(parts)


def _label(function, module):
    """A frame's name; one without a symbol (a stripped library's local
    function) by its module, '? (libgomp.so.1)', so that the unnamed code
    of different libraries is not one '?'."""
    f = str(function)
    if f in ("?", ""):
        m = str(module).rsplit("/", 1)[-1]
        return f"? ({m})" if m and m != "?" else "?"
    return f


def _frames(paths):
    """id -> list of (function, file, line) from the outermost frame."""
    parent = dict(zip(paths["id"], paths["parent"]))
    mods = paths["module"] if "module" in paths else [""] * len(paths)
    name = {i: _label(f, m) for i, f, m in zip(paths["id"], paths["function"], mods)}
    out = {}

    def chain(i):
        if i in out:
            return out[i]
        seq = []
        j = i
        while j >= 0 and j not in out and len(seq) < 4096:
            seq.append(j)
            j = int(parent.get(j, -1))
        base = out[j] if j >= 0 and j in out else []
        for k in reversed(seq):
            base = base + [name.get(k, "?")]
            out[k] = base
        return out[i]
    for i in paths["id"]:
        chain(int(i))
    return out


def _joined(run):
    """The samples with their innermost frame's columns; None without samples."""
    if not run.has("samples") or not run.has("sample_paths"):
        return None
    s, p = run.table("samples"), run.table("sample_paths")
    j = s.merge(p.rename(columns={"id": "path"}), on="path", how="left")
    if "module" in j:
        j["function"] = [_label(f, m) for f, m in zip(j["function"], j["module"])]
    return j


def hot_functions(run, top=20):
    """Per function: self samples and share, inclusive share, hottest line,
    and max/mean of the ranks' self samples (imbalance); None without samples."""
    j = _joined(run)
    if j is None:
        return None
    total = j["samples"].sum()
    j = j.assign(where=j["file"].astype(str) + ":" + j["line"].astype(str))
    incl = _inclusive(run, j)
    out = pd.DataFrame({"self": j.groupby("function")["samples"].sum()}).reindex(incl.index.union(
        j["function"].unique()), fill_value=0)
    out["self_%"] = 100.0 * out["self"] / max(total, 1)
    lines = j.groupby(["function", "where"])["samples"].sum().reset_index()
    lines = lines.sort_values("samples", ascending=False).drop_duplicates("function").set_index("function")
    out["hot_line"] = lines["where"]
    ranks = j.groupby(["function", "rank"])["samples"].sum().unstack(fill_value=0)
    nranks = max(int(run.meta.get("nranks", 1) or 1), ranks.shape[1])
    out["imbalance"] = ranks.max(axis=1) / (ranks.sum(axis=1) / nranks)
    out["incl_%"] = 100.0 * incl / max(total, 1)
    out = out.sort_values(["self", "incl_%"], ascending=False).rename_axis("function").reset_index()
    return out[["function", "self", "self_%", "incl_%", "hot_line", "imbalance"]].head(top or len(out))


def _inclusive(run, j):
    """Per function: samples with the function anywhere on their path."""
    frames = _frames(run.table("sample_paths"))
    acc = {}
    for path, n in j.groupby("path")["samples"].sum().items():
        for f in set(frames.get(int(path), [])):
            acc[f] = acc.get(f, 0) + n
    return pd.Series(acc, dtype="float64")


def hot_by_region(run, top=5):
    """Per region: its samples and its top functions by self samples."""
    j = _joined(run)
    if j is None:
        return None
    reg = run.table("regions")
    rname = dict(zip(reg["id"], reg["path"])) if "path" in reg.columns else {}
    rows = []
    for r, g in j.groupby("region"):
        tot = g["samples"].sum()
        fn = g.groupby("function")["samples"].sum().sort_values(ascending=False).head(top or 10**9)
        for f, n in fn.items():
            rows.append({"region": rname.get(r, str(r)), "region_samples": tot, "function": f,
                         "samples": n, "share_%": 100.0 * n / max(tot, 1)})
    out = pd.DataFrame(rows)
    return out.sort_values(["region_samples", "samples"], ascending=False) if len(out) else out


def folded(run):
    """Folded stacks, one line per path: 'outer;...;inner count'."""
    j = _joined(run)
    if j is None:
        return ""
    frames = _frames(run.table("sample_paths"))
    lines = []
    for path, n in j.groupby("path")["samples"].sum().items():
        stack = ";".join(f.replace(";", ":").replace(" ", "_") for f in frames.get(int(path), ["?"]))
        lines.append(f"{stack} {int(n)}")
    return "\n".join(sorted(lines)) + "\n"
