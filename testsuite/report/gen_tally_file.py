#!/usr/bin/python3
"""Write synthetic Tally files from schema.def, for the report tests.

The compound types are built from schema.def as the tally package parses
it (tally.schema: the one Python parser of the schema; TALLY_PYTHONPATH
names the package), and the files are written with h5py: a writer of
test files, not a reader.  Values are deterministic (seeded) and consistent:
inclusive time = exclusive time + children's inclusive time, histogram
buckets sum to the call counts.

    gen_tally_file.py SCHEMA OUT.h5 [--ranks N] [--regions N] [--threads N]
                      [--events A,B] [--partial-dir DIR --skip-ranks 3,5]
                      [--extra]
"""
import argparse
import os
import sys

import h5py   # a writer (allowed: testsuite/layout/check_h5py.py): files of every schema version, enums
import numpy as np

sys.path.insert(0, os.environ.get("TALLY_PYTHONPATH", os.path.join(os.path.dirname(__file__), "..", "..",
                                                                     "analysis")))
from tally import schema  # noqa: E402  (the package's schema parser)

MPI_FUNCS = ["MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Barrier"]


def parse(path):
    """(version, {table: [(field, type)]}) of the schema.def at path."""
    sch = schema.load(path)
    return sch.version, {n: [(f.name, f.type) for f in t.fields] for n, t in sch.tables.items()}


def np_type(ty, nev):
    """numpy type of a schema type."""
    if ty == "I32":
        return "<i4"
    if ty == "I64":
        return "<i8"
    if ty.startswith("STR"):
        return f"S{int(ty[3:])}"
    if ty == "F64":
        return "<f8"
    return ("<i8", (max(nev, 1),)) if ty == "CNT" else ("<i8", (32,))


def dtype(fields, nev):
    """Compound dtype of a table."""
    return np.dtype([(f, np_type(t, nev)) for f, t in fields])


def region_tree(nregions):
    """Regions: id 0 root '(thread)', then an 8-ary tree; every 10th is an MPI call."""
    rows = [(0, -1, 0, "(thread)", "(thread)")]
    for i in range(1, nregions):
        parent = (i - 1) // 8
        kind = 2 if i % 10 == 0 else 1
        name = MPI_FUNCS[i % 4] if kind == 2 else f"r{i}"
        name = f"{name}" if kind == 1 else name
        rows.append((i, parent, kind, name, f"{rows[parent][4]} / {name}#{i}" if kind == 2 else f"{rows[parent][4]} / {name}"))
    return [(i, p, k, f"{n}#{i}" if k == 2 else n, path) for i, p, k, n, path in rows]


