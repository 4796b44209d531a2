#!/usr/bin/env bash
# The main job: build Tally, then run an MPI+OpenMP program (4 ranks x 2
# threads) under tally-run and summarise the HDF5 file it writes.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
testsuite/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target tally tally-preload tally-run rt_app >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
out=$top/build/demo
mkdir -p "$out"
rm -f "$out/demo.h5"   # Tally never replaces a file it did not ask to (it would write demo.1.h5)
echo "== mpirun --oversubscribe -np 4 tally-run --output-dir $out -- rt_app"
mpirun --oversubscribe -np 4 build/wrappers/tally-run --output-dir "$out" \
	--output-name demo.h5 -- build/testsuite/mpi/rt_app
echo "== file: $out/demo.h5"
build/wrappers/tally-run --summary "$out/demo.h5"
echo "== tally-report $out/demo.h5 (plots in $out/plots)"
cmake --build build -j "$(nproc)" --target tally-python >/dev/null
build/analysis/bin/tally-report "$out/demo.h5" --top 12 --plot "$out/plots"
