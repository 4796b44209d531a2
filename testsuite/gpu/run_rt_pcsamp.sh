#!/usr/bin/env bash
# run_rt_pcsamp.sh APP TALLY_RUN CHECKER KERNELS_CU [KEEP_DIR] - GPU PC
# sampling under tally-run (TALLY_PCSAMP=1), files checked by
# check_rt_pcsamp.py:
#   hot     1 rank, continuous: hottest file:line is the FMA loop's line,
#           sum over stall reasons == samples in the records;
#   serial  1 rank, kernel-serialized: samples per correlation id ~1:2;
#   shared  2 ranks on one GPU: exactly one samples, the file says which.
# 77 without a GPU (or without h5py).
set -u
abs() { case $1 in /*) echo "$1";; *) echo "$PWD/$1";; esac; }
app=$(abs "$1") run=$(abs "$2") checker=$(abs "$3") cu=$(abs "$4") keep=${5:-}
# Open MPI's own allocations look leaked to LeakSanitizer (as in testsuite/mpi/run_rt_test.sh).
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=${keep:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir   # the GPU claim lock lives here
cd "$dir"
for c in hot:1:continuous:hot serial:1:serialized:serial shared:2:continuous:hot; do
  IFS=: read -r name np mode arg <<<"$c"
  timeout 200 mpirun --oversubscribe -np $np "$run" --pcsamp --pcsamp-period=12 --pcsamp-mode=$mode \
    --output-name=$name.h5 --verbose=2 -- "$app" $arg > $name.log 2>&1
  rc=$?
  cat $name.log
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "job $name failed ($rc)"; exit 1; }
done
py=
for c in ${TALLY_PYTHON:-} python3 /usr/bin/python3; do
  "$c" -c "import h5py" 2>/dev/null && { py=$c; break; }
done
[ -n "$py" ] || { echo "SKIP: no python3 with h5py (set TALLY_PYTHON): files left in $dir"; exit 77; }
exec $py "$checker" "$cu" hot.h5 serial.h5 shared.h5
