#!/usr/bin/python3
"""NCCL as communication in the tally package and tally-report (ctest
report_nccl, label 'report'): tally.nccl on a file the runtime wrote for a
2-GPU torchrun DDP job (data/gpu_ddp.h5), against what the job's own DDP
hook counted (data/gpu_ddp.log).  Environment and helpers as test_report.py's.
Exit 77 (skip) when /usr/bin/python3 lacks h5py."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report import DATA, SCHEMA, WORK, _s, check, done, generate, report, scratch  # noqa: E402


def _hook_counts(log):
    """rank -> (all-reduce calls, bytes) the DDP script's hook counted, from
    check_torch_ddp.py's lines in the run's log (data/gpu_ddp.log)."""
    calls, nbytes = {}, {}
    for line in open(log):
        m = re.search(r"rank (\d+): NCCL all-reduce ranges \d+ == the hook's calls (\d+)", line)
        if m:
            calls[int(m[1])] = int(m[2])
        m = re.search(r"rank (\d+): the hook's bytes (\d+) = ", line)
        if m:
            nbytes[int(m[1])] = int(m[2])
    return {r: (calls[r], nbytes.get(r)) for r in calls}


def case_nccl():
    """The DDP run on 2 H200s (data/gpu_ddp.h5, torchrun --nproc_per_node=2,
    10 steps): run.nccl per rank has ncclAllReduce calls and bytes equal to
    what the script's DDP hook counted (19 calls: one bucket in the first
    step, two after DDP rebuilt its buckets; 63,406,480 bytes = 10 steps x
    6,340,648 gradient bytes), communicator size 2 (the job's ranks), time
    > 0 and within the region's inclusive time summed by hand from
    region_stats; the report's NCCL section fits 120 columns; a file
    without NCCL ranges gives an empty frame and no section."""
    import tally
    from tally import nccl
    path = os.path.join(DATA, "gpu_ddp.h5")
    hook = _hook_counts(os.path.join(DATA, "gpu_ddp.log"))
    check(hook == {0: (19, 63406480), 1: (19, 63406480)}, f"the log's hook counts {hook}")
    with tally.raw(path) as f:
        nranks = int(f.attrs["nranks"])
        rid = [int(r["id"]) for r in f["regions"][()] if _s(r["name"]) == "NCCL::ncclAllReduce"]
        incl = {}
        for r in f["region_stats"][()]:
            if int(r["region"]) in rid:
                incl[int(r["rank"])] = incl.get(int(r["rank"]), 0) + int(r["incl_ns"])
    check(nranks == 2 and len(rid) == 1, f"nranks {nranks}, all-reduce regions {rid}")
    run = tally.read(path, SCHEMA)
    c = run.nccl
    for rank, (calls, nbytes) in sorted(hook.items()):
        ar = c[(c["rank"] == rank) & (c["function"] == "ncclAllReduce")]
        check(len(ar) == 1, f"rank {rank}: {len(ar)} ncclAllReduce rows")
        if len(ar) != 1:
            continue
        row = ar.iloc[0]
        check(int(row["calls"]) == calls, f"rank {rank}: {row['calls']} all-reduces, the hook {calls}")
        check(int(row["bytes"]) == nbytes, f"rank {rank}: {row['bytes']} bytes, the hook {nbytes}")
        check(int(row["payload_rows"]) == calls, f"rank {rank}: {row['payload_rows']} payload rows")
        check(int(row["comm_size"]) == nranks, f"rank {rank}: communicator size {row['comm_size']}")
        check(0 < row["time_s"] <= incl.get(rank, 0) / 1e9,
              f"rank {rank}: time {row['time_s']} s, region inclusive {incl.get(rank, 0) / 1e9} s")
        print(f"rank {rank}: ncclAllReduce {row['calls']} calls, {row['bytes']} bytes, {row['time_s']:.6f} s, "
              f"communicator of {row['comm_size']}")
    for name in [t for t in run.tables if t.startswith("nvtx/payloads/")]:
        del run.tables[name]   # ranges without payloads (payload tables not written): sizes unknown, not 0
    bare = nccl.calls(run)
    check(bare[["rank", "function", "calls", "time_s"]].equals(c[["rank", "function", "calls", "time_s"]])
          and bare["bytes"].isna().all() and bare["comm_size"].isna().all() and (bare["payload_rows"] == 0).all(),
          f"without payload tables: same calls and times, bytes unknown: {bare.to_dict('list')}")
    rc, out, err = report(path)
    lines = out.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln == "== NCCL calls per rank"), None)
    check(rc == 0 and start is not None, f"tally-report: exit {rc}, NCCL section {start}: {err[-300:]}")
    if start is not None:
        sec = lines[start:lines.index("", start) if "" in lines[start:] else len(lines)]
        check(all(len(ln) <= 120 for ln in sec), f"NCCL section wider than 120: {max(map(len, sec))}")
        for rank in hook:
            check(any(re.match(rf"\s*{rank}\s+ncclAllReduce\s.*\s{hook[rank][1]}\s", ln) for ln in sec),
                  f"rank {rank}: the section's ncclAllReduce line with {hook[rank][1]} bytes")
    check("(NCCL::ncclAllReduce)" in out, "the all-reduce payload table shown by its NCCL call")
    for name in ("gpu_torch.h5",):
        other = os.path.join(DATA, name)
        run = tally.read(other, SCHEMA)
        check(run.nccl.empty and list(run.nccl.columns) == list(nccl.COLUMNS), f"{name}: empty NCCL frame")
        rc, out, err = report(other)
        check(rc == 0 and "== NCCL" not in out, f"{name}: exit {rc}, no NCCL section")
    d = scratch("nccl")
    f = generate(os.path.join(d, "n.h5"), "--ranks", "2")
    check(tally.read(f, SCHEMA).nccl.empty and "== NCCL" not in report(f)[1], "no NVTX: empty frame, no section")


def case_gpu_map():
    """"GPUs by rank" of the DDP file fits 120 columns in one block (issue
    50: it wrapped when a rank did not profile): as written (both ranks
    profile) and with rank 1's GPU shared (profiled -1, owner rank 0), the
    widest case; the section's rows name each rank's whole UUID."""
    import tally
    from tally import render, report as rep
    run = tally.read(os.path.join(DATA, "gpu_ddp.h5"), SCHEMA)
    t = run.tables.get("gpu_devices")
    check(t is not None and len(t) == 2, f"gpu_devices rows {None if t is None else len(t)}")
    if t is None:
        return
    for what in ("as written", "rank 1 shared"):
        if what == "rank 1 shared":
            t.loc[t["rank"] == 1, "profiled"] = -1
            t.loc[t["rank"] == 1, "owner_rank"] = 0
        sec = [s for s in rep.build(run) if s.title == "GPUs by rank"]
        check(len(sec) == 1, f"{what}: one GPUs by rank section")
        if not sec:
            continue
        lines = render.text(sec).splitlines()
        heads = [ln for ln in lines if ln.startswith("rank")]
        check(len(heads) == 1 and all(len(ln) <= 120 for ln in lines),
              f"{what}: one block ({len(heads)} header lines), widest {max(map(len, lines))} <= 120")
        uu = [u.decode() if isinstance(u, bytes) else str(u) for u in t["uuid"]]
        check(all(any(u in ln for ln in lines) for u in uu), f"{what}: whole UUIDs shown")
        if what == "rank 1 shared":
            check(any(re.search(r"no, shared\s+0\s*$", ln) for ln in lines), f"{what}: rank 1 'no, shared', owner 0")
        print("\n".join(lines))


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    case_nccl()
    case_gpu_map()
    sys.exit(done("nccl"))
