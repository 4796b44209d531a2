#!/usr/bin/env bash
# run_rt_test.sh STYLE MODE APP TALLY_RUN CHECKER - one launch of rt_app, then the checks.
#   STYLE: per-rank (mpirun tally-run -- app), outer (tally-run -- mpirun app), preload (mpirun -x LD_PRELOAD)
set -u
style=$1 mode=$2 app=$3 run=$4 checker=$5
command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2 ASAN_OPTIONS=detect_leaks=0
export OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
opts=(--output-name=out.h5 --libomp=auto)
mpi=(mpirun --oversubscribe -np 4)
case $style in
  per-rank) timeout 120 "${mpi[@]}" "$run" "${opts[@]}" -- "$app" "$mode" ;;
  outer)    timeout 120 "$run" "${opts[@]}" -- "${mpi[@]}" "$app" "$mode" ;;
  preload)  pre=$(dirname "$run")/libtally-preload.so
            gomp=$(dirname "$run")/libomp-as-libgomp
            timeout 120 "${mpi[@]}" -x LD_PRELOAD="$pre" -x LD_LIBRARY_PATH="$gomp" -x TALLY_OUTPUT_NAME=out.h5 "$app" "$mode" ;;
esac
rc=$?
echo "job exit status: $rc"
ls -l
if [ "$mode" = ok ]; then
  [ $rc -eq 0 ] || { echo "job failed"; exit 1; }
  exec /usr/bin/python3 "$checker" out.h5 ok
fi
[ $rc -ne 0 ] || { echo "job should have failed (mode $mode)"; exit 1; }
exec /usr/bin/python3 "$checker" "out.rank*.partial.h5" "$mode"
