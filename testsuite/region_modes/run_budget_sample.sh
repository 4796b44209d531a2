#!/usr/bin/env bash
# run_budget_sample.sh APP TALLY_RUN CHECKER - the cost budget's sampled
# step on budget_sample_app: first with TALLY_BUDGET=off (every counter
# read: exact values, and the measured costs from which the checker picks
# the budget that puts "medium" in the sampled step), then at that budget,
# where "medium" is sampled and its values estimated.  The checker must
# also reject the first file as a sampled one (it can fail).
set -u
app=$1 run=$2 checker=$3
/usr/bin/python3 -c "import pandas, h5py" 2>/dev/null || { echo "FAILED: python3-pandas/h5py missing (testsuite/install-deps.sh installs them)"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
ev=--events=perf::PAGE-FAULTS,perf::TASK-CLOCK
timeout 100 "$run" --output-name=off.h5 $ev --budget=off -- "$app" || { echo "off: program failed"; exit 1; }
/usr/bin/python3 "$checker" off.h5 truth.txt off || exit 1
budget=$(cat budget.txt)
cp truth.txt truth-off.txt
timeout 100 "$run" --output-name=sample.h5 $ev --budget="$budget" -- "$app" \
  || { echo "sample: program failed"; exit 1; }
/usr/bin/python3 "$checker" sample.h5 truth.txt sample "$budget" || exit 1
if /usr/bin/python3 "$checker" off.h5 truth-off.txt sample "$budget" >self.txt 2>&1; then
  echo "FAILED: the checker accepts the off run's exact values as a sampled region"; exit 1
fi
echo "self-test: the checker rejects the off run as a sampled one ($(grep -c FAILED self.txt) failed checks)"
exit 0
