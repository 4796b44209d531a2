"""The report: a list of sections (title, DataFrame, note) from a Run.

Sections appear only where their tables exist; tables this module does not
know (e.g. NVTX payload tables, pass schedules) are listed generically.
"""
import datetime
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import gpu, metrics, mpi, names, nccl, stats, tree
from .errors import TallyError

KNOWN = {"events", "ranks", "threads", "regions", "region_stats", "mpi", "mpi_sites", "gpu_devices",
         "sample_paths", "samples"}
# Tables that only describe the rows of others: shown when one of those has rows
# (the runtime lists the default NVTX domain of every rank, NVTX or not).
DESCRIBES = {"nvtx_domains": ("nvtx_marks", "nvtx_ranges", "nvtx_schemas", "nvtx_names"),
             "nvtx_names": ("nvtx_marks", "nvtx_ranges", "nvtx_schemas")}


@dataclass
class Section:
    """One part of the report."""
    title: str
    frame: pd.DataFrame
    note: str = ""


class Analysis:
    """Per-(rank, region) values with derived metrics, computed once per Run."""

    def __init__(self, run):
        self.run = run
        self.ranks = run.ranks_present or [0]
        self.per_rank = metrics.compute(tree.per_rank(run)) if run.has("region_stats") else None
        reg = run.regions
        self.roots = set(reg.loc[reg["parent"] < 0, "id"].astype(int)) if len(reg) else set()

    def metric_column(self, name):
        """The per_rank column for a --metric name (time, excl, visits, event, derived)."""
        cols = list(self.per_rank.columns) if self.per_rank is not None else []
        alias = {"time": "time_s", "incl": "time_s", "excl": "excl_s", "visits": "visits"}
        if name.lower() in alias:
            return alias[name.lower()]
        for c in cols:
            if c.lower() == name.lower() or c.lower().startswith(name.lower() + " ["):
                return c
        choices = ["time", "excl", "visits"] + [c for c in cols if c not in
                                                ("rank", "region", "time_s", "excl_s", "visits", "threads")]
        raise TallyError(f"unknown metric {name!r}; choose one of: {', '.join(choices)}")

    def whole_run(self):
        """Per rank: the sum over root regions (the whole measured run)."""
        pr = self.per_rank
        return pr[pr["region"].isin(self.roots)].groupby("rank").sum(numeric_only=True).drop(columns="region")


def _fmt_time(t):
    """UNIX seconds as an ISO date, or '' when 0."""
    return datetime.datetime.fromtimestamp(int(t)).isoformat(sep=" ") if t else ""


def meta_section(run):
    """Run metadata: attributes, ranks, hosts, events, partial status."""
    m = run.meta
    rows = [("program", m.get("program", "")), ("command", m.get("command", "")),
            ("Tally version", m.get("tally_version", "")), ("schema version", m.get("schema_version", "")),
            ("start", _fmt_time(m.get("start_time", 0))), ("end", _fmt_time(m.get("end_time", 0))),
            ("duration [s]", int(m.get("end_time", 0)) - int(m.get("start_time", 0))),
            ("ranks", run.nranks)]
    if run.has("ranks"):
        rk = run.ranks
        rows += [("hosts", rk["host"].nunique()), ("threads", int(rk["nthreads"].sum())),
                 ("elapsed max [s]", rk["elapsed_ns"].max() / 1e9)]
        if "cpu_ns" in rk:   # schema 2: the process's CPU time, unmeasured threads included
            rows.append(("process CPU time, sum over ranks [s]", rk["cpu_ns"].sum() / 1e9))
        rows += cost_rows(rk, float(m.get("write_seconds", 0)))
        rows += [("region enter/exit pairs", int(rk["region_events"].sum())),
                 ("truncated region entries", int(rk["truncated"].sum()))]
        if "regions_folded" in rk:
            rows.append(("region entries folded into '(other regions)' (TALLY_MAX_REGIONS)",
                         int(rk["regions_folded"].sum())))
        rows += budget_rows(run)
        if "nvtx_marks_dropped" in rk:
            rows.append(("NVTX marks not kept (TALLY_NVTX_MAX_MARKS)", int(rk["nvtx_marks_dropped"].sum())))
    rows.append(("write time [s]", float(m.get("write_seconds", 0))))
    given = settings_given(m)
    if given is not None:
        rows.append(("settings given", "; ".join(given) if given else "none (every setting at its default)"))
    for e in run.table("events").itertuples(index=False):
        rows.append((f"event {e.index}", f"{e.name} [{e.units}] ({e.component})"))
    rows += partial_rows(run)
    rows += trace_rows(run)
    rows.append(("files", ", ".join(run.sources)))
    return Section("Run", pd.DataFrame(rows, columns=["item", "value"]))


