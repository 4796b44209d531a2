#!/usr/bin/env bash
# run_discard.sh APP TALLY_RUN - tally-run --output-name=/dev/null under
# mpirun (4 ranks): measure and discard (issue 52): the job runs and ends
# 0, exactly one line on stderr says the measurement was discarded
# (rank 0's), nothing is written (no file in the directory, none beside
# /dev/null), /dev/null stays the null device.  Planted: the same job with
# --output-name=out.h5 writes out.h5 and says so (the line is the
# runtime's, not a refusal).
set -u
app=$1 run=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_rmaps_base_oversubscribe=1 ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
timeout 150 mpirun --oversubscribe -np 4 "$run" --output-name=/dev/null -- "$app" ok >out.txt 2>err.txt
rc=$?
cat err.txt
[ "$rc" -eq 0 ] || { echo "FAIL: the job ended $rc"; fail=1; }
n=$(grep -c . err.txt)
[ "$n" -eq 1 ] || { echo "FAIL: $n lines on stderr, want 1"; fail=1; }
grep -q "discarded" err.txt || { echo "FAIL: no line says the measurement was discarded"; fail=1; }
left=$(ls -A | grep -v -x -e out.txt -e err.txt)
[ -z "$left" ] || { echo "FAIL: written: $left"; fail=1; }
ls -d /dev/null.* 2>/dev/null && { echo "FAIL: a file beside /dev/null"; fail=1; }
[ -c /dev/null ] || { echo "FAIL: /dev/null is no longer a device"; fail=1; }
timeout 150 mpirun --oversubscribe -np 4 "$run" --output-name=out.h5 -- "$app" ok >out.txt 2>err.txt
[ -s out.h5 ] && grep -q "written to" err.txt || { echo "FAIL: planted: out.h5 not written"; cat err.txt; fail=1; }
[ "$fail" -eq 0 ] && echo "measured and discarded on 4 ranks: one line, nothing written"
exit "$fail"
