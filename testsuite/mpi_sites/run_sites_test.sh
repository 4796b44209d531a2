#!/usr/bin/env bash
# run_sites_test.sh DEPTH APP TALLY_RUN CHECKER SOURCE|nog - sites_app on 2 ranks
# with TALLY_MPI_CALLSITES=DEPTH, then the checks.
set -u
depth=$1 app=$2 run=$3 checker=$4 src=$5
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
timeout 120 mpirun --oversubscribe -np 2 "$run" --mpi-callsites="$depth" --output-name=out.h5 -- "$app" 2>err.txt
rc=$?
cat err.txt
[ $rc -eq 0 ] || { echo "job failed ($rc)"; exit 1; }
# SOURCE "nog": the program without -g (check_sites_nog.py FILE APP)
[ "$src" = nog ] && exec /usr/bin/python3 "$checker" out.h5 "$app"
exec /usr/bin/python3 "$checker" out.h5 "$depth" "$src" . "$app" "${TALLY_REPORT:-}"
