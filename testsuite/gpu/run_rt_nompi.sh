#!/usr/bin/env bash
# run_rt_nompi.sh NOMPI_APP MPI_APP TALLY_RUN CHECKER [TORCH_SCRIPT] - GPU
# metrics without MPI_Init (issue "Every program").
#   1. the unmodified CUDA binary (test_rt_nompi_kernels) and the same
#      kernels in test_rt_kernels under mpirun -np 1, both with a metric
#      list that needs kernel replay: instruction counters equal exactly;
#   2. with TORCH_SCRIPT and a python3 that has torch: the PyTorch script
#      alone and inside MPI_Init/MPI_Finalize (rt_torch.py mpi), the same;
#   3. torchrun --nproc_per_node=2 of the script: one file, both ranks.
# 77 without a GPU.  PY: the python3 with torch and h5py (default python3).
set -u
analysis=${TLY_TEST_PYTHONPATH:-$(cd "$(dirname "$0")/../../analysis" && pwd)}   # tally.raw reads the files
nompi=$1 mpi=$2 run=$3 checker=$4 torch=${5:-}
PY=${PY:-python3}
. "$(dirname "$0")/gpu_present.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M=cuda:::smsp__inst_executed.sum,cuda:::smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,cuda:::smsp__sass_inst_executed_op_global_ld.sum,cuda:::sm__throughput.avg.pct_of_peak_sustained_elapsed
dir=${KEEP:-$(mktemp -d)}; mkdir -p "$dir"; [ -n "${KEEP:-}" ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
step() { echo "=== $*"; "$@"; r=$?; echo "=== rc=$r"; return $r; }
step timeout 200 "$run" --events=$M --output-name=nompi.h5 --verbose=2 -- "$nompi" || fail=1
step timeout 200 mpirun -np 1 "$run" --events=$M --output-name=mpi.h5 --verbose=2 -- "$mpi" || fail=1
step $PY "$checker" nompi.h5 mpi.h5 --min-kernels 1 || fail=1
if [ -n "$torch" ] && $PY -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  step timeout 300 "$run" --events=$M --output-name=torch.h5 --verbose=2 -- $PY "$torch" || fail=1
  step timeout 300 mpirun -np 1 "$run" --events=$M --output-name=torch_mpi.h5 --verbose=2 -- $PY "$torch" mpi || fail=1
  step $PY "$checker" torch.h5 torch_mpi.h5 --min-kernels 3 || fail=1
  tr=$($PY -c "import shutil; print(shutil.which('torchrun') or '')")
  step timeout 300 "$run" --output-name=torchrun.h5 --verbose=2 -- ${tr:-$PY -m torch.distributed.run} \
    --nproc_per_node=2 "$torch" dist || fail=1
  ls -la
  step env PYTHONPATH="$analysis" $PY - <<'PY' || fail=1
import glob, sys, tally
files = sorted(glob.glob("*.h5"))
print("files:", files)
f = tally.raw("torchrun.h5")
ranks = sorted(int(r) for r in f["ranks"][:]["rank"])
print("torchrun.h5: nranks", int(f.attrs["nranks"]), "ranks", ranks, "pids", list(f["ranks"][:]["pid"]))
parts = glob.glob("*.parts")
ok = int(f.attrs["nranks"]) == 2 and ranks == [0, 1] and not parts
print("ok" if ok else f"FAIL (parts left: {parts})")
sys.exit(0 if ok else 1)
PY
fi
exit $fail
