#!/bin/sh
# run_nccl_scope.sh APP TALLY_RUN CHECKER PYTHON - NCCL calls in the
# process's region (issue 50; wrappers/nvtx/nvtx_borrow.c): nccl_scope_app
# (NCCL's host side stubbed by libnccl_stub.so: NVTX ranges of domain
# "NCCL", no GPU) under tally-run with the default TALLY_CUDA_SCOPE=process
# and, as the fault the check must see, with TALLY_CUDA_SCOPE=thread
# (the worker's calls at its root); check_nccl_scope.py reads both files.
# 77 when PYTHON lacks h5py or pandas.
set -u
app=$1 run=$2 checker=$3 py=$4
"$py" -c "import h5py, pandas" 2>/dev/null || { echo "FAILED: $py without h5py or pandas (testsuite/install-deps.sh installs them)"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0:verify_asan_link_order=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
timeout 60 "$run" --output-name=process.h5 -- "$app" > process.out 2>&1 || { cat process.out; echo "FAIL: the run"; exit 1; }
TALLY_CUDA_SCOPE=thread timeout 60 "$run" --output-name=thread.h5 -- "$app" > thread.out 2>&1 ||
  { cat thread.out; echo "FAIL: the run with TALLY_CUDA_SCOPE=thread"; exit 1; }
cat process.out
exec "$py" "$checker" process.h5 thread.h5
