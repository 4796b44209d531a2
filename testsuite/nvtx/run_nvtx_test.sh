#!/usr/bin/env bash
# run_nvtx_test.sh APP TALLY_RUN CHECKER [filtered] - nvtx_app under tally-run
# (which sets NVTX_INJECTION64_PATH to libtally-preload.so), then the checks
# on its file.  filtered: with TALLY_NVTX_DOMAINS=-app; mpi: APP is
# nvtx_mpi_app, 2 ranks under mpirun.
set -u
app=$1 run=$2 checker=$3 mode=${4:-all}
[ "$mode" = filtered ] && export TALLY_NVTX_DOMAINS=-app
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "SKIP: /usr/bin/python3 with h5py missing"; exit 77; }
# Sanitizer builds: the preload comes before libasan in the load order.
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0:verify_asan_link_order=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
if [ "$mode" = mpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  timeout 90 mpirun --oversubscribe -np 2 "$run" --output-name=out.h5 -- "$app" > app.out
else
  timeout 60 "$run" --output-name=out.h5 -- "$app" > app.out
fi
rc=$?
cat app.out
[ $rc -eq 0 ] || { echo "nvtx_app under tally-run failed: $rc"; exit 1; }
exec /usr/bin/python3 "$checker" out.h5 app.out "$mode"