def settings_given(meta):
    """The settings the run was given, ["TALLY_X=v", ...] (schema 7's
    settings attribute: rank 0's environment and tally-run's flags); None
    for files written before Tally stored them."""
    if "settings" not in meta:
        return None
    # the reader shows the file's newlines as '\\n' (filecheck.printable): a
    # line ends where the next NAME= begins (a value's own newline, quoted
    # by the writer, is followed by no NAME=)
    text = str(meta["settings"])
    return [line for line in re.split(r"\\n(?=[A-Z][A-Z0-9_]*=)|\\n$|\n", text) if line.strip()]


#: Tally's cost per process (schema 5): column, what it covers
#: (short labels, so the Run table's values fit 120 columns: docs/report.md
#: says what each covers)
COST_PARTS = (("init_ns", "start-up"),
              ("mpi_init_ns", "at MPI_Init"),
              ("event_ns", "per event"),
              ("exit_ns", "end (stop, rows)"),
              ("sampling_ns", "sampling"))


def cost_rows(rk, write_s):
    """Tally's own cost: per part the largest rank and the sum over ranks,
    the total beside the file write; files before schema 5 have the
    start-up alone (overhead_ns)."""
    if "init_ns" not in rk:
        return [("Tally start-up max [s] (schema < 5)",
                 rk["overhead_ns"].max() / 1e9)]
    rows = [(f"Tally cost: {what}, max / sum [s]",
             f"{rk[col].max() / 1e9:.6f} / {rk[col].sum() / 1e9:.6f}") for col, what in COST_PARTS if col in rk]
    total = rk["overhead_ns"] / 1e9 + write_s
    rows.append(("Tally cost in all, with the write, max [s]", f"{total.max():.6f}"))
    return rows


def budget_rows(run):
    """The cost budget in one line per job (schema 6), the waits of
    one-thread teams not recorded, and Tally/plain from the file's CPU
    account (an estimate: the events' cost is timed on a sample)."""
    rk = run.ranks
    if not all(c in rk for c in ("budget_pct", "waits_skipped", "tally_cpu_ns", "cpu_ns")):
        return []   # files before schema 6
    # labels short (the Run table's item column), the explanation in the value
    rows = [("waits of one-thread teams", f"{int(rk['waits_skipped'].sum())} (counted, not recorded)")]
    pct = float(rk["budget_pct"].max())
    if pct <= 0:
        rows.append(("cost budget (TALLY_BUDGET)", "off: every record in full"))
    else:
        deg = run.table("degraded")
        n = len(deg) if deg is not None else 0
        steps = deg["step"].value_counts().to_dict() if n else {}
        est = int((deg["sampled_visits"] > 0).sum()) if n and "sampled_visits" in deg else 0
        rows.append(("cost budget (TALLY_BUDGET)",
                     f"{pct:g}%: {n} region(s) degraded '~' ({steps.get(1, 0)} counters off, "
                     f"{steps.get(2, 0)} counters sampled, {steps.get(3, 0)} visits only; "
                     f"{est} with counters estimated from a sample '~e')"))
    cpu, tally = float(rk["cpu_ns"].sum()), float(rk["tally_cpu_ns"].sum())
    rows.append(("Tally CPU time, sum over ranks [s]",
                 f"{tally / 1e9:.6f} of {cpu / 1e9:.6f} (loading: an upper bound; events: a timed sample)"))
    if cpu > tally > 0:
        rows.append(("Tally/plain from the file", f"{cpu / (cpu - tally):.3f} (estimate: CPU with / without Tally's)"))
    return rows


def degraded_ids(run):
    """Region id -> its mark, for the regions the budget degraded on some
    rank or thread: '~e' where a sampled step estimated counters (the sums
    over ranks and threads hold an estimate), else '~'."""
    deg = run.table("degraded") if run.has("degraded") else None
    if deg is None or not len(deg):
        return {}
    est = set(deg[deg["sampled_visits"] > 0]["region"].astype(int)) if "sampled_visits" in deg else set()
    return {rid: "~e" if rid in est else "~" for rid in deg["region"].astype(int)}


def partial_rows(run):
    """Rows saying whether and how the data is partial."""
    if not run.partial:
        return [("data", "complete")]
    reasons = "; ".join(f"rank {r}: {w}" for r, w in sorted(run.partial_reasons.items()))
    return [("data", "PARTIAL (per-rank partial files, the job did not reach MPI_Finalize)"),
            ("partial ranks", _ranges(run.partial_ranks)), ("missing ranks", _ranges(run.missing_ranks) or "none"),
            ("reasons", reasons)] + [("damaged file left out", d) for d in run.damaged]


