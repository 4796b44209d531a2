#!/usr/bin/env bash
# run_pmpi.sh WHAT ... - Tally's own MPI calls and MPI_PROC_NULL peers.
#   symbols PRELOAD: the preload leaves no MPI_ symbol undefined (its own
#     calls go through PMPI_; what it defines it wraps)
#   stacked STACK PRELOAD CHECKER APP...: a second PMPI layer (stack_count.c)
#     preloaded in front of Tally counts, per rank, exactly the calls it
#     counts in front of no Tally; for pmpi_app (the first APP) the file's
#     bytes for MPI_PROC_NULL peers are checked too (check_proc_null.py)
#   name APP TALLY_RUN: an MPI job's default file name is
#     tally-<program>-<date>-<time>-<rank 0's pid>.h5 (docs/runtime.md)
set -u
what=$1; shift
if [ "$what" = symbols ]; then
  pre=$1
  bad=$(nm -D --undefined-only "$pre" | awk '$2 ~ /^MPI_/ {print $2}')
  n=$(nm -D --undefined-only "$pre" | awk '$2 ~ /^PMPI_/' | wc -l)
  echo "undefined PMPI_ symbols: $n"
  [ "$n" -gt 0 ] || { echo "the preload calls no PMPI_ function: not an MPI build?"; exit 1; }
  [ -z "$bad" ] || { echo "MPI calls of Tally's own through public names: $bad"; exit 1; }
  echo "no undefined MPI_ symbol"
  exit 0
fi
if [ "$what" = name ]; then   # name APP TALLY_RUN: the default file name of an MPI job
  app=$1 run=$2
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
  dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
  cd "$dir"
  before=$(date +%Y%m%d-%H%M%S)
  timeout 120 mpirun -np 2 "$run" -- "$app" || { echo "job failed"; exit 1; }
  after=$(date +%Y%m%d-%H%M%S)
  ls -l
  f=$(ls tally-*.h5 2>/dev/null)
  [ "$(echo "$f" | wc -w)" = 1 ] || { echo "FAILED: want one tally-*.h5, got '$f'"; exit 1; }
  re="^tally-$(basename "$app")-([0-9]{8}-[0-9]{6})-([0-9]+)\.h5$"
  [[ $f =~ $re ]] || { echo "FAILED: $f is not tally-<program>-<date>-<time>-<pid>.h5"; exit 1; }
  stamp=${BASH_REMATCH[1]} pid=${BASH_REMATCH[2]}
  [[ ! $stamp < $before && ! $stamp > $after ]] || { echo "FAILED: date-time $stamp outside the run [$before, $after]"; exit 1; }
  exec /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$PMPI_PYTHONPATH')
from tally.reader import read
rk = read('$f').table('ranks')
pid0 = int(rk[rk['rank'] == 0]['pid'].iloc[0])
print('rank 0 pid', pid0, 'name pid', $pid)
sys.exit(0 if pid0 == $pid else 1)"
fi
stack=$1 pre=$2 checker=$3; shift 3
command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c "import pandas, h5py" 2>/dev/null || { echo "python3-pandas/h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
asan=$(ldd "$pre" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "}')
np=4 fail=0 first=1
for app in "$@"; do
  base=$(basename "$app")
  for run in plain tally; do
    if [ $run = plain ]; then lp="$asan$stack"; else lp="$asan$stack $pre"; fi
    timeout 120 mpirun -np $np -x LD_PRELOAD="$lp" -x TLY_STACK_DIR="$dir" -x TLY_STACK_TAG="$base.$run" \
      -x TALLY_OUTPUT_NAME="$base.h5" -x TALLY_LIBOMP=off "$app" || { echo "$base ($run) failed"; exit 1; }
  done
  for r in $(seq 0 $((np - 1))); do
    echo "== $base rank $r: calls seen in front of Tally (left: without Tally)"
    paste "$base.plain.$r.txt" "$base.tally.$r.txt"
    cmp -s "$base.plain.$r.txt" "$base.tally.$r.txt" || { echo "FAILED: $base rank $r: the layer in front saw other calls under Tally"; fail=1; }
    # the C program's calls reach the layer (Open MPI's Fortran bindings call
    # PMPI_ inside the library: the Fortran program's table may be empty)
    [ $first = 0 ] || [ -s "$base.plain.$r.txt" ] || { echo "FAILED: $base rank $r: no calls counted"; fail=1; }
  done
  if [ $first = 1 ]; then
    /usr/bin/python3 "$checker" "$base.h5" $np || fail=1
    first=0
  fi
done
exit $fail
