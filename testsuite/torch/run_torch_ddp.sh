#!/bin/sh
# run_torch_ddp.sh TALLY_RUN [PYTHON] - the unmodified DDP script
# torch_ddp.py under torchrun --nproc_per_node=2 (one process per GPU,
# NCCL): without Tally, under tally-run with one GPU metric, and
# --nproc_per_node=1 under tally-run (the single-process reference);
# check_torch_ddp.py: losses identical to the plain run, both ranks with
# per-kernel values on their own GPU (UUIDs), compute kernels' instruction
# counts equal to the reference's, NCCL all-reduces seen as the hook
# counted them.  KEEP=dir keeps the files.  77 without 2 GPUs, a PyTorch
# that sees them, or h5py.  NPROC=<processes> (default 2).
torch_needs=h5py
. "$(dirname "$0")/torch_setup.sh"
[ -n "${KEEP:-}" ] && { mkdir -p "$KEEP"; dir=$KEEP; trap - EXIT; }
cd "$dir" || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
"$py" -c "import torch, sys; sys.exit(0 if torch.cuda.device_count() >= int(sys.argv[1]) else 1)" "${NPROC:-2}" ||
  { echo "SKIP: fewer than ${NPROC:-2} GPUs"; exit 77; }
tr=$("$py" -c "import shutil; print(shutil.which('torchrun') or '')")
[ -n "$tr" ] || tr="$py -m torch.distributed.run"
E=cuda:::smsp__inst_executed.sum
rc=0
$tr --nproc_per_node=${NPROC:-2} "$here/torch_ddp.py" > plain.log 2>&1 || { cat plain.log; exit 1; }
"$run" --events=$E --output-name=ddp.h5 --verbose=2 -- $tr --nproc_per_node=${NPROC:-2} "$here/torch_ddp.py" \
  > ddp.log 2>&1 || { cat ddp.log; rc=1; }
"$run" --events=$E --output-name=ref.h5 --verbose=2 -- $tr --nproc_per_node=1 "$here/torch_ddp.py" \
  > ref.log 2>&1 || { cat ref.log; rc=1; }
grep -i "gpu\|cupti" ddp.log | head -20
"$py" "$here/check_torch_ddp.py" plain.log ddp.log ddp.h5 ref.h5 ${NPROC:-2} || rc=1
exit $rc
