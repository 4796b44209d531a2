#!/usr/bin/env bash
# run_crafted_files.sh APP TALLY_RUN TALLY_REPORT - a real runtime-written
# file (APP under tally-run, with regions) made hostile in 14 ways by
# crafted_files.py; each answered by tally-report in one line, exit 2,
# within 10 s and 200 MB, reading nothing outside the file.
set -u
app=$1 run=$2 report=$3
py=/usr/bin/python3
$py -c "import h5py, pandas" 2>/dev/null || { echo "python3-h5py or pandas missing"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
"$run" --output-name=base.h5 -- "$app" 0 hl >/dev/null 2>err.txt || { cat err.txt; echo "FAILED: the run"; exit 1; }
PYTHONPATH=${TALLY_PYTHONPATH:-} $py "$here/crafted_files.py" base.h5 "$report"
