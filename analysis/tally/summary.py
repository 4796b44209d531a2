"""A short summary of a Tally file: run facts, events, the top regions by
inclusive time and the MPI functions (tally-report summary FILE.h5, also
tally-run --summary FILE.h5).  Reads the file with h5py alone (fast, no
pandas), table names from schema.def (h5table.rows)."""
import os
import sys

from . import names
from .errors import TallyError
from .h5table import rows, text
from .schema import write_seconds


def _header(path, f, out):
    a = f.attrs
    part = ", PARTIAL (%s)" % text(a["partial_reason"]) if a["partial"] else ""
    print("%s: schema %d, program %s, %d rank(s)%s" % (path, a["schema_version"], text(a["program"]),
          a["nranks"], part), file=out)
    ev = [text(e["name"]) for e in rows(f, "events")]
    print("events:", ", ".join(ev) or "(none)", file=out)
    print("threads: %d, regions: %d, write time %.3f s" % (len(rows(f, "threads")), len(rows(f, "regions")),
          write_seconds(a["schema_version"], a["write_seconds"])), file=out)


PATH_MAX = 86   # the path column, so that a line fits 120 columns


def _short_paths(regs):
    """region id -> its path of short names (names.py), cut from the left to PATH_MAX."""
    name = {int(r["id"]): text(r["name"]) for r in regs}
    parent = {int(r["id"]): int(r["parent"]) for r in regs}
    short = names.regions(name.values())
    out = {}
    for rid in name:
        parts, seen, cur = [], set(), rid
        while cur in name and cur not in seen:   # a cycle in a damaged file ends here
            seen.add(cur)
            parts.insert(0, short[name[cur]])
            cur = parent[cur]
        p = " / ".join(parts)
        out[rid] = p if len(p) <= PATH_MAX else "…" + p[-(PATH_MAX - 1):]
    return out


def _regions(f, out):
    paths = _short_paths(rows(f, "regions"))
    tot = {}
    for r in rows(f, "region_stats"):
        v = tot.setdefault(paths[int(r["region"])], [0, 0])
        v[0] += int(r["visits"])
        v[1] += int(r["incl_ns"])
    print("\ntop regions by inclusive time (summed over ranks and threads):", file=out)
    for k, (vis, ns) in sorted(tot.items(), key=lambda x: -x[1][1])[:10]:
        print("  %10.4f s %8d visits  %s" % (ns / 1e9, vis, k), file=out)


def _mpi(f, out):
    mpi = rows(f, "mpi")
    if mpi is None or not len(mpi):
        return
    print("\nMPI (summed over ranks):", file=out)
    agg = {}
    for r in mpi:
        v = agg.setdefault(text(r["function"]), [0, 0, 0, 0])
        for i, col in enumerate(("calls", "time_ns", "bytes_sent", "bytes_recv")):
            v[i] += int(r[col])
    for k, v in sorted(agg.items(), key=lambda x: -x[1][1]):
        print("  %-22s %8d calls %10.4f s %12d B sent %12d B recv" % (k, v[0], v[1] / 1e9, v[2], v[3]),
              file=out)


def summary(path, out=sys.stdout):
    """Print the summary of the Tally file at path.  Raises TallyError (one
    sentence) for a file that is missing, not HDF5 or not a Tally file."""
    from . import filecheck
    if os.path.exists(path):
        filecheck.regular_file(path)   # a FIFO would block the open
    try:
        with filecheck.open_h5(path) as f:   # non-blocking, checked on its descriptor
            filecheck.structure(f, path)   # nothing outside the file is read
            _header(path, f, out)
            _regions(f, out)
            _mpi(f, out)
    except BrokenPipeError:
        raise
    except FileNotFoundError:
        raise TallyError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TallyError(f"{path}: is a directory (give one .h5 file)") from None
    except PermissionError:
        raise TallyError(f"{path}: permission denied") from None
    except OSError as e:
        raise TallyError(f"{path}: not an HDF5 file or damaged ({e.__class__.__name__})") from None
    except (KeyError, ValueError, TypeError, IndexError) as e:
        raise TallyError(f"{path}: not a Tally file or damaged (missing or bad {e})") from None
