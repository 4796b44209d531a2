#!@TALLY_REPORT_PYTHON@
"""tally-summary.py FILE.h5 - a short summary of a Tally file."""
import sys

try:
    import h5py
except ImportError:
    sys.exit("tally-run --summary: python3-h5py is needed (apt-get install python3-h5py)")


def main(path):
    f = h5py.File(path, "r")
    a = f.attrs
    print("%s: schema %d, program %s, %d rank(s)%s" % (path, a["schema_version"], a["program"].decode(),
          a["nranks"], ", PARTIAL (%s)" % a["partial_reason"].decode() if a["partial"] else ""))
    ev = [e["name"].decode() for e in f["events"][:]]
    print("events:", ", ".join(ev) or "(none)")
    print("threads: %d, regions: %d, write time %.3f s" % (len(f["threads"]), len(f["regions"]),
          a["write_seconds"] / 1e6))
    paths = {int(r["id"]): r["path"].decode() for r in f["regions"][:]}
    tot = {}
    for r in f["region_stats"][:]:
        k = paths[int(r["region"])]
        v = tot.setdefault(k, [0, 0])
        v[0] += int(r["visits"])
        v[1] += int(r["incl_ns"])
    print("\ntop regions by inclusive time (summed over ranks and threads):")
    for k, (vis, ns) in sorted(tot.items(), key=lambda x: -x[1][1])[:10]:
        print("  %10.4f s %8d visits  %s" % (ns / 1e9, vis, k))
    if len(f["mpi"]):
        print("\nMPI (summed over ranks):")
        agg = {}
        for r in f["mpi"][:]:
            v = agg.setdefault(r["function"].decode(), [0, 0, 0, 0])
            v[0] += int(r["calls"]); v[1] += int(r["time_ns"]); v[2] += int(r["bytes_sent"]); v[3] += int(r["bytes_recv"])
        for k, v in sorted(agg.items(), key=lambda x: -x[1][1]):
            print("  %-22s %8d calls %10.4f s %12d B sent %12d B recv" % (k, v[0], v[1] / 1e9, v[2], v[3]))


def run(argv):
    """One line and exit status 2 for a file that is missing, not HDF5 or
    not a Tally file; never a traceback."""
    if len(argv) != 2:
        sys.exit("usage: tally-run --summary FILE.h5")
    path = argv[1]
    try:
        main(path)
    except FileNotFoundError:
        sys.exit(f"tally-run --summary: {path}: no such file")
    except IsADirectoryError:
        sys.exit(f"tally-run --summary: {path}: is a directory (give one .h5 file)")
    except PermissionError:
        sys.exit(f"tally-run --summary: {path}: permission denied")
    except OSError as e:
        sys.exit(f"tally-run --summary: {path}: not an HDF5 file or damaged ({e.__class__.__name__})")
    except (KeyError, ValueError, TypeError, IndexError) as e:
        sys.exit(f"tally-run --summary: {path}: not a Tally file or damaged (missing or bad {e})")
    except BrokenPipeError:
        pass


run(sys.argv)
