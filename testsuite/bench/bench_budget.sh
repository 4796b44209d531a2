#!/usr/bin/env bash
# bench_budget.sh PROXY TALLY_RUN PYTHONPATH - the cost budget on LULESH's
# shape (issue 48): PROXY (bench_lulesh_proxy: 12 `omp parallel for` per
# iteration, a halo exchange and an MPI_Allreduce) at TLY_BENCH_RANKS (8)
# ranks x 1 thread, oversubscribed (8 ranks on this 2-core machine: 4 a
# core), TLY_BENCH_PROXY_ARGS ("8400 4000": 100,800 parallel regions of
# ~10-100 us a rank), plain and under tally-run with default settings in
# alternating order, TLY_BENCH_ROUNDS (7) pairs.  Prints each pair, the
# median ratio of wall times, the file's own Tally/plain (process CPU over
# CPU less tally_cpu_ns, summed over ranks) and its median, and checks
# that every rank's "omp parallel" visits are exactly 12 x iterations.
# TLY_BENCH_TALLY_OPTS: more tally-run options (e.g. --budget=off).
set -u
proxy=$1 run=$2 pypath=$3
np=${TLY_BENCH_RANKS:-8} rounds=${TLY_BENCH_ROUNDS:-7}
read -r -a args <<<"${TLY_BENCH_PROXY_ARGS:-8400 4000}"
read -r -a opts <<<"${TLY_BENCH_TALLY_OPTS:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
now() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
one() { # MODE -> wall ms (a failed run is run once more: mpirun at 4 ranks a core on a loaded machine)
  local ms
  ms=$(one_run "$1") || ms=$(one_run "$1") || return 1
  echo "$ms"
}
one_run() {
  local t0 t1 rc
  rm -f ./*.h5
  t0=$(now)
  if [ "$1" = plain ]; then
    timeout 600 mpirun -np "$np" "$proxy" "${args[@]}" >out.txt 2>&1
  else
    timeout 600 mpirun -np "$np" "$run" "${opts[@]}" --output-name=t.h5 -- "$proxy" "${args[@]}" >out.txt 2>&1
  fi
  rc=$?
  t1=$(now)
  [ $rc -eq 0 ] || { echo "bench_budget: $1 failed ($rc)" >&2; tail -5 out.txt >&2; exit 1; }
  echo $(( (t1 - t0) / 1000000 ))
}
account() { # the file's Tally/plain, and the checks
  /usr/bin/python3 - "$pypath" t.h5 "$((12 * args[0]))" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tally.reader import read
run = read(sys.argv[2]); rk = run.ranks
reg, st = run.table("regions"), run.table("region_stats")
par = set(reg[reg["kind"] == 3]["id"])
v = st[st["region"].isin(par)].groupby("rank")["visits"].sum()
want = int(sys.argv[3])
bad = [int(r) for r, n in v.items() if int(n) != want]
cpu, tal = float(rk["cpu_ns"].sum()), float(rk["tally_cpu_ns"].sum())
deg = run.table("degraded")
print(f"{cpu / (cpu - tal):.4f} visits={'exact' if not bad and len(v) == len(rk) else 'WRONG ranks %s' % bad} "
      f"degraded={len(deg)} waits_skipped={int(rk['waits_skipped'].sum())} tally_cpu={tal / 1e9:.3f}s cpu={cpu / 1e9:.3f}s")
PY
}
echo "== LULESH-shaped proxy (${args[*]}), $np ranks x 1 thread on $(nproc) cores, tally-run ${opts[*]} (load $(load))"
: >ratio.txt; : >file.txt
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then a=$(one plain) || exit 1; b=$(one tally) || exit 1; acc=$(account)
  else b=$(one tally) || exit 1; acc=$(account); a=$(one plain) || exit 1; fi
  echo "$b $a" | awk '{ printf "%.4f\n", $1 / $2 }' >>ratio.txt
  echo "${acc%% *}" >>file.txt
  echo "pair $r: plain $a ms, tally $b ms, ratio $(tail -1 ratio.txt); file: Tally/plain $acc (load $(load))"
done
echo "proxy: tally / plain wall, median of $rounds interleaved pairs: $(median <ratio.txt); the file's Tally/plain, median: $(median <file.txt) (load $(load))"
grep -q WRONG <<<"$acc" && { echo "counts not exact"; exit 1; }
exit 0
