#!/usr/bin/env bash
# run_replay_gpu.sh APP TALLY_RUN CHECKER [KEEP_DIR] - a GPU metric list
# that needs several passes (9 on GH100), collected from test_rt_kernels
# (testsuite/gpu) by kernel replay (kr.h5) and by application replay
# (tally-run --passes -- mpirun: ar.h5, merged from ar.pass<k>.h5); then
# check_replay_gpu.py compares them.  77 without a GPU, or without h5py
# (the files are then left in KEEP_DIR; merge them with
# wrappers/passes/tally-merge-passes.py).  NP=<ranks> (default 1: a GPU's
# counters serve one process at a time).
set -u
app=$1 run=$2 checker=$3 keep=${4:-}
[ -e /dev/nvidiactl ] || { echo "SKIP: no NVIDIA GPU or driver on this machine (/dev/nvidiactl missing)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's own allocations are reported as leaks by an ASan preload.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
M=smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
EV=$(echo "$M" | sed 's/\([^,]*\)/cuda:::\1/g')
dir=${keep:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"
timeout 200 "$run" --events=$EV --output-name=kr.h5 --verbose=2 -- mpirun --oversubscribe -np ${NP:-1} "$app" \
  > kr.log 2>&1
rc=$?; cat kr.log
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "kernel replay job failed ($rc)"; exit 1; }
# the pass count: 'auto' reads run 0's file (h5py); without h5py, the log's
P=auto
/usr/bin/python3 -c "import h5py" 2>/dev/null || P=$(sed -n 's/.*GPU metric(s) in \([0-9]*\) pass(es).*/\1/p' kr.log | head -1)
timeout 400 "$run" --passes=${P:-auto} --events=$EV --output-name=ar.h5 --verbose=2 -- \
  mpirun --oversubscribe -np ${NP:-1} "$app" > ar.log 2>&1
rc=$?; cat ar.log
ls -l
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "h5py missing: files left in $dir"; exit 77; }
[ $rc -eq 0 ] || { echo "application replay job failed ($rc)"; exit 1; }
exec /usr/bin/python3 "$checker" kr.h5 ar.h5
