#!/bin/sh
# run_torch_train.sh TALLY_RUN [PYTHON] - PyTorch as an acceptance test of
# the runtime: torch_train.py with torch.cuda.nvtx ranges and
# with torch.autograd.profiler.emit_nvtx(), each without Tally and under
# tally-run with one GPU metric; check_torch.py compares losses, region
# visits and the per-kernel table; with ranges, a run with values per
# region (TALLY_CUDA_GRANULARITY=region) against the per-kernel one
# (check_torch_region.py).  77 without a GPU or a PyTorch that
# sees it, or without h5py.
torch_needs=h5py
. "$(dirname "$0")/torch_setup.sh"
cd "$dir" || exit 1
rc=0
for mode in ranges emit; do
  "$py" "$here/torch_train.py" --nvtx $mode > plain_$mode.log 2>&1 || { cat plain_$mode.log; exit 1; }
  "$run" --output-name=$mode.h5 --events=cuda:::smsp__inst_executed.sum -- \
    "$py" "$here/torch_train.py" --nvtx $mode > tally_$mode.log 2>&1 || { cat tally_$mode.log; rc=1; continue; }
  "$py" "$here/check_torch.py" plain_$mode.log tally_$mode.log $mode.h5 20 $mode | grep -v "^LONGEST" || rc=1
  grep -h "^LOOP_S" plain_$mode.log tally_$mode.log
  [ $mode = ranges ] || continue
  # values per region (TALLY_CUDA_GRANULARITY=region) against the per-kernel run
  TALLY_CUDA_GRANULARITY=region "$run" --output-name=region.h5 --events=cuda:::smsp__inst_executed.sum -- \
    "$py" "$here/torch_train.py" --nvtx ranges > region.log 2>&1 || { cat region.log; rc=1; continue; }
  TALLY_CUDA_GRANULARITY=region TALLY_CUDA_REGION_DEPTH=1 "$run" --output-name=step.h5 \
    --events=cuda:::smsp__inst_executed.sum -- "$py" "$here/torch_train.py" --nvtx ranges > step.log 2>&1 ||
    { cat step.log; rc=1; continue; }
  "$py" "$here/check_torch_region.py" plain_ranges.log region.log ranges.h5 region.h5 step.h5 || rc=1
  grep -h "^LOOP_S" region.log | sed 's/^/region /'
  grep -h "^LOOP_S" step.log | sed 's/^/region-depth-1 /'
done
exit $rc
