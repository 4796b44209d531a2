#!/usr/bin/env bash
# run_pass_test.sh CASE APP TALLY_RUN CHECKER - 4-rank jobs of pass_app under
# tally-run, then check_passes.py on the files.
#   rotate:   budget 2, 4 software events -> 2 passes by region rotation
#             (13 visits: 7 in pass 0, 6 in pass 1), and a single-pass run
#             of the same events without budget as the reference
#   serial:   the rotate case in one process that never calls MPI_Init
#   mismatch: rank 3 gets another event order (TALLY_EVENTS on one rank
#             only): reported at MPI_Init, rank 0's schedule used, job ends
#   replay:   application replay (tally-run --passes=auto -- mpirun -np 4),
#             budget 2 -> 2 runs merged; references: each event counted
#             alone in its own 4-rank job (alone0.h5 .. alone3.h5), and
#             pass_app's own thread CPU time of the work (out_*.txt)
#   replay_serial: application replay of the serial program (no mpirun:
#             also runs in sanitizer builds)
#   replay_mismatch: the same with pass_app "vary" (run k does k more
#             visits): the merged file and stderr report the differences
set -u
case_=$1 app=$2 run=$3 checker=$4
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0:verify_asan_link_order=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
EV=perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::MINOR-FAULTS,perf::MAJOR-FAULTS
EV3=perf::MINOR-FAULTS,perf::MAJOR-FAULTS,perf::PAGE-FAULTS,perf::TASK-CLOCK
VISITS=13 PAGES=64
opts=(--pass-region=step)
mpi=(mpirun --oversubscribe)
case $case_ in
  rotate)
    TALLY_PERF_MAX_COUNTERS=2 timeout 120 "${mpi[@]}" -np 4 "$run" "${opts[@]}" --events=$EV \
      --output-name=multi.h5 -- "$app" $VISITS $PAGES 2>err.txt || { cat err.txt; echo "job failed"; exit 1; }
    timeout 120 "${mpi[@]}" -np 4 "$run" "${opts[@]}" --events=$EV --output-name=single.h5 -- \
      "$app" $VISITS $PAGES 2>>err.txt || { cat err.txt; echo "job failed"; exit 1; }
    ;;
  serial)
    TALLY_PERF_MAX_COUNTERS=2 timeout 120 "$run" "${opts[@]}" --events=$EV --output-name=multi.h5 -- \
      "$app" $VISITS $PAGES serial 2>err.txt || { cat err.txt; echo "job failed"; exit 1; }
    ;;
  mismatch)
    TALLY_PERF_MAX_COUNTERS=2 timeout 120 "${mpi[@]}" -np 3 "$run" "${opts[@]}" --events=$EV \
      --output-name=multi.h5 -- "$app" $VISITS $PAGES : -np 1 "$run" "${opts[@]}" --events=$EV3 \
      --output-name=multi.h5 -- "$app" $VISITS $PAGES 2>err.txt || { cat err.txt; echo "job failed"; exit 1; }
    ;;
  replay_serial)
    # a neighbour's link at the merge's old temporary name (multi.h5.tmp):
    # the merge writes through a descriptor of its own, never through it
    echo "victim" >victim.txt; ln -s "$PWD/victim.txt" multi.h5.tmp
    TALLY_PERF_MAX_COUNTERS=2 timeout 120 "$run" --passes=auto --events=$EV --output-name=multi.h5 -- \
      "$app" $VISITS $PAGES serial 2>err.txt || { cat err.txt; echo "job failed"; exit 1; }
    [ "$(cat victim.txt)" = victim ] && [ -L multi.h5.tmp ] || { echo "FAILED: the merge wrote through a planted link"; exit 1; }
    ls -a | grep -q '^\.multi\.h5\..*\.tmp$' && { echo "FAILED: a temporary file is left"; exit 1; }
    ;;
  replay|replay_mismatch)
    vary=; [ "$case_" = replay_mismatch ] && vary=vary
    TALLY_PERF_MAX_COUNTERS=2 timeout 150 "$run" --passes=auto --events=$EV --output-name=multi.h5 -- \
      "${mpi[@]}" -np 4 "$app" $VISITS $PAGES $vary 2>err.txt >out_multi.txt || { cat err.txt; echo "job failed"; exit 1; }
    i=0
    for e in ${EV//,/ }; do
      [ "$case_" = replay ] || break
      timeout 120 "${mpi[@]}" -np 4 "$run" --events=$e --output-name=alone$i.h5 -- "$app" $VISITS $PAGES \
        2>>err.txt >out_alone$i.txt || { cat err.txt; echo "job failed"; exit 1; }
      i=$((i + 1))
    done
    ;;
esac
cat err.txt
exec /usr/bin/python3 "$checker" "$case_" $VISITS $PAGES
