#!/usr/bin/env bash
# bench_startup.sh EMPTY PROXY TALLY_RUN [BENCH_REGION] - Tally's fixed cost (issue 37).
#  1. An empty MPI program (EMPTY) at 1, 2 and 8 ranks, TLY_BENCH_ROUNDS (7)
#     rounds, each round running plain `mpirun -np N EMPTY`, `mpirun -np N
#     tally-run -- EMPTY` and the same with --disable in a rotating order;
#     medians of the wall times, and what Tally adds to the plain median;
#     beside it the cost the file records (ranks.overhead_ns and its parts,
#     write_seconds: median over rounds of the largest rank).
#  2. PROXY (an OpenMP+MPI program of LULESH's shape) at 2 ranks x
#     OMP_NUM_THREADS (1), plain and under tally-run (default settings) in
#     alternating order: the median of the per-pair ratios.
#  3. User regions: bench_runtime_region (BENCH_REGION, optional) with
#     counters and with --region-counters=no, the ratio of the pair costs.
# The load average is printed with each part: this is a shared machine.
# TLY_BENCH_TALLY_OPTS: more tally-run options (e.g. --libomp=off);
# TLY_BENCH_PARTS: which parts to run (default "empty proxy region").
set -u
read -r -a opts <<<"${TLY_BENCH_TALLY_OPTS:-}"
parts=" ${TLY_BENCH_PARTS:-empty proxy region} "
empty=$1 proxy=$2 run=$3 region=${4:-}
rounds=${TLY_BENCH_ROUNDS:-7}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
now() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

one() { # MODE NP CMD... -> wall ms
  local mode=$1 np=$2 t0 t1 rc; shift 2
  rm -f ./*.h5
  t0=$(now)
  case $mode in
    plain)   timeout 300 mpirun -np "$np" "$@" >out.txt 2>&1 ;;
    tally)   timeout 300 mpirun -np "$np" "$run" "${opts[@]}" --output-name=t.h5 -- "$@" >out.txt 2>&1 ;;
    disable) timeout 300 mpirun -np "$np" "$run" "${opts[@]}" --disable -- "$@" >out.txt 2>&1 ;;
  esac
  rc=$?
  t1=$(now)
  [ $rc -eq 0 ] || { echo "bench_startup: $mode -np $np $* failed ($rc)" >&2; tail -5 out.txt >&2; exit 1; }
  echo $(( (t1 - t0) / 1000000 ))
}

if [[ $parts == *" empty "* ]]; then
echo "== empty MPI program (load $(load))"
printf "%-6s %10s %10s %10s %12s %12s %s\n" ranks "plain ms" "tally ms" "disable ms" "tally adds" "disabled adds" "file: overhead / init / mpi_init / exit / write ms (largest rank)"
for np in 1 2 8; do
  : >plain.txt; : >tally.txt; : >disable.txt; : >cost.txt
  for r in $(seq "$rounds"); do
    case $((r % 3)) in
      0) order="plain tally disable" ;;
      1) order="tally disable plain" ;;
      2) order="disable plain tally" ;;
    esac
    for m in $order; do
      one "$m" "$np" "$empty" >>"$m.txt"
      [ "$m" = tally ] && /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$TLY_BENCH_PYTHONPATH')
from tally.reader import read
run = read('t.h5'); rk = run.ranks
cols = ('overhead_ns', 'init_ns', 'mpi_init_ns', 'exit_ns')   # schema 5; older files: '-'
print(*(round(rk[c].max() / 1e6, 1) if c in rk else '-' for c in cols),
      round(float(run.meta['write_seconds']) * 1e3, 1))" >>cost.txt
    done
  done
  p=$(median <plain.txt) t=$(median <tally.txt) d=$(median <disable.txt)
  c=$(for k in 1 2 3 4 5; do awk -v k=$k '{print $k}' cost.txt | median; done | tr '\n' ' ')
  printf "%-6s %10s %10s %10s %12s %12s %s\n" "$np" "$p" "$t" "$d" "$((t - p)) ms" "$((d - p)) ms" "$c"
  echo "   tally adds per process at $np rank(s): $(( (t - p) / np )) ms (wall / ranks; load $(load))"
done

fi

if [[ $parts == *" proxy "* ]]; then
echo "== OpenMP+MPI proxy of LULESH's shape, 2 ranks x ${OMP_NUM_THREADS:=1} thread(s) (load $(load))"
export OMP_NUM_THREADS
: >ratio.txt
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then a=$(one plain 2 "$proxy"); b=$(one tally 2 "$proxy")
  else b=$(one tally 2 "$proxy"); a=$(one plain 2 "$proxy"); fi
  echo "   round $r: plain $a ms, tally $b ms"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", b / a }' >>ratio.txt
done
echo "proxy: tally / plain, median of $rounds interleaved pairs: $(median <ratio.txt) (load $(load))"

fi

if [ -n "$region" ] && [[ $parts == *" region "* ]]; then
  echo "== user regions: counters vs time-only (load $(load))"
  export TALLY_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES TALLY_OUTPUT_DIR=$dir
  c=$("$run" -- "$region" | sed -n 's/.*: \([0-9.]*\) ns per pair.*/\1/p')
  o=$("$run" --region-counters=no -- "$region" | sed -n 's/.*: \([0-9.]*\) ns per pair.*/\1/p')
  echo "region pair with counters $c ns, time-only $o ns: counters / time-only = $(awk -v c="$c" -v o="$o" 'BEGIN { printf "%.1f", c / o }')"
fi
