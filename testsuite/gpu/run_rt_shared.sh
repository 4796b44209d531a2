#!/usr/bin/env bash
# run_rt_shared.sh APP TALLY_RUN CHECKER [KEEP_DIR] - the owner of a
# shared GPU named from the lock's live holder (issue 50): two jobs in a
# row, each of 2 ranks with CUDA_VISIBLE_DEVICES=0 (test_rt_multi setdev),
# on one GPU.  check_rt_multi.py --mode shared on each: one rank profiles;
# the other's gpu_devices row says -1 with that rank and its pid (the pid
# of the ranks table of the same job, never the first job's) and its log
# line names "rank R (pid P)" of the same.  The second job meets the first
# job's "pid rank" line in the lock file: the bug named that pid.  A
# one-rank reference on GPU 0 gives the work kernel's value.  77 without a
# GPU or h5py.
set -u
app=$1 run=$2 checker=$3 keep=${4:-}
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }   # the jobs run in $dir
app=$(abs "$app") run=$(abs "$run") checker=$(abs "$checker")
. "$(dirname "$0")/gpu_present.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
py=
for c in ${TALLY_PYTHON:-} python3 /usr/bin/python3; do
  "$c" -c "import h5py" 2>/dev/null && { py=$c; break; }
done
[ -n "$py" ] || { echo "SKIP: no python3 with h5py (set TALLY_PYTHON)"; exit 77; }
dir=${keep:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
nvidia-smi -L > smi.txt 2>&1 || { echo "SKIP: nvidia-smi -L failed"; cat smi.txt; exit 77; }
E=cuda:::smsp__inst_executed.sum
fails=0
job() {   # job NAME COMMAND...: run it, keep its log
  local name=$1 rc; shift
  timeout 200 "$@" > $name.log 2>&1; rc=$?
  echo "=== $name (rc $rc): $*"; cat $name.log
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: job $name failed ($rc)"; fails=1; }
}
job ref mpirun --oversubscribe -np 1 "$run" --events=$E --output-name=ref.h5 --verbose=2 -- "$app" setdev
for n in shared1 shared2; do
  job $n env CUDA_VISIBLE_DEVICES=0 mpirun --oversubscribe -x CUDA_VISIBLE_DEVICES -np 2 "$run" --events=$E \
    --output-name=$n.h5 --verbose=2 -- "$app" setdev
  "$py" "$checker" $n.h5 $n.log --ranks 2 --mode shared --ngpu 1 --smi smi.txt --ref ref.h5 || fails=1
done
[ $fails = 0 ] && echo "run_rt_shared: all passed"
exit $fails
