"""NCCL as communication: per rank, NCCL's collective and point-to-point
calls with calls, time, bytes and communicator size, per calling region.

Derived when the file is read, from what the runtime already writes (no
table of its own; docs/gpu.md, 'NCCL as communication'):
- NCCL's NVTX ranges are regions `NCCL::nccl<Op>` (kind 7) of the region
  tree: calls = visits, time = inclusive time, summed over the rank's threads;
  called_in = the parent's path, the region open in the process when the
  calling thread had none of its own (the runtime enters it as borrowed
  frames: DDP's all-reduce from the autograd thread is under `backward`);
- NCCL's NVTX payloads are rows of /nvtx/payloads/<schema> tied to
  (rank, thread, region): bytes = the sum of "Message size [bytes]" over the
  rows of the range's push (its pop's rows only where a range has none);
- the communicator size is "No. of ranks" of the rank's communicator set-up
  or tear-down rows with the same "NCCL communicator ID".
"""
import pandas as pd

PREFIX = "NCCL::"
PAYLOADS = "nvtx/payloads/"
COMM, SIZE, NRANKS = "NCCL communicator ID", "Message size [bytes]", "No. of ranks"
POP = 2   # payload rows' event: 1 push, 2 pop (docs/nvtx.md)
#: NCCL calls that move data; communicator set-up and tear-down are not
#: communication (a call with a message size in its payload always is)
OPS = {"ncclAllReduce", "ncclAllGather", "ncclBroadcast", "ncclBcast", "ncclReduceScatter", "ncclReduce",
       "ncclSend", "ncclRecv", "ncclAlltoAll", "ncclAllToAll", "ncclGather", "ncclScatter",
       "ncclPutSignal", "ncclSignal", "ncclWaitSignal"}
COLUMNS = ["rank", "function", "region", "called_in", "calls", "time_s", "bytes", "payload_rows",
           "comm_size", "communicators"]


def _ints(t, *cols):
    """True when t has every column in cols, each of integers (a payload
    table of another tool may use NCCL's entry names for other types)."""
    return all(c in t.columns and t[c].dtype.kind in "iu" for c in cols)


def _payloads(run):
    """Rows of every payload table with a communicator ID column: rank,
    region, event, comm, bytes (NA without a message size), nranks (NA
    without a rank count)."""
    parts = []
    for name, t in run.tables.items():
        if name.startswith(PAYLOADS) and len(t) and _ints(t, "rank", "region", "event", COMM):
            parts.append(pd.DataFrame({
                "rank": t["rank"].astype("int64"), "region": t["region"].astype("int64"),
                "event": t["event"].astype("int64"), "comm": t[COMM].astype("uint64"),
                "bytes": t[SIZE].astype("Int64") if _ints(t, SIZE) else pd.NA,
                "nranks": t[NRANKS].astype("Int64") if _ints(t, NRANKS) else pd.NA}))
    cols = ["rank", "region", "event", "comm", "bytes", "nranks"]
    return pd.concat(parts, ignore_index=True).astype({"bytes": "Int64", "nranks": "Int64"}) if parts \
        else pd.DataFrame(columns=cols)


def _per_call(pay, ids):
    """(rank, region) -> payload_rows, bytes, comm_size, communicators for the
    NCCL regions ids; rows of a range's pop only where it has no push rows."""
    sizes = pay.dropna(subset=["nranks"]).groupby(["rank", "comm"])["nranks"].max()
    p = pay[pay["region"].isin(ids)].copy()
    if p.empty:   # NCCL ranges without payload rows (payloads off or not written): sizes unknown
        return pd.DataFrame(columns=["payload_rows", "bytes", "comm_size", "communicators"],
                            index=pd.MultiIndex.from_tuples([], names=["rank", "region"]))
    p["begin"] = p["event"] != POP
    p = p[p["begin"] | ~p.groupby(["rank", "region"])["begin"].transform("any")]
    p["size"] = [sizes.get((r, c), pd.NA) for r, c in zip(p["rank"], p["comm"])]
    p["size"] = p["size"].astype("Int64")
    g = p.groupby(["rank", "region"])
    return pd.DataFrame({"payload_rows": g.size(), "bytes": g["bytes"].sum(min_count=1),
                         "comm_size": g["size"].max(), "communicators": g["comm"].nunique()})


def calls(run):
    """One row per rank and NCCL call region (a function called in one
    region): calls, time_s, bytes, payload_rows, comm_size, communicators;
    an empty frame (COLUMNS) when the file has no NCCL ranges."""
    reg = run.table("regions")
    if not len(reg) or "kind" not in reg.columns or not run.has("region_stats"):
        return pd.DataFrame(columns=COLUMNS)
    names = reg["name"].astype(str)
    fn = names.str.slice(len(PREFIX))
    pay = _payloads(run)
    sized = set(pay.dropna(subset=["bytes"])["region"])
    mine = reg[(reg["kind"] == 7) & names.str.startswith(PREFIX + "nccl")
               & (fn.isin(OPS) | reg["id"].isin(sized))]
    if mine.empty:
        return pd.DataFrame(columns=COLUMNS)
    ids = set(mine["id"].astype(int))
    st = run.region_stats
    st = st[st["region"].isin(ids)]
    g = st.groupby(["rank", "region"])
    out = pd.DataFrame({"calls": g["visits"].sum(), "time_s": g["incl_ns"].sum() / 1e9})
    out = out.join(_per_call(pay, ids)).reset_index()
    rid = reg["id"].astype(int)
    path, parent, fname = dict(zip(rid, reg["path"].astype(str))), dict(zip(rid, reg["parent"].astype(int))), \
        dict(zip(rid, fn))
    out["function"] = [fname[int(r)] for r in out["region"]]
    out["called_in"] = [path.get(parent.get(int(r), -1), "") for r in out["region"]]
    out["payload_rows"] = out["payload_rows"].fillna(0).astype("int64")
    out["communicators"] = out["communicators"].fillna(0).astype("int64")
    out = out.astype({"bytes": "Int64", "comm_size": "Int64", "region": "int64", "rank": "int64"})
    return out[COLUMNS].sort_values(["rank", "time_s"], ascending=[True, False]).reset_index(drop=True)


def by_rank(frame):
    """calls() summed per rank and function (all calling regions)."""
    if frame.empty:
        return frame
    g = frame.groupby(["rank", "function"])
    return pd.DataFrame({"calls": g["calls"].sum(), "time_s": g["time_s"].sum(),
                         "bytes": g["bytes"].sum(min_count=1), "comm_size": g["comm_size"].max()}).reset_index()


def table_names(run):
    """Payload table -> the name it is shown by: the one NCCL call whose
    ranges hold all its rows (e.g. 'NCCL::ncclAllReduce'), for tables the
    runtime could only name schema_<id> (NCCL registers its schemas with a
    name but without NVTX's name flag, so the runtime may not read it)."""
    reg = run.table("regions")
    if not len(reg):
        return {}
    name = dict(zip(reg["id"].astype(int), reg["name"].astype(str)))
    out = {}
    for t, rows in run.tables.items():
        if t.startswith(PAYLOADS + "schema_") and "region" in rows.columns and len(rows):
            shown = {name.get(int(r), "") for r in rows["region"].unique()}
            if len(shown) == 1 and next(iter(shown)).startswith(PREFIX):
                out[t] = shown.pop()
    return out
