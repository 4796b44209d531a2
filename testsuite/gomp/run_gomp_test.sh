#!/usr/bin/env bash
# run_gomp_test.sh APP TALLY_RUN CHECKER SOURCE PYTHONPATH - gomp_regions
# under tally-run with no options (counters on: perf::TASK-CLOCK among the
# events), then check_gomp.py on its file and its truth.
set -u
app=$1 run=$2 checker=$3 src=$4 pypath=$5
/usr/bin/python3 -c "import h5py, pandas" 2>/dev/null || { echo "SKIP: python3-h5py or pandas missing"; exit 77; }
ldd "$app" | grep -q 'libgomp\.so\.1' || { echo "$app does not use libgomp"; exit 1; }
unset TALLY_LIBOMP TALLY_OMPT TALLY_OMP_COUNTERS OMP_NUM_THREADS
export TALLY_EVENTS=perf::TASK-CLOCK OMP_WAIT_POLICY=passive
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
timeout 120 "$run" --output-name=gomp.h5 -- "$app" truth.txt 2>err.txt
rc=$?
cat err.txt
[ $rc -eq 0 ] || { echo "program failed ($rc)"; exit 1; }
grep -i "libomp\|not measured" err.txt && { echo "unexpected message about OpenMP"; exit 1; }
cat truth.txt
exec /usr/bin/python3 "$checker" gomp.h5 truth.txt "$src" "$pypath" "$app"