def trace_rows(run):
    """The event trace's check at the end of the job (attribute trace_check,
    written only with a trace): whole, or what is missing."""
    if "trace_check" not in run.meta:
        return []
    v = run.meta["trace_check"]
    v = v.decode(errors="replace") if isinstance(v, bytes) else str(v)
    return [("trace", v.strip() or "whole (its check at the end of the job found nothing missing)")]


def _ranges(values):
    """[0,1,2,5] -> '0-2, 5'."""
    if hasattr(values, "text"):   # a RankSet (rankset.py): ranges already
        return values.text()
    out, vals = [], sorted(values)
    i = 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        out.append(str(vals[i]) if i == j else f"{vals[i]}-{vals[j]}")
        i = j + 1
    return ", ".join(out)


def region_names(run, full):
    """region id -> the name shown: short and distinct (names.py), or whole."""
    reg = run.regions
    whole = dict(zip(reg["id"].astype(int), reg["name"].astype(str)))
    if full:
        return whole
    short = names.regions(whole.values())
    return {rid: short[n] for rid, n in whole.items()}


def event_units(run):
    """Event name -> the unit its header shows: the file's units column
    ('ns', 'bytes', ...), 'count' where the event has none (a preset)."""
    if not run.has("events"):
        return {}
    ev = run.table("events")
    return {str(n): (str(u).strip() or "count") for n, u in zip(ev["name"], ev["units"])}


def with_unit(units, name, suffix=""):
    """'PAPI_TOT_CYC incl [count]': an event column's header with its unit."""
    return f"{name}{suffix} [{units.get(name, 'count')}]"


def graft_note(run):
    """What the reader did to make one tree of the job's threads (tally.graft)."""
    g = getattr(run, "graft", None) or {}
    out = ""
    if g.get("grafted"):
        out += "; OpenMP workers' regions under the path where the master entered the parallel region"
    if g.get("idle_rows"):
        out += "; '(OpenMP worker idle)': the workers' time outside parallel regions"
    if g.get("several"):
        out += (f"; {len(g['several'])} parallel region(s) entered from several paths: their workers' "
                "regions left at the top")
    return out


def region_tree_section(an, top, metric, full=False):
    """The region tree: inclusive/exclusive time across ranks and counters."""
    run, pr = an.run, an.per_rank
    t = stats.summary(pr, "time_s", all_columns=an.ranks)
    excl = stats.summary(pr, "excl_s", all_columns=an.ranks)
    keep = set(t["max"].sort_values(ascending=False).head(top).index) if top else None
    keep = tree.with_ancestors(run.regions, keep) if keep is not None else None
    sums = pr.groupby("region").sum(numeric_only=True, min_count=1)   # not measured: NaN, shown as '-'
    shown = region_names(run, full)
    marked = degraded_ids(run)
    units = event_units(run)
    rows = []
    for rid, depth in tree.dfs_order(run.regions, keep):
        row = {"region": "  " * depth + (marked[rid] + " " if rid in marked else "") + shown[rid], "id": rid,
               "visits": int(np.nan_to_num(sums["visits"].get(rid, 0))), "incl mean [s]": t["mean"].get(rid, np.nan),
               "incl min [s]": t["min"].get(rid, np.nan), "incl max [s]": t["max"].get(rid, np.nan),
               "excl mean [s]": excl["mean"].get(rid, np.nan), "imbalance": t["imbalance"].get(rid, np.nan),
               "cv": t["cv"].get(rid, np.nan)}
        for e in run.event_names:
            if e in sums.columns:
                row[with_unit(units, e, " incl")] = sums[e].get(rid, 0)
                row[with_unit(units, e, " excl")] = sums[f"{e} (excl)"].get(rid, 0)
        rows.append(row)
    note = (f"times: region wall time per rank (max over its threads), statistics across {len(an.ranks)} ranks; "
            "counters: sums over ranks and threads ('-': not measured, e.g. MPI calls without TALLY_MPI_COUNTERS; "
            "an exclusive value too where a child's were not)") + graft_note(run)
    if marked:
        note += ("; '~': degraded by the cost budget (table degraded: counters of its counted visits only); "
                 "'~e': its counters estimated, read on 1 visit in N and scaled to its visits")
    if keep is not None and len(keep) < len(run.regions):
        note += f"; showing the {top} regions with the largest max time and their ancestors (--top)"
    return Section("Region tree", pd.DataFrame(rows), note)


