#!/bin/sh
# run_torch_wrap.sh TALLY_RUN [PYTHON] - a job's file belongs to the job's
# program (issue 50): tally-run --output-name=wrap.h5 -- torchrun
# --no-python --nproc_per_node=N ./wrap.sh, where wrap.sh runs dirname,
# basename and sed (as cluster wrappers do) before 'exec python
# torch_wrap_work.py'; check_torch_wrap.py: exactly one job file, wrap.h5,
# of the Python program with N ranks, each rank's pid the one its program
# printed and each with its kernels (the same per rank), no second job
# named.  N=1 on one GPU, then N=2 when there are 2 GPUs (77 after N=1
# passed on one GPU).  77 without a GPU, a PyTorch that sees it, or h5py.
torch_needs=h5py
. "$(dirname "$0")/torch_setup.sh"
[ -n "${KEEP:-}" ] && { mkdir -p "$KEEP"; dir=$KEEP; trap - EXIT; }
cd "$dir" || exit 1
ngpu=$("$py" -c "import torch; print(torch.cuda.device_count())")
tr=$("$py" -c "import shutil; print(shutil.which('torchrun') or '')")
[ -n "$tr" ] || tr="$py -m torch.distributed.run"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export WRAP_PY="$py" WRAP_WORK="$here/torch_wrap_work.py"
rc=0
for n in 1 2; do
  [ "$n" -le "$ngpu" ] || { echo "N=$n not run: $ngpu GPU(s)"; continue; }
  mkdir -p "n$n" && cd "n$n" || exit 1
  cat > wrap.sh <<'SH'
#!/bin/sh
cd "$(dirname "$0")" || exit 3
name=$(basename "$0" | sed 's/\.sh$//')
[ "$name" = wrap ] || { echo "wrap.sh: unexpected name $name" >&2; exit 3; }
exec "$WRAP_PY" "$WRAP_WORK"
SH
  chmod +x wrap.sh
  timeout 240 "$run" --output-name=wrap.h5 --events=cuda:::smsp__inst_executed.sum --verbose=2 -- \
    $tr --no-python --nproc_per_node=$n ./wrap.sh > wrap.log 2>&1 || { cat wrap.log; echo "FAIL: N=$n run"; rc=1; }
  rm -f wrap.sh
  "$py" "$here/check_torch_wrap.py" . wrap.log $n || rc=1
  cd .. || exit 1
done
[ $rc = 0 ] && [ "$ngpu" -lt 2 ] && { echo "SKIP: N=2 needs 2 GPUs ($ngpu here); N=1 passed"; exit 77; }
exit $rc
