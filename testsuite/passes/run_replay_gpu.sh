#!/usr/bin/env bash
# run_replay_gpu.sh APP TALLY_RUN CHECKER [KEEP_DIR] - GPU metric lists that
# need several passes, collected from test_rt_kernels (testsuite/gpu) by
# kernel replay (<list>.kr.h5) and by application replay (tally-run --passes
# -- mpirun: <list>.ar.h5, merged from <list>.ar.pass<k>.h5); then
# check_replay_gpu.py compares them.  Two lists:
#   sets:  9 deterministic counters in 3 passes, one group each (each run
#          collects its own pass; `tally-gpu-avail --chip GH100 -g <list>`
#          shows the packing without a GPU);
#   image: sm__throughput (which alone spans 8 passes on GH100) with two
#          counters: every run adds its pass to a counter data image kept
#          on disk, the last run evaluates it;
# and the sets list under application replay of `test_rt_kernels vary`
# (run k launches k more kernels): check_replay_gpu.py --mismatch wants
# exactly the kernel launch differences in pass_checks.
# 77 without a GPU, or without h5py (the files are then left in KEEP_DIR;
# merge them with tally-report merge-passes).  NP=<ranks>
# (default 2).  A GPU's counters serve one process at a time: ranks sharing
# a GPU leave it to the lowest rank (the checker is told so); GPU_PER_RANK=1
# gives each rank its own GPU (CUDA_VISIBLE_DEVICES = local rank).
set -u
app=$1 run=$2 checker=$3 keep=${4:-}
. "$(dirname "$0")/../gpu/gpu_present.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's own allocations are reported as leaks by an ASan preload.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
SETS=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_launched.sum,sm__ctas_launched.sum
SETS=$SETS,smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
SETS=$SETS,smsp__inst_executed_op_global_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
SETS=$SETS,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
IMAGE=sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
IMAGE=$IMAGE,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
NP=${NP:-2}
wrap=() share=--shared
[ "${GPU_PER_RANK:-0}" = 1 ] && { wrap=(sh -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"'); share=; }
dir=${keep:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"
have_h5py=0 py=
for c in ${TALLY_PYTHON:-} python3 /usr/bin/python3; do
  "$c" -c "import h5py" 2>/dev/null && { py=$c; have_h5py=1; break; }
done
# replay NAME LIST: both jobs of one list
replay() {
  local name=$1 ev P rc
  ev=$(echo "$2" | sed 's/\([^,]*\)/cuda:::\1/g')
  timeout 200 "$run" --events=$ev --output-name=$name.kr.h5 --verbose=2 -- \
    mpirun --oversubscribe -np $NP "${wrap[@]}" "$app" > $name.kr.log 2>&1
  rc=$?; cat $name.kr.log
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "$name: kernel replay job failed ($rc)"; exit 1; }
  # the pass count: 'auto' reads run 0's file (h5py); without h5py, the log's
  P=auto
  [ $have_h5py = 1 ] || P=$(sed -n 's/.*GPU metric(s) in \([0-9]*\) pass(es).*/\1/p' $name.kr.log | head -1)
  timeout 600 "$run" --passes=${P:-auto} --events=$ev --output-name=$name.ar.h5 --verbose=2 -- \
    mpirun --oversubscribe -np $NP "${wrap[@]}" "$app" > $name.ar.log 2>&1
  rc=$?; cat $name.ar.log
  # without h5py tally-run's merge fails (its status), the runs did not
  [ $have_h5py = 0 ] && grep -q "merging the passes failed" $name.ar.log && rc=0
  [ $rc -eq 0 ] || { echo "$name: application replay job failed ($rc)"; exit 1; }
  ls $name.ar.rank*.cdata 2>/dev/null && { echo "$name: counter data images left behind"; exit 1; }
}
replay sets "$SETS"
replay image "$IMAGE"
ev=$(echo "$SETS" | sed 's/\([^,]*\)/cuda:::\1/g')
timeout 300 "$run" --passes=3 --events=$ev --output-name=vary.ar.h5 --verbose=2 -- \
  mpirun --oversubscribe -np $NP "${wrap[@]}" "$app" vary > vary.ar.log 2>&1
rc=$?; cat vary.ar.log
[ $have_h5py = 0 ] && grep -q "merging the passes failed" vary.ar.log && rc=0
[ $rc -eq 0 ] || { echo "vary: application replay job failed ($rc)"; exit 1; }
ls -l
[ $have_h5py = 1 ] || { echo "h5py missing: files left in $dir"; exit 77; }
rc=0
"$py" "$checker" sets.kr.h5 sets.ar.h5 $share || rc=1
"$py" "$checker" image.kr.h5 image.ar.h5 $share --image || rc=1
"$py" "$checker" sets.kr.h5 vary.ar.h5 $share --mismatch || rc=1
exit $rc