def rank_values(rng, rank, nranks, nregions, threads, nev):
    """Per thread: (visits, incl_ns, counters) arrays over regions, consistent."""
    out = []
    for t in range(threads):
        excl = rng.integers(1_000, 1_000_000, nregions).astype(np.int64)
        excl = excl * (10 + rank) // 10 + t * 1000
        incl = excl.copy()
        for i in range(nregions - 1, 0, -1):
            incl[(i - 1) // 8] += incl[i]
        visits = rng.integers(1, 100, nregions).astype(np.int64)
        visits[0] = 0
        cnt = np.zeros((nregions, max(nev, 1)), np.int64)
        scale = np.array([0.9, 1e-5, 2.0, 1.5, 1e-6][:nev] + [1.0] * max(0, nev - 5))
        for e in range(nev):
            cnt[:, e] = (incl * scale[e]).astype(np.int64)
        out.append((visits, incl, cnt))
    return out


def attrs_for(args, version, nranks, partial_rank):
    """Root attributes, typed as in schema.def."""
    return {"schema_version": np.int32(version), "tally_version": np.bytes_("0.1.0"),
            "program": np.bytes_("synthetic"), "command": np.bytes_("synthetic --ranks %d" % nranks),
            "start_time": np.int64(1700000000), "end_time": np.int64(1700000100),
            "nranks": np.int32(nranks), "partial": np.int32(partial_rank >= 0),
            "partial_rank": np.int32(partial_rank),
            "partial_reason": np.bytes_("SIGTERM" if partial_rank >= 0 else ""),
            # seconds since schema 4; microseconds (I64) before
            "write_seconds": np.float64(0.001234) if version >= 4 else np.int64(1234),
            # the settings the run was given: schema 7
            **({"settings": np.bytes_("TALLY_MPI_CALLSITES=2\nTALLY_EVENTS=perf::TASK-CLOCK\n")}
               if version >= 7 else {})}


def rows_for_rank(args, rank, regions, rng, nev, local_ids):
    """The per-rank rows (ranks, threads, region_stats, mpi) as lists of tuples."""
    vals = rank_values(rng, rank, args.ranks, len(regions), args.threads, nev)
    stats = [(rank, t, local_ids[i], v[0][i], v[1][i], v[2][i])
             for t, v in enumerate(vals) for i in range(len(regions))]
    elapsed = int(vals[0][1][0]) + 5000
    cpu = (elapsed * args.threads,) if args.cpu_ns else ()   # schema 2
    ranks = [(rank, "node%d" % (rank // 16), 1000 + rank, args.threads,
              elapsed) + cpu + (200 + rank, int(sum(v[0].sum() for v in vals)), 0)]
    threads = [(rank, t, 2000 + rank * 10 + t, 0 if t == 0 else 1) for t in range(args.threads)]
    mpi = []
    for k, fn in enumerate(MPI_FUNCS):
        calls = 10 * (k + 1) + rank
        hist = np.zeros(32, np.int64)
        hist[0 if fn == "MPI_Barrier" else 4 + k + rank % 3] = calls
        nbytes = 0 if fn == "MPI_Barrier" else calls * 2 ** (3 + k + rank % 3)
        mpi.append((rank, fn, calls, 1_000_000 * (k + 1) * (1 + rank % 4), nbytes if fn != "MPI_Recv" else 0,
                    nbytes if fn in ("MPI_Recv", "MPI_Allreduce") else 0, hist))
    return ranks, threads, stats, mpi


def write(path, version, tables, attrs, rows, nev, extra):
    """One file with the given rows per table."""
    with h5py.File(path, "w") as f:
        for k, v in attrs.items():
            f.attrs[k] = v
        for name, fields in tables.items():
            if extra and name in EXTRA_TABLES:   # written by write_extra in its own shape
                continue
            dt = dtype(fields, nev)
            # Fields a newer schema appended to a table take their zero value.
            data = np.zeros(len(rows.get(name, [])), dtype=dt)
            for i, r in enumerate(rows.get(name, [])):
                for fname, value in zip(dt.names, r):
                    data[i][fname] = value
            ds = f.create_dataset(name, data=data, dtype=dt)
            ds.attrs["doc"] = np.bytes_("synthetic " + name)
        if extra:
            write_extra(f)


EXTRA_TABLES = ("gpu_kernels", "pc_samples")


def write_extra(f):
    """Tables beyond the CPU ones (GPU kernels, PC samples, an NVTX payload table)."""
    # the runtime's layout (schema.def): a row per rank, kernel and metric
    kdt = np.dtype([("rank", "<i4"), ("device", "<i4"), ("thread", "<i4"), ("region", "S512"),
                    ("kernel", "S8192"), ("launches", "<i8"), ("metric", "S256"), ("pass", "<i4"),
                    ("replay", "S32"), ("total", "<f8"), ("min", "<f8"), ("mean", "<f8"), ("max", "<f8")])
    rows = []
    for r in range(2):
        for k, kname in enumerate((b"saxpy", b"stencil")):
            for m, v in ((b"gpu__time_duration.sum", 1_000_000 * (k + 1) + r),
                         (b"sm__warps_active.avg.pct_of_peak_sustained_active", 60.0 + 10 * k)):
                rows.append((r, 0, 0, b"main", kname, 10, m, 0, b"none", v * 10, v, v, v))
    f.create_dataset("gpu_kernels", data=np.array(rows, dtype=kdt))
    pdt = np.dtype([("file", "S64"), ("line", "<i4"), ("stall_reason", "S32"), ("samples", "<i8")])
    rows = [(b"kern.cu", ln, reason, n) for ln, base in ((12, 100), (13, 40))
            for reason, n in ((b"long_scoreboard", base), (b"math_pipe_throttle", base // 2), (b"selected", base // 4))]
    f.create_dataset("pc_samples", data=np.array(rows, dtype=pdt))
    enum = h5py.enum_dtype({"RED": 0, "GREEN": 1}, basetype="i1")
    ndt = np.dtype([("rank", "<i4"), ("step", "<i8"), ("colour", enum), ("label", h5py.string_dtype())])
    g = f.create_group("nvtx")
    g.create_dataset("payload_step", data=np.array([(0, 1, 0, "first"), (0, 2, 1, "second")], dtype=ndt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("schema")
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--regions", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--events", default="perf::TASK-CLOCK,perf::PAGE-FAULTS,PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_FP_OPS")
    ap.add_argument("--partial-dir")
    ap.add_argument("--skip-ranks", default="")
    ap.add_argument("--extra", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    version, tables = parse(args.schema)
    args.cpu_ns = any(f[0] == "cpu_ns" for f in tables["ranks"])
    addr = any(f[0] == "address" for f in tables["regions"])   # schema 2

    def with_addr(rows):
        return [r + ("synthetic+0x%x" % (0x1000 + r[0]) if r[2] == 3 else "",) for r in rows] if addr else rows
    events = [e for e in args.events.split(",") if e]
    ev_rows = [(i, e, "perf_event", "ns" if "CLOCK" in e else "", "synthetic " + e) for i, e in enumerate(events)]
    regions = region_tree(args.regions)
    rng = np.random.default_rng(args.seed)
    if not args.partial_dir:
        rows = {"events": ev_rows, "regions": with_addr(regions), "ranks": [], "threads": [], "region_stats": [], "mpi": []}
        ident = list(range(len(regions)))
        for r in range(args.ranks):
            for name, part in zip(("ranks", "threads", "region_stats", "mpi"),
                                  rows_for_rank(args, r, regions, rng, len(events), ident)):
                rows[name] += part
        write(args.out, version, tables, attrs_for(args, version, args.ranks, -1), rows, len(events), args.extra)
        return 0
    os.makedirs(args.partial_dir, exist_ok=True)
    skip = {int(x) for x in args.skip_ranks.split(",") if x}
    for r in range(args.ranks):
        # Each partial file numbers its regions its own way: reversed order.
        local = [len(regions) - 1 - i for i in range(len(regions))]
        loc_regions = sorted([(local[i], local[p] if p >= 0 else -1, k, n, path)
                              for i, p, k, n, path in regions])
        rows = dict(zip(("ranks", "threads", "region_stats", "mpi"),
                        rows_for_rank(args, r, regions, rng, len(events), local)))
        if r in skip:
            continue
        rows.update(events=ev_rows, regions=with_addr(loc_regions))
        write(os.path.join(args.partial_dir, "job.rank%05d.partial.h5" % r), version, tables,
              attrs_for(args, version, args.ranks, r), rows, len(events), False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
