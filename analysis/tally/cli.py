"""tally-report: the command line."""
import argparse
import os
import sys
import warnings

from . import settings
from .errors import TallyError

EPILOG = """metrics for --metric: time (inclusive wall time, default), excl, visits,
any counted event name, or a derived metric name (IPC, GFLOP/s, CPU utilisation,
page faults/s, ...). Exit status: 0 ok, 2 unreadable input or bad option.

other commands (each with its own --help):
  tally-report summary FILE.h5                  a short summary (tally-run --summary)
  tally-report merge-passes OUT PASS0.h5 ...    merge the runs of tally-run --passes
  tally-report merge-passes --npasses PASS0.h5  passes of run 0's schedule
  tally-report hl FILE.json ...                 regions of PAPI_hl_* output
(a file named like a command: ./summary)"""


def parser():
    """The argument parser."""
    p = argparse.ArgumentParser(prog="tally-report", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Summarise a Tally measurement (a .h5 file or a directory of per-rank partial files).")
    p.add_argument("path", metavar="FILE|DIR",
                   help="a job's .h5 file, or a directory holding one (or the per-rank partial files of a job)")
    p.add_argument("--by", choices=["region", "rank", "thread", "kernel"], default="region",
                   help="the main table's rows: regions (the tree, default), ranks, threads or GPU kernels")
    p.add_argument("--metric", default="time",
                   help="the metric of the per-region table across ranks (see below; default: time)")
    p.add_argument("--top", type=int, default=20, metavar="N", help="rows per table (0: all)")
    p.add_argument("--format", choices=["text", "csv", "json", "markdown"], default="text",
                   help="the report's format (default text, at most 120 columns)")
    p.add_argument("--settings", action="store_true",
                   help="print the settings the run was given (TALLY_* set in its environment or by tally-run's "
                        "flags), one per line, and nothing else")
    p.add_argument("--plot", metavar="DIR", help="write PNG plots to DIR")
    p.add_argument("--csv-dir", metavar="DIR", help="write every table as CSV to DIR")
    p.add_argument("--hatchet", metavar="FILE", help="write the region tree as Hatchet literal JSON")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML job summary (plots embedded)")
    p.add_argument("--full-names", action="store_true",
                   help="whole region and kernel names (default: the innermost frame, kernels demangled and "
                        "shortened; CSV, JSON and Hatchet always whole) and no 120-column limit on text")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report to FILE instead of stdout (an existing FILE is kept: FILE.1... is "
                        "written; '-': stdout; a device or FIFO such as /dev/null: written to as it is)")
    p.add_argument("--sampling-export", nargs=2, metavar=("FORMAT", "OUT"),
                   help="write the call-path samples (tally-run --sampling): FORMAT 'folded' (folded stacks for "
                        "flamegraph.pl, speedscope, inferno), 'pprof' (profile.proto, gzipped: go tool pprof), "
                        "'speedscope' (speedscope's JSON) or 'hatchet' (Hatchet's literal graph, JSON)")
    p.add_argument("--trace-export", nargs=2, metavar=("perfetto", "OUT.json"),
                   help="convert the run's trace (FILE.h5's FILE.trace/, or the archive) to Chrome Trace "
                        "Event JSON for Perfetto's UI; nothing else is done")
    p.add_argument("--trace-estimate", nargs="?", const="", default=None, metavar="SIZE",
                   help="the events and bytes a trace of this run would take, per region and in all (from the "
                        "profile's visits); with SIZE, the regions to leave out (TALLY_TRACE_EXCLUDE) to fit")
    return p


def run_settings(args):
    """--settings: the settings the run was given (the file's settings attribute)."""
    from .reader import read
    from .report import settings_given
    run = read(args.path)
    given = settings_given(run.meta)
    if given is None:
        raise TallyError(f"{args.path}: written by Tally {run.meta.get('tally_version', '?')} (schema "
                         f"{run.meta.get('schema_version', '?')}), before files stored the run's settings")
    print(f"# settings given to the run (Tally {run.meta.get('tally_version', '?')}); every other setting "
          f"at its default (tally-run --help): {len(given)}")
    for line in given:
        print(line)
    return 0


def run_trace_estimate(args):
    """--trace-estimate [SIZE]: the trace's size from the profile (trace_estimate.py)."""
    from . import trace_estimate
    from .reader import read
    print("\n".join(trace_estimate.report(read(args.path), args.trace_estimate, args.top)))
    return 0


def _wrote(requested, written, what):
    """Say where a file went when an existing one kept its name."""
    from .outfiles import said
    line = said(requested, written, what)
    if line:
        print(line, file=sys.stderr)


def run_trace_export(args):
    """--trace-export perfetto OUT: the trace archive as Chrome Trace Event JSON."""
    from . import trace_export
    fmt, out = args.trace_export
    if fmt != "perfetto":
        raise TallyError(f"--trace-export: unknown format '{fmt}' (perfetto)")
    n, nmsg, unmatched, written = trace_export.perfetto(args.path, out)
    _wrote(out, written, "the trace export")
    print(f"{written}: {n} trace events, {nmsg} message arrows"
          + (f", {unmatched} messages without their other end" if unmatched else ""), file=sys.stderr)
    return 0


def run_report(args):
    """Read, report, export, plot; returns the exit status."""
    from . import export, outfiles, render, report
    from .probe import probe
    from .reader import read
    run = read(args.path, skip=probe(args.path))
    for d in run.damaged:
        print(f"tally-report: warning: {d}; the other files are merged", file=sys.stderr)
    full = args.full_names or args.format in ("csv", "json")
    sections = report.build(run, by=args.by, metric=args.metric, top=args.top, full=full)
    text = render.render(sections, args.format, width=None if args.full_names else render.WIDTH)
    text = text if text.endswith("\n") else text + "\n"
    if args.output:
        _wrote(args.output, outfiles.write(args.output, text), "the report")
    else:
        sys.stdout.write(text)
    if args.csv_dir:
        paths, empty = export.csv_dir(run, args.csv_dir)
        if empty:
            print(f"tally-report: {len(empty)} tables without rows not written as CSV: {', '.join(empty)}",
                  file=sys.stderr)
    if args.sampling_export:
        from . import sampling_export
        fmt, out = args.sampling_export
        if fmt not in sampling_export.FORMATS:
            raise TallyError(f"--sampling-export: unknown format '{fmt}' ({', '.join(sampling_export.FORMATS)})")
        if not run.has("samples"):
            raise TallyError(f"{args.path}: no call-path samples (run with tally-run --sampling=1000)")
        data, binary = sampling_export.export(run, fmt, os.path.basename(args.path))
        _wrote(out, outfiles.write(out, data, binary), f"the samples ({fmt})")
    if args.hatchet:
        _wrote(args.hatchet, export.hatchet_json(run, args.hatchet), "the Hatchet tree")
    if args.plot or args.html:
        an = report.Analysis(run)
        col = an.metric_column(args.metric) if an.per_rank is not None else None
    if args.plot:
        from . import plots
        for p in plots.write(an, col, args.plot, args.top or 40, args.full_names):
            print(f"plot: {p}", file=sys.stderr)
    if args.html:
        from . import html
        shown = report.build(run, by=args.by, metric=args.metric, top=args.top, full=args.full_names)
        page = html.page(run, an, col, shown, args)
        _wrote(args.html, outfiles.write(args.html, page), "the HTML summary")
    return 0


def guarded(prog, path, fn):
    """fn() under the rules of every command: one-sentence errors on
    stderr and exit status 2 for unusable input, never a traceback
    (TALLY_DEBUG=1 shows where it failed); 0 on a closed pipe."""
    try:
        with warnings.catch_warnings():
            # library warnings (pandas on odd values) would break the one-line answer
            if not settings.flag("TALLY_DEBUG"):
                warnings.simplefilter("ignore")
            return fn()
    except TallyError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except ImportError as e:   # a module this interpreter lacks (matplotlib for --plot)
        print(f"{prog}: {sys.executable} cannot import {e.name or e}; set TALLY_PYTHON to a python3 that has "
              "h5py, numpy, pandas and matplotlib", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog}: {e.filename or path}: {e.strerror or e}", file=sys.stderr)
        return 2
    except Exception as e:   # pylint: disable=broad-except
        # a file that reads but holds values no real run produces
        if settings.flag("TALLY_DEBUG"):
            raise
        what = str(e).splitlines()[0][:200] if str(e) else ""
        print(f"{prog}: {path}: the measurement is damaged or inconsistent "
              f"({e.__class__.__name__}{': ' + what if what else ''})", file=sys.stderr)
        return 2


def main(argv=None):
    """Entry point: the report, or one of the other commands (commands.py)."""
    from .commands import COMMANDS
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        name, rest = argv[0], argv[1:]
        return guarded(f"tally-report {name}", rest[-1] if rest else "", lambda: COMMANDS[name](rest))
    args = parser().parse_args(argv)
    if args.settings:
        return guarded("tally-report", args.path, lambda: run_settings(args))
    if args.trace_estimate is not None:
        return guarded("tally-report", args.path, lambda: run_trace_estimate(args))
    if args.trace_export:
        return guarded("tally-report", args.path, lambda: run_trace_export(args))
    return guarded("tally-report", args.path, lambda: run_report(args))
