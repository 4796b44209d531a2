#!/usr/bin/env bash
# run_scale.sh APP TALLY_RUN CHECKER NP - NP oversubscribed ranks of
# scale_app under tally-run; the job file must hold every rank's rows as
# each rank measured them (check_scale_file.py).
set -u
app=$1 run=$2 chk=$3 np=$4
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# 64 oversubscribed ranks take ~30 s to write (docs/scale.md): past the default end-of-job limit
export TALLY_EXIT_TIMEOUT=${TALLY_EXIT_TIMEOUT:-300}
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
t0=$(date +%s.%N)
timeout 300 mpirun --oversubscribe -np "$np" "$run" --output-name=job.h5 -- "$app" || { echo "job of $np ranks failed"; exit 1; }
t1=$(date +%s.%N)
echo "job of $np ranks: $(echo "$t1 - $t0" | bc) s"
/usr/bin/python3 "$chk" job.h5 "$np" "$dir"