def derived_section(an):
    """Derived metrics over the whole run, across ranks."""
    whole = an.whole_run()
    rows = []
    for m, _ in metrics.available(an.per_rank.columns):
        col = metrics.label(m)
        vals = whole[col].reindex(an.ranks).to_numpy()[None, :]
        s = stats.across(vals)
        rows.append({"metric": m.name, "unit": m.unit, **{k: v[0] for k, v in s.items()}})
    rows.append({"metric": "wall time", "unit": "s", **{k: v[0] for k, v in
                 stats.across(whole["time_s"].reindex(an.ranks).to_numpy()[None, :]).items()}})
    return Section("Derived metrics (whole run, across ranks)", pd.DataFrame(rows),
                   "imbalance = max/mean - 1; cv = standard deviation/mean")


def metric_by_region_section(an, metric, top, full=False):
    """One metric per region across ranks, most imbalanced (by max) first;
    the region's whole path with full names, else its short name."""
    col = an.metric_column(metric)
    s = stats.summary(an.per_rank, col, all_columns=an.ranks)
    key, shown = ("path", dict(zip(an.run.regions["id"].astype(int), an.run.regions["path"]))) if full \
        else ("name", None)
    s = s.sort_values("max", ascending=False).head(top or len(s))
    if full:
        s.insert(0, key, [shown.get(int(r), "?") for r in s.index])
    else:
        s.insert(0, key, names.region_labels(an.run.regions, [int(r) for r in s.index]))
    label = {"time_s": "inclusive time [s]", "excl_s": "exclusive time [s]"}.get(col, col)
    return Section(f"{label} by region across ranks", s.reset_index(),
                   "per rank: wall time for times, sums over threads for counts; largest max first")


def by_rank_section(an, top):
    """One row per rank: wall time, whole-run counters, derived metrics, MPI time."""
    whole = an.whole_run().drop(columns=["threads"], errors="ignore")
    keep = [c for c in whole.columns if not c.endswith("(excl)") and c != "excl_s"]
    out = whole[keep]
    if an.run.has("mpi"):
        out = out.join(mpi.by_rank(an.run).set_index("rank")[["mpi_time_s"]])
    units = event_units(an.run)
    out = out.rename(columns={e: with_unit(units, e) for e in an.run.event_names})
    return Section("By rank", out.reset_index().head(top or len(out)))


def by_thread_section(an, top):
    """One row per (rank, thread): root inclusive time and counters."""
    st = tree.with_exclusive(an.run)
    st = st[st["region"].isin(an.roots)]
    cols = ["visits", "incl_ns"] + [e for e in an.run.event_names if e in st.columns]
    out = st.groupby(["rank", "thread"])[cols].sum()
    out["incl_s"] = out.pop("incl_ns") / 1e9
    units = event_units(an.run)
    out = out.rename(columns={e: with_unit(units, e) for e in an.run.event_names})
    return Section("By thread", out.reset_index().head(top or len(out)))


#: what the MPI tables' units are (issue 52: bytes/call said nothing)
BYTES_NOTE = ("time_s: seconds, summed over ranks; bytes_sent, bytes_recv: bytes; "
              "bytes/call = (bytes_sent + bytes_recv) / calls")


def mpi_sections(an, top, full=False):
    """MPI profile: calls by time, per rank, message sizes."""
    fn = mpi.by_function(an.run, an.ranks)
    return [Section("MPI calls by time", fn.head(top or len(fn)), BYTES_NOTE),
            Section("MPI calls by bytes", fn.sort_values(["bytes_sent", "bytes_recv"], ascending=False)
                    [["function", "calls", "bytes_sent", "bytes_recv", "bytes/call"]].head(top or len(fn)),
                    BYTES_NOTE),
            Section("MPI per rank", mpi.by_rank(an.run).sort_values("mpi_time_s", ascending=False).head(top or 10**9)),
            Section("MPI message sizes", mpi.histogram(an.run), "calls per log2 bucket of max(sent, received)")] \
        + site_section(an.run, top, full)


def site_section(run, top, full=False):
    """MPI call sites, when TALLY_MPI_CALLSITES recorded them."""
    s = mpi.by_site(run)
    if s is None:
        return []
    if not full:
        s = s.assign(site=s["site"].map(names.sites(s["site"])))
    return [Section("MPI call sites by time", s.head(top or len(s)),
                    "site: calling frames as function (file:line), innermost first; address: the first "
                    "module+0xoffset stack of that name")]


