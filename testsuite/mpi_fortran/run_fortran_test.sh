#!/usr/bin/env bash
# run_fortran_test.sh mpi|omp APP TALLY_RUN CHECKER - a Fortran program under
# tally-run (mpi: 2 ranks, mpirun tally-run -- app; omp: 3 OpenMP threads on
# LLVM libomp through --libomp=auto), then the checks on its file.
set -u
kind=$1 app=$2 run=$3 checker=$4
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
if [ "$kind" = mpi ]; then
  timeout 120 mpirun --oversubscribe -np 2 "$run" --output-name=out.h5 -- "$app"
else
  [ -e "$(dirname "$run")/libomp-as-libgomp/libgomp.so.1" ] || { echo "no LLVM libomp to run libgomp programs on"; exit 77; }
  OMP_NUM_THREADS=3 timeout 120 "$run" --output-name=out.h5 --libomp=auto -- "$app"
fi
rc=$?
echo "exit status: $rc"
[ $rc -eq 0 ] || { echo "program failed"; exit 1; }
exec /usr/bin/python3 "$checker" out.h5 "$kind" 3
