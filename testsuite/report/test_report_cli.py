#!/usr/bin/python3
"""tally-report's command line (issue 52; ctest report_cli): every flag of
--help has its text; -o - is standard output and -o /dev/null writes
nothing beside it; a directory counts only its Tally files; counter
headers carry their units; the run's settings are shown.  The helpers
(a synthetic file, tally-report run) are test_report.py's."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report import WORK, check, done, generate, report, scratch  # noqa: E402


def case_cli():
    """Issue 52: every flag of --help has its text; -o - is stdout, -o
    /dev/null writes nothing beside it; a directory counts only its Tally
    files; counter headers carry units; the run's settings are shown."""
    d = scratch("cli")
    f = generate(os.path.join(d, "f.h5"), "--ranks", "2", "--regions", "6")
    rc, out, _ = report("--help")
    sys.path.insert(0, os.environ.get("TALLY_PYTHONPATH", ""))
    from tally import cli
    actions = cli.parser()._actions
    flags = [o for a in actions for o in a.option_strings]
    check(rc == 0 and len(flags) >= 15 and all(re.search(rf"^  (-\w[^,]*, )?{re.escape(o)}\b", out, re.M) for o in flags
                                               if o.startswith("--")),
          f"--help lists every flag ({len(flags)})")
    bare = [a.dest for a in actions if not a.help]
    check(not bare, f"every option of tally-report has a help text ({bare})")
    # -o - and -o /dev/null
    rc, plain, _ = report(f)
    rc2, out, err = report(f, "-o", "-")
    check(rc == rc2 == 0 and out == plain and not err, f"-o -: the report on stdout ({rc2}, {err!r})")
    rc, out, err = report(f, "-o", "/dev/null")
    check(rc == 0 and out == "" and err == "" and not os.path.exists("/dev/null.1"),
          f"-o /dev/null: written there, nothing else ({rc}, {err!r})")
    # units: the counter columns of the region tree, and the MPI tables' note
    rc, out, _ = report(f, "--format", "json", "--top", "0")
    sec = {x["title"]: x for x in json.loads(out)["sections"]}
    cols = set(sec["Region tree"]["rows"][0])
    for want in ("perf::TASK-CLOCK incl [ns]", "PAPI_TOT_CYC excl [count]"):
        check(want in cols, f"region tree header {want!r} ({sorted(cols)})")
    check("bytes/call = (bytes_sent + bytes_recv) / calls" in json.dumps(sec), "MPI tables say what bytes/call is")
    # settings: the Run table and --settings
    run = {r["item"]: r["value"] for r in sec["Run"]["rows"]}
    check(run.get("settings given") == "TALLY_MPI_CALLSITES=2; TALLY_EVENTS=perf::TASK-CLOCK",
          f"Run table: settings given ({run.get('settings given')!r})")
    rc, out, err = report(f, "--settings")
    check(rc == 0 and out.splitlines()[1:] == ["TALLY_MPI_CALLSITES=2", "TALLY_EVENTS=perf::TASK-CLOCK"],
          f"--settings: one line each ({rc}, {out!r}, {err!r})")
    # a directory: two Tally files named, the others (text, a cut copy) counted apart
    generate(os.path.join(d, "g.h5"), "--ranks", "1", "--regions", "3")
    open(os.path.join(d, "text.h5"), "w").write("not hdf5\n")
    with open(f, "rb") as src, open(os.path.join(d, "cut.h5"), "wb") as dst:   # HDF5's signature, no Tally file
        dst.write(src.read(4096))
    rc, out, err = report(d)
    check(rc == 2 and "holds 2 complete Tally files (f.h5, g.h5) and 2 other .h5 files" in err
          and err.count("\n") == 1, f"directory: the Tally files counted ({err!r})")
    os.unlink(os.path.join(d, "g.h5"))
    rc, out, err = report(d)
    check(rc == 0 and "Region tree" in out, f"directory with one Tally file beside other .h5 files: read ({rc}, {err!r})")


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    case_cli()
    sys.exit(done("cli"))
