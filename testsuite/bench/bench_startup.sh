#!/usr/bin/env bash
# bench_startup.sh EMPTY PROXY TALLY_RUN [BENCH_REGION] - Tally's fixed cost (issue 37).
#  1. An empty MPI program (EMPTY) at TLY_BENCH_RANKS ranks ("1 2 8"),
#     TLY_BENCH_ROUNDS (7) rounds, each round running plain `mpirun -np N
#     EMPTY`, `mpirun -np N tally-run -- EMPTY`, the same with --disable
#     and, above 1 rank, the same with TALLY_OUTPUT_GATHER=0 (the file
#     written in parallel by every rank instead of gathered to rank 0) in
#     a rotating order; medians of the wall times, and what Tally adds to
#     the plain median; beside it the cost the file records
#     (ranks.overhead_ns and its parts, write_seconds: median over rounds
#     of the largest rank).
#  2. PROXY (an OpenMP+MPI program of LULESH's shape) at 2 ranks x
#     OMP_NUM_THREADS (1), plain and under tally-run (default settings) in
#     alternating order, TLY_BENCH_PROXY_ROUNDS (15) pairs: the median of
#     the per-pair ratios, and of Tally's own account in the file (largest
#     rank's overhead_ns + write_seconds over its elapsed_ns).  Arguments:
#     TLY_BENCH_PROXY_ARGS, default "1000 60000" (1,000 iterations of 60,000
#     elements: 3-4 s plain here, where LULESH at its default size ran
#     33 s at 1 rank x 2 threads; at 100 iterations MPI's own start-up
#     was half of the run).
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
    plain)    timeout 300 mpirun -np "$np" "$@" >out.txt 2>&1 ;;
    tally)    timeout 300 mpirun -np "$np" "$run" "${opts[@]}" --output-name=t.h5 -- "$@" >out.txt 2>&1 ;;
    parallel) timeout 300 mpirun -np "$np" -x TALLY_OUTPUT_GATHER=0 "$run" "${opts[@]}" --output-name=t.h5 -- "$@" >out.txt 2>&1 ;;
    disable)  timeout 300 mpirun -np "$np" "$run" "${opts[@]}" --disable -- "$@" >out.txt 2>&1 ;;
  esac
  rc=$?
  t1=$(now)
  [ $rc -eq 0 ] || { echo "bench_startup: $mode -np $np $* failed ($rc)" >&2; tail -5 out.txt >&2; exit 1; }
  echo $(( (t1 - t0) / 1000000 ))
}

# The file t.h5's account: COLS... of the largest rank in ms, then write_seconds in ms
# (TLY_BENCH_PYTHON: a Python with h5py and pandas, default /usr/bin/python3).
account() {
  "${TLY_BENCH_PYTHON:-/usr/bin/python3}" -c "
import sys; sys.path.insert(0, '$TLY_BENCH_PYTHONPATH')
from tally.reader import read
run = read('t.h5'); rk = run.ranks
print(*(round(rk[c].max() / 1e6, 1) if c in rk else '-' for c in sys.argv[1:]),
      round(float(run.meta['write_seconds']) * 1e3, 1))" "$@"
}

if [[ $parts == *" empty "* ]]; then
echo "== empty MPI program (load $(load))"
printf "%-6s %9s %9s %9s %9s %11s %11s %11s  %s\n" ranks "plain ms" "tally ms" "disable" "parallel" "tally adds" "disab. adds" "par. adds" \
  "file, tally (gathered): overhead / init / mpi_init / exit / write ms (largest rank)"
for np in ${TLY_BENCH_RANKS:-1 2 8}; do
  modes=(plain tally disable)
  [ "$np" -gt 1 ] && modes+=(parallel)
  : >parallel.txt; : >cost.txt
  for m in "${modes[@]}"; do : >"$m.txt"; done
  for r in $(seq "$rounds"); do
    n=${#modes[@]}
    for k in $(seq 0 $((n - 1))); do
      m=${modes[$(( (k + r) % n ))]}
      one "$m" "$np" "$empty" >>"$m.txt"
      [ "$m" = tally ] && account overhead_ns init_ns mpi_init_ns exit_ns >>cost.txt
    done
  done
  p=$(median <plain.txt) t=$(median <tally.txt) d=$(median <disable.txt) q=-
  [ -s parallel.txt ] && q=$(median <parallel.txt)
  c=$(for k in 1 2 3 4 5; do awk -v k=$k '{print $k}' cost.txt | median; done | tr '\n' ' ')
  qa=-; [ "$q" != - ] && qa="$((q - p)) ms"
  printf "%-6s %9s %9s %9s %9s %11s %11s %11s  %s\n" "$np" "$p" "$t" "$d" "$q" "$((t - p)) ms" "$((d - p)) ms" "$qa" "$c"
  echo "   tally adds per process at $np rank(s): $(( (t - p) / np )) ms (wall / ranks; load $(load))"
done

fi

if [[ $parts == *" proxy "* ]]; then
read -r -a proxy_args <<<"${TLY_BENCH_PROXY_ARGS:-1000 60000}"
echo "== OpenMP+MPI proxy of LULESH's shape (${proxy_args[*]}), 2 ranks x ${OMP_NUM_THREADS:=1} thread(s) (load $(load))"
export OMP_NUM_THREADS
: >ratio.txt; : >share.txt
for r in $(seq "${TLY_BENCH_PROXY_ROUNDS:-15}"); do
  [ $((r % 2)) = 1 ] && a=$(one plain 2 "$proxy" "${proxy_args[@]}")
  b=$(one tally 2 "$proxy" "${proxy_args[@]}")
  s=$(account overhead_ns elapsed_ns | awk '{ printf "%.4f", ($1 + $3) / $2 }')
  [ $((r % 2)) = 0 ] && a=$(one plain 2 "$proxy" "${proxy_args[@]}")
  echo "   round $r: plain $a ms, tally $b ms; Tally's own account $s of the run"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", b / a }' >>ratio.txt
  echo "$s" >>share.txt
done
echo "proxy: tally / plain, median of ${TLY_BENCH_PROXY_ROUNDS:-15} interleaved pairs: $(median <ratio.txt); Tally's own account (overhead + write over elapsed, largest rank): $(median <share.txt) (load $(load))"

fi

if [ -n "$region" ] && [[ $parts == *" region "* ]]; then
  echo "== user regions: counters vs time-only (load $(load))"
  export TALLY_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES TALLY_OUTPUT_DIR=$dir
  c=$("$run" -- "$region" | sed -n 's/.*: \([0-9.]*\) ns per pair.*/\1/p')
  o=$("$run" --region-counters=no -- "$region" | sed -n 's/.*: \([0-9.]*\) ns per pair.*/\1/p')
  echo "region pair with counters $c ns, time-only $o ns: counters / time-only = $(awk -v c="$c" -v o="$o" 'BEGIN { printf "%.1f", c / o }')"
fi
