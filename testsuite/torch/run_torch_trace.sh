#!/bin/sh
# run_torch_trace.sh TALLY_RUN OTF2PRINT CHECKER [PYTHON] - the trace's GPU
# streams on the device (issue 39): torch_train.py with its NVTX ranges
# under tally-run --trace and one GPU metric; check_trace_gpu.py checks
# that every kernel, copy and memset lies on its stream's track with the
# correlation id of a launch mark on the launching CPU thread, starts at
# or after that launch, the launch inside the NVTX range open there (the
# thread's own, or thread 0's for the autograd thread), every kernel after
# the first 'step' launched inside a 'step' range, and that the kernels
# equal the profile's gpu_kernels launches, in total and per region.
# 77 without a GPU, a PyTorch that sees it, h5py or otf2-print.
torch_needs=h5py
otf2print=$2 checker=$3
set -- "$1" $4
. "$(dirname "$0")/torch_setup.sh"
[ -x "$otf2print" ] || { echo "SKIP: no otf2-print (Debian otf2-tools)"; exit 77; }
cd "$dir" || exit 1
"$run" --trace --verbose=2 --output-name=tr.h5 --events=cuda:::smsp__inst_executed.sum -- \
  "$py" "$here/torch_train.py" --nvtx ranges > tr.log 2>&1 || { cat tr.log; exit 1; }
grep "trace" tr.log
grep -q "GPU streams from CUPTI's Activity API" tr.log ||
  { echo "FAIL: the GPU streams were not traced"; cat tr.log; exit 1; }
# CUPTI's dropped records: none expected in this short run (said in the log when any)
"$py" "$checker" "$otf2print" tr.trace/traces.otf2 --slack-ns 2000 --h5 tr.h5 --step step --log tr.log --cupti-dropped 0
