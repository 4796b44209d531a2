#!/usr/bin/env python3
"""check_rt_multi.py FILE LOG --ranks N --mode setdev|all|shared --ngpu G
--smi SMI [--ref REF] [--compare KR] - one job of run_rt_multi.sh.

setdev: rank r launched on GPU r % G; all: every rank on every GPU;
shared: every rank on GPU 0 of CUDA_VISIBLE_DEVICES=0, one profiles.
Checks: gpu_devices has a row per (rank, GPU used) with the UUID that the
program printed (USED lines of LOG, from cudaGetDeviceProperties) and that
nvidia-smi -L gives for that index (when all GPUs are visible); the
profiled ones have the work kernel's 3 launches, each with the reference
run's value (REF: one rank on GPU 0) of smsp__inst_executed.sum; shared:
one rank profiles (the first to claim the GPU, either), the others' rows
say -1 with its rank and its pid (this job's ranks table: the live holder
of the lock, never an earlier job's) and the log says so once per other
rank with the UUID, that rank and that pid; --compare: every metric of the work kernel
equals KR's (kernel replay) per rank and GPU."""
import argparse
import re
import os
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader's checks)


LAUNCHES = 3
METRIC = "smsp__inst_executed.sum"
ok = True


def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and bool(cond)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def table(path, name):
    with tally.raw(path) as f:
        return f[name][:] if name in f else None


def work_rows(path):
    """{(rank, device, metric): (launches, total, min, max)} of the work kernel."""
    out = {}
    for r in table(path, "gpu_kernels"):
        if s(r["kernel"]).startswith("work"):
            k = (int(r["rank"]), int(r["device"]), s(r["metric"]))
            la, to, mi, ma = out.get(k, (0, 0.0, float("inf"), -float("inf")))
            out[k] = (la + int(r["launches"]), to + float(r["total"]), min(mi, float(r["min"])),
                      max(ma, float(r["max"])))
    return out


def smi_uuids(path):
    return {int(m.group(1)): m.group(2) for m in
            re.finditer(r"^GPU (\d+):.*\(UUID: (GPU-[0-9a-f-]+)\)", open(path).read(), re.M)}


def shared_checks(a, rows, prof, log):
    """One rank profiles GPU 0; every other rank names it by rank and pid,
    the pid of this job's ranks table (the live holder of the lock)."""
    pids = {int(r["rank"]): int(r["pid"]) for r in table(a.file, "ranks")}
    check(len(prof) == 1, f"one rank profiles the shared GPU (profiled: {sorted(prof)})")
    owner = next(iter(prof))[0] if len(prof) == 1 else -1
    pid = pids.get(owner, -1)
    print(f"     owner: rank {owner}, pid {pid} (this job's ranks: {pids})")
    for rk in range(a.ranks):
        r = rows.get((rk, 0))
        if rk == owner or r is None:
            check(r is not None, f"rank {rk}: a gpu_devices row for GPU 0")
            continue
        check(int(r["profiled"]) == -1 and int(r["owner_rank"]) == owner and int(r["owner_pid"]) == pid,
              f"rank {rk}: profiled {int(r['profiled'])} (-1), owner rank {int(r['owner_rank'])} pid "
              f"{int(r['owner_pid'])} == the live holder rank {owner} pid {pid}")
    u = s(rows[(owner, 0)]["uuid"]) if (owner, 0) in rows else "?"
    said = [l for l in log.splitlines() if "is profiled by rank" in l]
    check(len(said) == a.ranks - 1 and all(u in l and f"rank {owner} (pid {pid})" in l for l in said),
          f"said once per other rank with the UUID and 'rank {owner} (pid {pid})': {said}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("log")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--mode", required=True)
    ap.add_argument("--ngpu", type=int, required=True)
    ap.add_argument("--smi", required=True)
    ap.add_argument("--ref")
    ap.add_argument("--compare")
    a = ap.parse_args()
    print(f"== {a.file}: {a.ranks} rank(s), mode {a.mode}, {a.ngpu} GPU(s)")
    log = open(a.log, errors="replace").read()
    used = {(int(m.group(1)), int(m.group(2))): m.group(3) for m in re.finditer(r"^USED (\d+) (\d+) (\S+)", log, re.M)}
    smi = smi_uuids(a.smi)
    dev = table(a.file, "gpu_devices")
    check(dev is not None, "the file has a gpu_devices table")
    if dev is None:
        return
    rows = {(int(r["rank"]), int(r["device"])): r for r in dev}
    for (rk, d), r in sorted(rows.items()):
        print(f"     rank {rk} device {d} {s(r['uuid'])} {s(r['pci_bus_id'])} {s(r['name'])} profiled "
              f"{int(r['profiled'])} owner {int(r['owner_rank'])} launches {int(r['launches'])}")
    want = {(rk, d) for rk in range(a.ranks) for d in
            (range(a.ngpu) if a.mode == "all" else [0] if a.mode == "shared" else [rk % a.ngpu])}
    check(set(rows) == want, f"gpu_devices rows {sorted(rows)} == GPUs used {sorted(want)}")
    check(set(used) == want, f"the program's USED lines {sorted(used)} == {sorted(want)}")
    for k in sorted(want & set(rows)):
        u = s(rows[k]["uuid"])
        check(u == used.get(k), f"rank {k[0]} GPU {k[1]}: file UUID {u} == the program's {used.get(k)}")
        if a.mode != "shared":
            check(u == smi.get(k[1]), f"rank {k[0]} GPU {k[1]}: file UUID == nvidia-smi -L's {smi.get(k[1])}")
    if a.mode == "setdev" and a.ranks > 1:
        uu = {s(rows[k]["uuid"]) for k in want if k in rows}
        check(len(uu) == a.ranks, f"the ranks' UUIDs differ ({len(uu)} distinct for {a.ranks} ranks)")
    work = work_rows(a.file)
    ref = work_rows(a.ref)[(0, 0, METRIC)][2] if a.ref else None
    prof = {k for k in want if k in rows and int(rows[k]["profiled"]) == 1}
    if a.mode == "shared":
        shared_checks(a, rows, prof, log)
    else:
        check(prof == want, f"every GPU used is profiled by its rank ({sorted(prof)})")
    for k in sorted(prof):
        la, to, mi, ma = work.get((k[0], k[1], METRIC), (0, 0, 0, 0))
        check(la == LAUNCHES and mi == ma and mi > 0 and (ref is None or mi == ref),
              f"rank {k[0]} GPU {k[1]}: {la} launches of work, {METRIC} per launch {mi:,.0f} (min) {ma:,.0f} "
              f"(max), reference {ref if ref is None else f'{ref:,.0f}'}")
    if a.compare:
        kr = work_rows(a.compare)
        keys = sorted(k for k in kr if (k[0], k[1]) in want)
        check(len(keys) >= 9 * a.ranks, f"kernel replay file has {len(keys)} (rank, GPU, metric) rows of work")
        for k in keys:
            check(work.get(k) is not None and work[k][1] == kr[k][1],
                  f"rank {k[0]} GPU {k[1]} {k[2]}: --passes=auto {work.get(k, (0, 0))[1]:,.0f} == kernel replay "
                  f"{kr[k][1]:,.0f}")


main()
print("all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
