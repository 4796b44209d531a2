#!/usr/bin/env bash
# bench_sampling.sh TALLY_RUN PYTHONPATH APP [ARGS...] - call-path sampling
# on an MPI+OpenMP program (issue 51): APP at TLY_BENCH_RANKS (2) ranks x
# OMP_NUM_THREADS (2) threads.
#  1. Cost: tally-run with default settings against tally-run
#     --sampling=TLY_BENCH_RATE (1000) --sampling-source=TLY_BENCH_SOURCE
#     (auto), in alternating order,
#     TLY_BENCH_ROUNDS (7) pairs: each pair, the median ratio of wall
#     times (what sampling adds to a measured run), the plain run's wall
#     time beside them, and the file's account of sampling
#     (ranks.sampling_ns over the ranks' CPU time).
#  2. Agreement (when perf, Debian's linux-perf, is installed): one run
#     sampled by Tally and one by `perf record -e cpu-clock -F RATE
#     --call-graph dwarf,16384` of the plain program, the same length, rate
#     and stack copy (Tally's default 16k; TLY_BENCH_STACK bytes for both,
#     at most perf's 65528: a Fortran code's deep frames need more than
#     16k to reach main); `cpu-clock:u` where perf may
#     not see the kernel, as Tally's source then excludes it too;
#     compare_perf.py prints the top functions by self samples and the
#     inclusive shares on the main paths of both, and fails past 2 / 3
#     points.  TLY_BENCH_AGREE_RUNS (3) runs of each, alternating which
#     goes first, compared by the means of their shares (one run of
#     LULESH differs from the next by up to 2.5 points in libgomp's
#     barrier spinning, whichever sampler counts it).
#     TLY_BENCH_AGREE_SAME=1: perf records Tally's own sampled runs
#     instead (both samplers on one run, no run-to-run spread between
#     them): self and inclusive shares of the same run (perf's unwinding
#     stopped at Tally's OpenMP trampoline in such a run until Tally read
#     the ELF files it unwinds instead of mapping them: docs/sampling.md).
# mpirun runs with TLY_BENCH_MPIRUN_ARGS (default `--bind-to none`: Open
# MPI binds a rank of 1 or 2 to one core, and its OpenMP threads would then
# share it; a hybrid job is run with a binding that gives each thread a core).
# Exit 1 when a run fails or the shares disagree.
set -u
run=$1 pypath=$2 app=$3
shift 3
py=${TLY_BENCH_PYTHON:-/usr/bin/python3}   # one with h5py and pandas (Debian's)
read -r -a mpiargs <<<"${TLY_BENCH_MPIRUN_ARGS---bind-to none}"
np=${TLY_BENCH_RANKS:-2} rounds=${TLY_BENCH_ROUNDS:-7} rate=${TLY_BENCH_RATE:-1000} src=${TLY_BENCH_SOURCE:-auto}
stack=${TLY_BENCH_STACK:-16384}   # bytes of stack each sample copies, both samplers (perf's most: 65528)
agree=${TLY_BENCH_AGREE_RUNS:-3} same=${TLY_BENCH_AGREE_SAME:-0}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
now() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
one() { # MODE -> wall ms
  local t0 t1 rc
  rm -f ./*.h5
  t0=$(now)
  case $1 in
  plain) timeout 1200 mpirun "${mpiargs[@]}" -np "$np" "$app" "${args[@]}" >out.txt 2>&1 ;;
  tally) timeout 1200 mpirun "${mpiargs[@]}" -np "$np" "$run" --output-name=t.h5 -- "$app" "${args[@]}" >out.txt 2>&1 ;;
  sampled) timeout 1200 mpirun "${mpiargs[@]}" -np "$np" "$run" --sampling="$rate" --sampling-source="$src" --sampling-stack="$stack" \
             --output-name=t.h5 -- "$app" "${args[@]}" \
             >out.txt 2>&1 ;;
  esac
  rc=$?
  t1=$(now)
  [ $rc -eq 0 ] || { echo "bench_sampling: $1 run failed ($rc)" >&2; tail -5 out.txt >&2; exit 1; }
  echo $(( (t1 - t0) / 1000000 ))
}
args=("$@")
account() { # the file's sampling cost over the ranks' CPU, and its status
  "$py" - "$pypath" t.h5 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tally.reader import read
run = read(sys.argv[2]); rk = run.ranks
st = run.table("sampling_status")
cpu, samp = float(rk["cpu_ns"].sum()), float(rk["sampling_ns"].sum())
lost = int((st["taken"] - st["kept"]).sum())
print(f"sampling_ns {samp / 1e9:.3f}s = {100.0 * samp / cpu:.2f}% of {cpu / 1e9:.2f}s CPU, "
      f"{int(st['kept'].sum())} samples kept, {lost} lost (counted), threads {len(st)}")
PY
}
echo "== sampling cost: mpirun ${mpiargs[*]} -np $np $app ${args[*]}, $np ranks x $OMP_NUM_THREADS threads on $(getconf _NPROCESSORS_ONLN) cores, $rate Hz, source $src (load $(load))"
plain_ms=$(one plain) || exit 1
: >ratio.txt
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then a=$(one tally) || exit 1; b=$(one sampled) || exit 1; acc=$(account)
  else b=$(one sampled) || exit 1; acc=$(account); a=$(one tally) || exit 1; fi
  echo "$b $a" | awk '{ printf "%.4f\n", $1 / $2 }' >>ratio.txt
  echo "pair $r: tally $a ms, tally --sampling=$rate $b ms, ratio $(tail -1 ratio.txt); file: $acc (load $(load))"
done
echo "sampling / no sampling wall, median of $rounds interleaved pairs: $(median <ratio.txt) (plain run: $plain_ms ms)"

command -v perf >/dev/null || { echo "perf (linux-perf) missing: no agreement check"; exit 0; }
ev=cpu-clock   # Tally's perf source counts the kernel's part where perf_event_open lets it
[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -le 1 ] || ev=cpu-clock:u
how="separate runs of the same length, $agree of each"
[ "$same" = 1 ] && how="perf recording Tally's sampled runs, $agree of them"
echo "== agreement with perf record --call-graph dwarf,$stack ($ev, $rate Hz, $how)"
tally_one() { one sampled >/dev/null && mv t.h5 "keep/t$1.h5"; }   # N: the N-th run's file
perf_one() { # N [tally]: perf over the plain program, or over Tally's sampled run
  local under=()
  [ $# -gt 1 ] && under=("$run" --sampling="$rate" --sampling-source="$src" --sampling-stack="$stack" --output-name=t.h5 --)
  rm -f ./*.h5
  timeout 1200 perf record -q -e "$ev" -F "$rate" --call-graph "dwarf,$stack" -o perf.data -- \
    mpirun "${mpiargs[@]}" -np "$np" "${under[@]}" "$app" "${args[@]}" >perf-out.txt 2>&1 || { echo "perf record failed"; tail -5 perf-out.txt; return 1; }
  perf script -i perf.data -F comm,tid,ip,sym,dso --no-inline >"keep/perf$1.txt" 2>/dev/null
  [ $# -gt 1 ] && mv t.h5 "keep/t$1.h5"
  return 0
}
mkdir -p keep; tfiles=() pfiles=()
for r in $(seq 1 "$agree"); do   # alternating which sampler runs first
  if [ "$same" = 1 ]; then perf_one "$r" tally
  elif [ $((r % 2)) = 1 ]; then tally_one "$r" && perf_one "$r"; else perf_one "$r" && tally_one "$r"; fi || exit 1
  tfiles+=("keep/t$r.h5"); pfiles+=("keep/perf$r.txt")
done
"$py" "$here/compare_perf.py" "$(IFS=,; echo "${tfiles[*]}")" "$(IFS=,; echo "${pfiles[*]}")" \
  "$(basename "$app" | cut -c1-15)" "$pypath"
