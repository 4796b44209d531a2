#!/usr/bin/env bash
# run_reader_fuzz.sh SECONDS APP MPI_APP TALLY_RUN TALLY_REPORT - the reader
# on damaged files, with real runtime-written inputs: a serial
# file, a 2-rank job file and a directory of 2 per-rank partial files.
#  1. a directory whose partial file of rank 1 is damaged: reported in one
#     warning line, rank 0's file is reported (exit 0);
#  2. unknown schema versions are refused by number (exit 2, one line);
#  3. libhdf5 made to crash in the reader's probe: still one line;
#  4. fuzz_reader.py for SECONDS over the three files (0 tracebacks, hangs
#     and crashes).  CI runs 60 s; run it longer by hand (docs/report.md).
set -u
secs=$1 app=$2 mpiapp=$3 run=$4 report=$5
py=/usr/bin/python3
$py -c "import h5py, pandas" 2>/dev/null || { echo "python3-h5py or pandas missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
"$run" --output-name=serial.h5 -- "$app" 0 >/dev/null 2>err.txt || { cat err.txt; bad "serial run"; }
files=(serial.h5)
if command -v mpirun >/dev/null; then
  timeout 120 mpirun --oversubscribe -np 2 "$run" --output-name=job.h5 -- "$mpiapp" 0 >/dev/null 2>>err.txt \
    || { cat err.txt; bad "mpi run"; }
  mkdir part
  timeout 120 mpirun --oversubscribe -np 2 "$run" --output-dir=part --output-name=job.h5 -- "$mpiapp" 0 nofinalize \
    >/dev/null 2>>err.txt
  files+=(job.h5 part/job.rank00000.partial.h5)
  # 1. one damaged partial file: reported, the rest merged
  head -c 3000 part/job.rank00001.partial.h5 > cut && mv cut part/job.rank00001.partial.h5
  "$report" part >out.txt 2>rep_err.txt; rc=$?
  cat rep_err.txt
  [ $rc = 0 ] || bad "directory with one damaged partial file: exit $rc, want 0"
  [ "$(grep -c 'warning: .*job.rank00001.partial.h5' rep_err.txt)" = 1 ] || bad "the damaged file is not named once"
  grep -q "damaged file left out" out.txt || bad "the report does not list the damaged file"
fi
# 2. unknown schema versions: refused by number (h5py writes the damage on purpose:
#    allowed in testsuite/layout/check_h5py.py)
for v in 999 0 "'abc'" 1.5; do
  cp serial.h5 v.h5
  $py -c "import h5py,sys; f=h5py.File('v.h5','r+'); f.attrs['schema_version']=$v" || bad "cannot set version"
  "$report" v.h5 >/dev/null 2>e.txt; rc=$?
  cat e.txt
  [ $rc = 2 ] && [ "$(wc -l < e.txt)" = 1 ] || bad "schema_version $v: exit $rc, $(wc -l < e.txt) lines"
  grep -q "${v//\'/}" e.txt || bad "schema_version $v: the message does not name it"
done
# 3. libhdf5 crashing in the reader's probe (glibc's abort message): one line
PYTHONPATH=${TALLY_PYTHONPATH:-} $py "$here/probe_crash.py" serial.h5 || bad "crash in the probe"
# 4. the fuzzer
PYTHONPATH=${TALLY_PYTHONPATH:-} $py "$here/fuzz_reader.py" "$secs" "${files[@]}" || bad "fuzzer"
exit $fail
