#!/usr/bin/env bash
# run_h5lib.sh PRELOAD TALLY_RUN MPI_APP SERIAL_APP - the HDF5 writer library (test
# rt_h5lib, output/h5_lib.h): libtally-preload.so does not link HDF5; an
# MPI job (2 ranks) maps HDF5 only at its write, and only in the ranks
# that write it: rank 0 of a gathered job, every rank of a parallel write
# (TALLY_OUTPUT_GATHER=1); a program without MPI at start-up (h5lib_app.c
# checks its own /proc/self/maps); the files are written and read back
# (ranks, and the one rank of the serial run).
set -u
pre=$1 run=$2 app=$3 serial=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
needed=$(readelf -d "$pre" | awk '/NEEDED/ {print $5}')
echo "libtally-preload.so needs: $(echo $needed | tr -d '[]')"
if echo "$needed" | grep -qi hdf5; then echo "FAILED: the preload library links HDF5"; exit 1; fi
[ -f "$(dirname "$pre")/libtally-h5.so" ] || { echo "FAILED: no libtally-h5.so beside $pre"; exit 1; }
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
timeout 120 mpirun -np 2 "$run" --output-name=mpi.h5 -- "$app" || { echo "FAILED: MPI job"; exit 1; }
timeout 120 mpirun -np 2 -x H5LIB_ALL_WRITE=1 -x TALLY_OUTPUT_GATHER=1 "$run" --output-name=par.h5 -- "$app" ||
  { echo "FAILED: MPI job written in parallel"; exit 1; }
timeout 120 "$run" --output-name=serial.h5 -- "$serial" || { echo "FAILED: serial run"; exit 1; }
exec /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$H5LIB_PYTHONPATH')
from tally.reader import read
for name, n in (('mpi.h5', 2), ('par.h5', 2), ('serial.h5', 1)):
    rk = read(name).table('ranks')
    got = sorted(int(r) for r in rk['rank'])
    print(name, 'ranks', got)
    if got != list(range(n)):
        sys.exit('FAILED: %s has ranks %s, want %s' % (name, got, list(range(n))))
"
