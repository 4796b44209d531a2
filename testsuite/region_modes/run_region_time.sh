#!/usr/bin/env bash
# run_region_time.sh APP TALLY_RUN CHECKER - region_time_app under tally-run
# with counters at user regions (default) and without (--region-counters=no).
set -u
app=$1 run=$2 checker=$3
/usr/bin/python3 -c "import pandas, h5py" 2>/dev/null || { echo "python3-pandas/h5py missing"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
for mode in counters time; do
  flag=--region-counters=yes
  [ $mode = time ] && flag=--region-counters=no
  rm -f truth.txt
  timeout 60 "$run" --output-name=$mode.h5 --events=perf::TASK-CLOCK "$flag" -- "$app" || { echo "$mode: program failed"; exit 1; }
  cat truth.txt
  /usr/bin/python3 "$checker" $mode.h5 truth.txt $mode || fail=1
done
exit $fail
