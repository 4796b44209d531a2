"""tally-report FILE.h5 --trace-estimate [SIZE]: the size of a trace of the
run before taking it (Score-P's scorep-score for Tally): from an ordinary
profile, each region's events in a trace (an enter and a leave per visit,
summed over ranks and threads) and bytes (BYTES_PER_EVENT each, as
measured on Tally's archives), the total with the archive's definitions,
and, given SIZE (bytes, k/M/G suffixes), the region names to leave out
with TALLY_TRACE_EXCLUDE (a name leaves out what is inside it too) so the
trace fits.  MPI messages and collectives add records the profile does not
count per region: per call of an MPI function the records the trace writes
for it (MPI_RECORDS; a persistent MPI_Startall is taken as one request),
MPI_RECORD_BYTES each (docs/trace.md)."""
from .errors import TallyError

BYTES_PER_EVENT = 12        # an enter or leave in OTF2's event files (measured: 12.1)
MPI_RECORD_BYTES = 10       # a message or collective record (measured: 9.1-9.7; it shares its call's time)
FIXED_BYTES = 10240         # the archive's two directories (4 KiB each, as du counts them), the anchor, the
#                             global definitions' base
PER_LOCATION = 300          # a location's definitions and file header
PER_REGION = 100            # a region's definition
MPI_KIND = 2
_COLLS = ("Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv", "Alltoall",
          "Alltoallv", "Alltoallw", "Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block", "Scan",
          "Exscan")
# records written per call (wrappers/trace/trace_mpi.c): a blocking send or receive one, Sendrecv two, a
# request's start and completion two (Isend/IsendComplete, IrecvRequest/Irecv, a persistent request's
# start), a collective its begin and end (a non-blocking one where it completes); Wait*, Test* and the rest
# none of their own
MPI_RECORDS = dict([("MPI_" + n, 1) for n in ("Send", "Bsend", "Ssend", "Rsend", "Recv")]
                   + [("MPI_" + n, 2) for n in ("Sendrecv", "Sendrecv_replace", "Isend", "Ibsend", "Issend",
                                                "Irsend", "Irecv", "Start", "Startall")]
                   + [("MPI_" + n, 2) for n in _COLLS] + [("MPI_I" + n[0].lower() + n[1:], 2) for n in _COLLS])


def parse_size(text):
    """'100M' -> bytes."""
    t = text.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    try:
        return int(float(t[:-1] if mult > 1 else t) * mult)
    except ValueError as e:
        raise TallyError(f"--trace-estimate: not a size: {text!r} (bytes, with k, M or G)") from e


def estimate(run):
    """(rows of (path, events, bytes) largest first, total events, total bytes, names -> events inclusive)."""
    st, regs = run.tables["region_stats"], run.tables["regions"]
    paths = dict(zip(regs["id"].astype(int), regs["path"].astype(str)))
    kinds = dict(zip(regs["id"].astype(int), regs["kind"].astype(int)))
    ev, mb = {}, {}
    for reg, v in zip(st["region"].astype(int), st["visits"].astype(int)):
        leaf = paths.get(reg, "").split(" / ")[-1]
        m = MPI_RECORDS.get(leaf, 0) * int(v) if kinds.get(reg) == MPI_KIND else 0
        ev[reg] = ev.get(reg, 0) + 2 * int(v) + m
        mb[reg] = mb.get(reg, 0) + 2 * int(v) * BYTES_PER_EVENT + m * MPI_RECORD_BYTES
    rows = sorted(((paths.get(r, str(r)), n, mb[r]) for r, n in ev.items()), key=lambda x: -x[1])
    nev = sum(n for _, n, _ in rows)
    nloc = len({(int(a), int(b)) for a, b in zip(st["rank"], st["thread"])})
    size = sum(b for _, _, b in rows) + FIXED_BYTES + PER_LOCATION * nloc + PER_REGION * len(paths)
    return rows, nev, size


def leave_out(rows, total, limit):
    """Region names whose leaving out (with what is inside them) brings total bytes to limit: the name with
    the most events of its own first, again until it fits."""
    names = []
    left = list(rows)
    while total > limit and left:
        own = {}   # the regions of a name themselves: the busiest go first
        for path, _, b in left:
            parts = path.split(" / ")
            if len(parts) > 1:   # never the thread's root
                own[parts[-1]] = own.get(parts[-1], 0) + b
        if not own:
            break
        name = max(own, key=own.get)
        names.append(name)
        total -= sum(r[2] for r in left if name in r[0].split(" / ")[1:])   # with what is inside
        left = [r for r in left if name not in r[0].split(" / ")[1:]]
    return names, total


def report(run, size_text, top=20):
    """The estimate as text lines."""
    rows, nev, size = estimate(run)
    out = [f"trace estimate: {nev} events, {size} bytes ({size / 1048576:.1f} MiB; {BYTES_PER_EVENT} bytes per "
           f"enter or leave, {MPI_RECORD_BYTES} per MPI record, definitions included)",
           f"{'events':>12} {'bytes':>12}  region"]
    out += [f"{n:>12} {b:>12}  {p}" for p, n, b in (rows[:top] if top else rows)]
    if size_text:
        limit = parse_size(size_text)
        names, after = leave_out(rows, size, limit)
        if size <= limit:
            out.append(f"fits in {limit} bytes as it is")
        elif after <= limit:
            out.append(f"to fit in {limit} bytes: TALLY_TRACE_EXCLUDE={','.join(names)} (about {after} bytes)")
        else:
            out.append(f"cannot fit in {limit} bytes by leaving regions out (the threads' roots alone: {after})")
    return out
