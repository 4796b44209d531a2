#!/usr/bin/env bash
# run_python_isolation.sh APP PASS_APP TALLY_RUN TALLY_REPORT - every Python
# Tally starts runs isolated (issue 35): with argparse.py, numpy.py and
# h5py.py planted in the current directory and in a PYTHONPATH directory,
# and PYTHONSTARTUP naming a planted script (each writes a marker file when
# imported or run), none runs at tally-run --summary, at the merge step of
# tally-run --passes, or in tally-report started by its launcher; every
# command still does its work.
set -u
app=$1 passapp=$2 run=$3 report=$4
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
unset TALLY_PYTHONPATH
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir "$work/cwd" "$work/pp" "$work/marks"
for d in cwd pp; do
  for m in argparse numpy h5py; do
    printf 'open("%s/%s-%s", "w").close()\n' "$work/marks" "$d" "$m" >"$work/$d/$m.py"
  done
done
printf 'open("%s/startup", "w").close()\n' "$work/marks" >"$work/pp/startup.py"
export PYTHONPATH=$work/pp PYTHONSTARTUP=$work/pp/startup.py
cd "$work/cwd" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
marks() { local m; m=$(ls "$work/marks"); [ -z "$m" ] || { bad "$1: planted code ran: $m"; rm -f "$work/marks"/*; }; }

"$run" --output-name=job.h5 -- "$app" 0 >/dev/null 2>err.txt || bad "the measured run failed: $(cat err.txt)"
marks "the measured run"
"$run" --summary job.h5 >summary.txt 2>&1 || bad "tally-run --summary failed: $(cat summary.txt)"
marks "tally-run --summary"
grep -q "safety_app" summary.txt || bad "tally-run --summary printed no summary: $(head -5 summary.txt)"
EV=perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::MINOR-FAULTS,perf::MAJOR-FAULTS
TALLY_PERF_MAX_COUNTERS=2 timeout 120 "$run" --passes=auto --events=$EV --output-name=passes.h5 -- "$passapp" 3 8 serial \
  >/dev/null 2>err.txt || bad "tally-run --passes failed: $(cat err.txt)"
marks "the --passes merge"
grep -q "2 pass(es) merged" err.txt || bad "no merge: $(cat err.txt)"
"$report" job.h5 >report.txt 2>&1 || bad "tally-report failed: $(head -5 report.txt)"
marks "tally-report"
grep -q "safety_app" report.txt || bad "tally-report printed no report"
[ $fail = 0 ] && echo "all Python isolation checks passed"
exit $fail
