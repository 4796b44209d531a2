#!/usr/bin/env bash
# run_event_msg.sh APP TALLY_RUN - a 4-rank job with a misspelt event and
# an unknown native: exactly one line on stderr about each (rank 0 only,
# one wording for the per-thread sets and the pass planner), the misspelt
# preset with the name meant (did you mean PAPI_TOT_CYC); the job still
# runs and writes its file with the events that are known.
set -u
app=$1 run=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_rmaps_base_oversubscribe=1 ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
timeout 150 mpirun --oversubscribe -np 4 "$run" --events=PAPI_TOT_CYK,perf::NOSUCH,perf::TASK-CLOCK \
  --output-name=out.h5 -- "$app" ok >out.txt 2>err.txt
rc=$?
cat err.txt
[ "$rc" -eq 0 ] || { echo "FAIL: the job ended $rc"; fail=1; }
n=$(grep -c "PAPI_TOT_CYK" err.txt)
[ "$n" -eq 1 ] || { echo "FAIL: $n lines name PAPI_TOT_CYK, want 1"; fail=1; }
grep "PAPI_TOT_CYK" err.txt | grep -q "did you mean.*PAPI_TOT_CYC" \
  || { echo "FAIL: no suggestion of PAPI_TOT_CYC"; fail=1; }
n=$(grep -c "perf::NOSUCH" err.txt)
[ "$n" -eq 1 ] || { echo "FAIL: $n lines name perf::NOSUCH, want 1"; fail=1; }
[ -s out.h5 ] || { echo "FAIL: no out.h5"; fail=1; }
[ "$fail" -eq 0 ] && echo "one line per unusable event from 4 ranks, with the suggestion"
exit "$fail"
