#!/usr/bin/env bash
# run_replay_names.sh PASS_APP TALLY_RUN - application replay (tally-run
# --passes=auto) with names no shell may see: a quote, $(...), ;, a space
# and a newline in the output directory, the output name and the program's
# path.  Every run and the merge must work, and no command hidden in a name
# may run (the pass count was once read through popen("... '%s'")).
set -u
analysis=$(cd "$(dirname "$0")/../../analysis" && pwd)   # tally.raw reads the files (issue 40)
app=$1 run=$2
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
odir="$dir/O'Brien \$(touch $dir/pwned1); x"
mkdir -p "$odir" "$dir/bin'\`touch pwned2\`"
prog="$dir/bin'\`touch pwned2\`/app';touch pwned3;'"
cp "$app" "$prog"
EV=perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::MINOR-FAULTS,perf::MAJOR-FAULTS
name=$'m\'; touch pwned4; \'\nx.h5'
TALLY_PERF_MAX_COUNTERS=2 TALLY_OUTPUT_DIR="$odir" timeout 120 "$run" --passes=auto --events=$EV \
  --output-name="$name" -- "$prog" 3 8 serial 2>err.txt || { cat err.txt; bad "replay failed"; }
cat err.txt
ls "$dir"/pwned* 2>/dev/null && bad "a command hidden in a name ran"
grep -q "2 pass(es) merged" err.txt || bad "the pass count was not read back (2 passes expected)"
stem=${name%.h5}
PYTHONPATH="$analysis" /usr/bin/python3 - "$odir/$stem.h5" <<'PY' || bad "merged file"
import sys, tally
f = tally.raw(sys.argv[1])
assert "pass_checks" in f or f.attrs["schema_version"] >= 1
print("merged file", repr(sys.argv[1]), "ok")
PY
[ $fail = 0 ] && echo "replay with hostile names: all checks passed"
exit $fail
