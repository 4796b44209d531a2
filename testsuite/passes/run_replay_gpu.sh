#!/usr/bin/env bash
# run_replay_gpu.sh APP TALLY_RUN CHECKER [KEEP_DIR] - a GPU metric list
# of deterministic counters that needs 3 passes on GH100, each pass one
# group (`tally-gpu-avail --chip GH100 -g <list>` shows the packing
# without a GPU), collected from test_rt_kernels (testsuite/gpu) by kernel
# replay (kr.h5) and by application replay (tally-run --passes -- mpirun:
# ar.h5, merged from ar.pass<k>.h5); then check_replay_gpu.py compares
# them.  77 without a GPU, or without h5py (the files are then left in
# KEEP_DIR; merge them with wrappers/passes/tally-merge-passes.py).
# NP=<ranks> (default 2).  A GPU's counters serve one process at a time:
# ranks sharing a GPU leave it to the lowest rank (the checker is told so);
# GPU_PER_RANK=1 gives each rank its own GPU (CUDA_VISIBLE_DEVICES = local
# rank).
set -u
app=$1 run=$2 checker=$3 keep=${4:-}
[ -e /dev/nvidiactl ] || { echo "SKIP: no NVIDIA GPU or driver on this machine (/dev/nvidiactl missing)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's own allocations are reported as leaks by an ASan preload.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_launched.sum,sm__ctas_launched.sum
M=$M,smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,smsp__inst_executed_op_global_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
M=$M,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
NP=${NP:-2}
wrap=() share=--shared
[ "${GPU_PER_RANK:-0}" = 1 ] && { wrap=(sh -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"'); share=; }
EV=$(echo "$M" | sed 's/\([^,]*\)/cuda:::\1/g')
dir=${keep:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"
timeout 200 "$run" --events=$EV --output-name=kr.h5 --verbose=2 -- mpirun --oversubscribe -np $NP "${wrap[@]}" "$app" \
  > kr.log 2>&1
rc=$?; cat kr.log
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "kernel replay job failed ($rc)"; exit 1; }
# the pass count: 'auto' reads run 0's file (h5py); without h5py, the log's
P=auto
/usr/bin/python3 -c "import h5py" 2>/dev/null || P=$(sed -n 's/.*GPU metric(s) in \([0-9]*\) pass(es).*/\1/p' kr.log | head -1)
timeout 400 "$run" --passes=${P:-auto} --events=$EV --output-name=ar.h5 --verbose=2 -- \
  mpirun --oversubscribe -np $NP "${wrap[@]}" "$app" > ar.log 2>&1
rc=$?; cat ar.log
ls -l
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "h5py missing: files left in $dir"; exit 77; }
[ $rc -eq 0 ] || { echo "application replay job failed ($rc)"; exit 1; }
exec /usr/bin/python3 "$checker" kr.h5 ar.h5 $share