def nccl_section(run, top):
    """NCCL calls per rank and calling region (tally.nccl), or None."""
    c = nccl.calls(run)
    if c.empty:
        return None
    nbytes = c["bytes"].astype("float64")   # floats: unknown (no payload rows) shows as '-'
    f = pd.DataFrame({"rank": c["rank"], "function": c["function"], "called in": c["called_in"],
                      "calls": c["calls"], "time [s]": c["time_s"], "bytes": nbytes,
                      "bytes/call": (nbytes / c["calls"]).round(0),
                      "time/call [us]": c["time_s"] / c["calls"] * 1e6,
                      "comm size": c["comm_size"].astype("float64")})
    return Section("NCCL calls per rank", f.head(top * max(1, len(set(c["rank"]))) if top else len(f)),
                   "NCCL's own NVTX ranges and payloads: calls and time of the ranges NCCL::nccl<Op> (the host "
                   "call, which enqueues the GPU work: not the transfer's duration), bytes = NCCL's 'Message "
                   "size [bytes]', comm size = 'No. of ranks' of the communicator")


def other_sections(run, top):
    """Tables the report does not interpret (NVTX payloads, passes...) that
    have rows: their first rows."""
    out = []
    alias = nccl.table_names(run)
    kname, _ = gpu.kernel_table(run)
    pc = gpu.pc_table(run)
    for name, t in run.tables.items():
        if name in KNOWN or name == kname or (pc is not None and t is pc) or t.empty:
            continue  # empty tables say nothing; CSV export still writes them
        if name in DESCRIBES and not any(run.has(o) for o in DESCRIBES[name]) and not _nvtx_regions(run):
            continue
        shown = f"Table {name} ({alias[name]})" if name in alias else f"Table {name}"
        out.append(Section(shown, t.head(top or len(t)), run.docs.get(name, "") or ""))
    return out


def _nvtx_regions(run):
    """True when the region tree holds NVTX ranges (kind 7)."""
    reg = run.table("regions")
    return "kind" in reg.columns and bool((reg["kind"] == 7).any())


def kernel_section(run, top, full):
    """(title, frame) of the top kernels, names short unless full; or None."""
    kern = gpu.top_kernels(run, top)
    if kern is None or full:
        return kern
    title, frame = kern
    key = next((c for c in ("kernel", "name", "function") if c in frame.columns), frame.columns[0])
    _, t = gpu.kernel_table(run)
    every = t[key] if key in t.columns else frame[key]
    return title, frame.assign(**{key: frame[key].map(names.kernels(list(every) + list(frame[key])))})


def sampling_sections(run, top):
    """Call-path samples (TALLY_SAMPLING): hot functions in all, per region."""
    from . import sampling
    hot = sampling.hot_functions(run, top)
    if hot is None:
        return []
    src, lost = sampling.source_note(run), sampling.loss_note(run)
    return [Section("Hot functions (samples)", hot,
                    "self: samples with the function innermost; incl: on the path; imbalance: max/mean of the "
                    "ranks' self samples" + (f"; the source: {src}" if src else "") + (f"; {lost}" if lost else "")),
            Section("Hot functions per region (samples)", sampling.hot_by_region(run, 5).head(top * 5 or 10**9),
                    "the region open on the thread at each sample")]


def build(run, by="region", metric="time", top=20, full=True):
    """All sections of the report for run (full: whole names, else the
    short ones of names.py)."""
    an = Analysis(run)
    sections = [meta_section(run)]
    if an.per_rank is not None:
        main = {"region": lambda: region_tree_section(an, top, metric, full),
                "rank": lambda: by_rank_section(an, top), "thread": lambda: by_thread_section(an, top)}
        if by in main:
            sections.append(main[by]())
        sections += [derived_section(an), metric_by_region_section(an, metric, top, full)]
    if run.has("mpi"):
        sections += mpi_sections(an, top, full)
    comm = nccl_section(run, top)
    if comm is not None:
        sections.append(comm)
    kern = kernel_section(run, top, full)
    if by == "kernel" and kern is None:
        raise TallyError("--by kernel: this file has no GPU kernel table")
    if kern is not None:   # --by kernel: the kernels first
        sections.insert(1 if by == "kernel" else len(sections), Section(kern[0], kern[1]))
    gmap = gpu.rank_map(run)
    if gmap is not None:
        one = gpu.rank_map_name(run)
        sections.append(Section("GPUs by rank", gmap, (f"every GPU a {one}; " if one else "")
                                + "device: the visible index; uuid as nvidia-smi -L; a GPU used by several "
                                "processes is profiled by one of them; " + gpu.PROFILED_NOTE))
    sections += sampling_sections(run, top)
    hot = gpu.hot_lines(run, top)
    if hot is not None:
        sections.append(Section("PC sampling: hot lines and stall reasons", hot, "samples per stall reason"))
    return sections + other_sections(run, top)
