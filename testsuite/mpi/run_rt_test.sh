#!/usr/bin/env bash
# run_rt_test.sh STYLE MODE APP TALLY_RUN CHECKER - one launch of rt_app, then the checks.
#   STYLE: per-rank (mpirun tally-run -- app), outer (tally-run -- mpirun app),
#          preload (mpirun -x LD_PRELOAD), kill-mpirun (per-rank; the test
#          sends SIGTERM to mpirun itself once every rank has done 3 steps)
#   MODE:  ok, term, abort, exit, hang (rt_app's modes); nodir: ok with an
#          output directory that cannot be written (the file must be in $TMPDIR)
# The script returns only when every process of the job is gone, so the
# checker never meets a file that is still being written.
set -u
style=$1 mode=$2 app=$3 run=$4 checker=$5
command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
export TALLY_VERBOSE=2   # the writer then says whether HDF5 wrote collectively
# mpirun's children are not leak-checked (Open MPI's own allocations)
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
export OMPI_MCA_rmaps_base_oversubscribe=1
# Ranks get SIGTERM, then SIGKILL 1 s later by default: give the partial
# writers time (tally-run does the same for `tally-run -- mpirun`).
export OMPI_MCA_odls_base_sigkill_timeout=${TLY_TEST_SIGKILL_TIMEOUT:-3}
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
tag="TLYTEST_JOB_TAG=$dir"
appmode=$mode
opts=(--output-name=out.h5 --libomp=auto)
out=out.h5
if [ "$mode" = nodir ]; then
  appmode=ok
  mkdir fallback
  opts+=(--output-dir="$dir/missing/sub")
  export TMPDIR=$dir/fallback
  out=fallback/tally-$(id -u)/out.h5   # the private fallback directory (mode 0700)
fi
mpi=(mpirun --oversubscribe -np 4)
case $style in
  per-rank) env "$tag" timeout 120 "${mpi[@]}" "$run" "${opts[@]}" -- "$app" "$appmode" 2>err.txt ;;
  outer)    env "$tag" timeout 120 "$run" "${opts[@]}" -- "${mpi[@]}" "$app" "$appmode" 2>err.txt ;;
  preload)  pre=$(dirname "$run")/libtally-preload.so
            # a sanitizer build: ASan's runtime first (tally-run does it)
            asan=$(ldd "$pre" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "}')
            gomp=$(dirname "$run")/libomp-as-libgomp
            env "$tag" timeout 120 "${mpi[@]}" -x LD_PRELOAD="$asan$pre" -x LD_LIBRARY_PATH="$gomp" \
              -x TALLY_OUTPUT_NAME=out.h5 "$app" "$appmode" 2>err.txt ;;
  kill-mpirun)
            env "$tag" "${mpi[@]}" "$run" "${opts[@]}" -- "$app" "$appmode" 2>err.txt &
            pid=$!
            for _ in $(seq 600); do [ -e ready ] && break; sleep 0.1; done
            [ -e ready ] || { echo "the job never got ready"; kill -KILL "$pid"; exit 1; }
            kill -TERM "$pid"
            wait "$pid" ;;
esac
rc=$?
cat err.txt
echo "job exit status: $rc"
# every process of the job gone (mpirun's exit does not wait for all)
for _ in $(seq 300); do
  left=$(grep -lszx -- "$tag" /proc/[0-9]*/environ | wc -l)
  [ "$left" -eq 0 ] && break
  sleep 0.1
done
[ "$left" -eq 0 ] || { echo "$left process(es) of the job still running after 30 s"; exit 1; }
ls -l . fallback 2>/dev/null
if [ "$mode" = nodir ]; then
  n=$(grep -c "is not writable" err.txt)
  [ "$n" -eq 1 ] || { echo "want one message about the output directory, got $n"; exit 1; }
fi
if [ "$appmode" = ok ]; then
  [ $rc -eq 0 ] || { echo "job failed"; exit 1; }
  # every table written by collective MPI-IO (TALLY_VERBOSE=2 says otherwise)
  if grep "not collective" err.txt; then echo "HDF5 fell back to independent writes"; exit 1; fi
  exec /usr/bin/python3 "$checker" "$out" ok
fi
[ $rc -ne 0 ] || { echo "job should have failed (mode $mode)"; exit 1; }
# SIGTERM to mpirun: Open MPI may SIGKILL a rank before its partial file is
# complete; such a rank leaves only FILE.tmp (checked by the checker, mode hang)
if [ "$style" != kill-mpirun ]; then
  ls *.tmp 2>/dev/null && { echo "a writer left an incomplete .tmp file"; exit 1; }
fi
exec /usr/bin/python3 "$checker" "out.rank*.partial.h5" "$mode"
