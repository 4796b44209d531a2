#!/usr/bin/env bash
# run_rt_gpu.sh APP TALLY_RUN CHECKER [KEEP_DIR] - test_rt_kernels on 2 ranks
# under tally-run: (1) a metric list that needs several passes, collected
# by kernel replay; (2) its deterministic counters in two lists of one
# pass each (the single-pass reference); then check_rt_gpu.py compares the
# gpu_kernels tables.  77 without a GPU.  NP=<ranks> overrides the 2 ranks;
# GPU_PER_RANK=1 gives each rank its own GPU (CUDA_VISIBLE_DEVICES = local
# rank): the GPU's counters serve one profiling process at a time, so
# ranks sharing a GPU leave it to the lowest rank (the checker is told so).
set -u
app=$1 run=$2 checker=$3 keep=${4:-}
. "$(dirname "$0")/gpu_present.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's own allocations are reported as leaks by an ASan preload.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
C1=smsp__inst_executed.sum
C2=smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
M=$C1,$C2,sm__throughput.avg.pct_of_peak_sustained_elapsed
cuda() { echo "$1" | sed 's/\([^,]*\)/cuda:::\1/g'; }
wrap=() share=--shared
[ "${GPU_PER_RANK:-0}" = 1 ] && { wrap=(sh -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"'); share=; }
dir=${keep:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"
for f in multi:$M single1:$C1 single2:$C2; do
  name=${f%%:*} list=${f#*:}
  timeout 200 mpirun --oversubscribe -np ${NP:-2} "${wrap[@]}" "$run" --events=$(cuda $list) \
    --output-name=$name.h5 --verbose=2 -- "$app" > $name.log 2>&1
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
exec "$py" "$checker" multi.h5 single1.h5 single2.h5 $share
