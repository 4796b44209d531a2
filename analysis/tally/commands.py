"""tally-report's commands beside the report: `merge-passes` (run by
tally-run --passes), `summary` (tally-run --summary) and `hl` (the
high-level API's JSON files).  Each takes its own arguments and returns
an exit status; cli.main runs them under cli.guarded (errors are one
line on stderr, never a traceback)."""
import argparse
import sys


def merge_passes(argv):
    """merge-passes OUT PASS0.h5 PASS1.h5 ... | merge-passes --npasses PASS0.h5"""
    from . import passmerge
    p = argparse.ArgumentParser(prog="tally-report merge-passes", description=passmerge.__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--npasses", action="store_true", help="print the pass count of run 0's schedule (FILE: its file)")
    p.add_argument("files", nargs="+", metavar="FILE")
    args = p.parse_args(argv)
    if args.npasses:
        if len(args.files) != 1:
            p.error("--npasses takes one file")
        print(passmerge.npasses(args.files[0]))
        return 0
    if len(args.files) < 2:
        p.error("give OUT and the files of the runs, in run order")
    out, runs = args.files[0], args.files[1:]
    rows = passmerge.merge(out, runs)
    if rows:
        passmerge.report_differences(out, len(runs), rows)
    return 3 if rows else 0


def summary(argv):
    """summary FILE.h5"""
    from .summary import summary as print_summary
    p = argparse.ArgumentParser(prog="tally-report summary", description="A short summary of a Tally file.")
    p.add_argument("file", metavar="FILE.h5")
    print_summary(p.parse_args(argv).file)
    return 0


def hl(argv):
    """hl FILE.json ..."""
    from . import hl as hl_mod
    p = argparse.ArgumentParser(prog="tally-report hl",
                                description="The regions of PAPI_hl_* JSON files (docs/hl-regions.md).")
    p.add_argument("files", nargs="+", metavar="FILE.json")
    for path in p.parse_args(argv).files:
        sys.stdout.write(hl_mod.render(hl_mod.read(path)))
    return 0


COMMANDS = {"merge-passes": merge_passes, "summary": summary, "hl": hl}

