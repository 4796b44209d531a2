#!/usr/bin/env bash
# run_budget.sh APP TALLY_RUN CHECKER - budget_app under tally-run with the
# default cost budget and with TALLY_BUDGET=off (today's full records).
set -u
app=$1 run=$2 checker=$3
/usr/bin/python3 -c "import pandas, h5py" 2>/dev/null || { echo "FAILED: python3-pandas/h5py missing (testsuite/install-deps.sh installs them)"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
for mode in budget off; do
  flag=--budget=3
  [ $mode = off ] && flag=--budget=off
  rm -f truth.txt
  timeout 100 "$run" --output-name=$mode.h5 --events=perf::PAGE-FAULTS "$flag" -- "$app" \
    || { echo "$mode: program failed"; exit 1; }
  /usr/bin/python3 "$checker" $mode.h5 truth.txt $mode || fail=1
done
exit $fail
