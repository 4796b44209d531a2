# gpu_present.sh - sourced first by the GPU test scripts: exit 77 (ctest's
# skip) with the reason when this machine has no NVIDIA GPU or driver,
# the one thing whose absence skips them (testsuite/gpu/gpu_present.h is
# the C programs' counterpart).
[ -e /dev/nvidiactl ] || { echo "SKIP: no NVIDIA GPU or driver on this machine (/dev/nvidiactl missing)"; exit 77; }
