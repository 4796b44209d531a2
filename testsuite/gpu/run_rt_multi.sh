#!/usr/bin/env bash
# run_rt_multi.sh APP TALLY_RUN CHECKER [KEEP_DIR] - the GPU a process
# measures is the one it uses (docs/gpu.md "Several GPUs").  APP is
# test_rt_multi (cudaSetDevice after MPI_Init).  Jobs, each checked by
# check_rt_multi.py against a one-rank reference run on GPU 0 and against
# nvidia-smi -L's UUIDs:
#   per-rank, outer, preload: 2 ranks, rank r on GPU r % GPUs, in the three
#     mpirun launch styles: every rank has exact values on its own GPU;
#   all: one process launching on every GPU: exact values for each;
#   shared: 2 ranks with CUDA_VISIBLE_DEVICES=0: one profiles, the other
#     says so once, naming the UUID and the rank;
#   kr / ar: a 3-pass metric list by kernel replay and by tally-run
#     --passes=auto on 2 ranks on their own GPUs: equal values.
# 77 without a GPU or without 2 GPUs for the multi-GPU jobs (then only the
# others run), or without h5py.  NP=<ranks> (default 2) for the multi-GPU
# jobs: rank r on GPU r % GPUs.
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
ngpu=$(grep -c '^GPU ' smi.txt)
E=cuda:::smsp__inst_executed.sum
SETS=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_launched.sum,sm__ctas_launched.sum
SETS=$SETS,smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
SETS=$SETS,smsp__inst_executed_op_global_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
SETS=$(echo "$SETS,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" | sed 's/\([^,]*\)/cuda:::\1/g')
mpi=(mpirun --oversubscribe)
np=${NP:-2}
fails=0
job() {   # job NAME COMMAND...: run it, keep its log
  local name=$1 rc; shift
  timeout 300 "$@" > $name.log 2>&1; rc=$?
  echo "=== $name (rc $rc): $*"; cat $name.log
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: job $name failed ($rc)"; fails=1; }
}
chk() { "$py" "$checker" "$@" --smi smi.txt --ref ref.h5 || fails=1; }
job ref "${mpi[@]}" -np 1 "$run" --events=$E --output-name=ref.h5 --verbose=2 -- "$app" setdev
chk ref.h5 ref.log --ranks 1 --mode setdev --ngpu "$ngpu"
if [ "$ngpu" -ge 2 ]; then
  job per-rank "${mpi[@]}" -np $np "$run" --events=$E --output-name=per-rank.h5 --verbose=2 -- "$app" setdev
  chk per-rank.h5 per-rank.log --ranks $np --mode setdev --ngpu "$ngpu"
  job outer "$run" --events=$E --output-name=outer.h5 --verbose=2 -- "${mpi[@]}" -np $np "$app" setdev
  chk outer.h5 outer.log --ranks $np --mode setdev --ngpu "$ngpu"
  pre=$(dirname "$run")/libtally-preload.so
  job preload "${mpi[@]}" -np $np -x LD_PRELOAD="$pre" -x TALLY_EVENTS=$E -x TALLY_OUTPUT_NAME=preload.h5 \
    -x TALLY_VERBOSE=2 "$app" setdev
  chk preload.h5 preload.log --ranks $np --mode setdev --ngpu "$ngpu"
  job all "${mpi[@]}" -np 1 "$run" --events=$E --output-name=all.h5 --verbose=2 -- "$app" all
  chk all.h5 all.log --ranks 1 --mode all --ngpu "$ngpu"
  job kr "${mpi[@]}" -np $np "$run" --events=$SETS --output-name=kr.h5 --verbose=2 -- "$app" setdev
  job ar "$run" --passes=auto --events=$SETS --output-name=ar.h5 --verbose=2 -- "${mpi[@]}" -np $np "$app" setdev
  "$py" "$checker" ar.h5 ar.log --ranks $np --mode setdev --ngpu "$ngpu" --smi smi.txt --compare kr.h5 || fails=1
fi
job shared env CUDA_VISIBLE_DEVICES=0 "${mpi[@]}" -x CUDA_VISIBLE_DEVICES -np 2 "$run" --events=$E \
  --output-name=shared.h5 --verbose=2 -- "$app" setdev
chk shared.h5 shared.log --ranks 2 --mode shared --ngpu 1
[ "$ngpu" -ge 2 ] || { [ $fails = 0 ] && { echo "SKIP: the multi-GPU jobs need 2 GPUs ($ngpu here); the others passed"; exit 77; }; exit 1; }
[ $fails = 0 ] && echo "run_rt_multi: all passed"
exit $fails
