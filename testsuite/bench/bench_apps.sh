#!/usr/bin/env bash
# bench_apps.sh TALLY_RUN APPS_DIR - wall-time overhead of tally-run on the
# real applications of the apps tests (docs/apps.md): per application,
# TLY_BENCH_PAIRS (5) paired runs, plain and `mpirun tally-run -- app` with
# the default settings, alternating which goes first; prints the median
# plain and measured times and the median of the per-pair ratios.
# TLY_BENCH_TALLY_OPTS adds tally-run options (e.g. --libomp=auto);
# TLY_BENCH_APPS names the applications (default: hpcc lammps cp2k).
# Applications that are not installed are left out (exit 77 if none is).
# CP2K also times itself (its timer report's "CP2K" total, from inside
# main: without process start-up and Tally's file write): the median of
# the per-pair ratios of that time is printed too.
set -u
run=$1 apps=$2
pairs=${TLY_BENCH_PAIRS:-5}
read -r -a opts <<<"${TLY_BENCH_TALLY_OPTS:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
now() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

one() { # plain|tally -> seconds on stdout; the job's output in $dir/out.txt
  local t0 t1 rc
  rm -f "$dir"/w/*.h5
  t0=$(now)
  if [ "$1" = plain ]; then
    (cd "$dir/w" && timeout 600 mpirun --oversubscribe -np "$np" "${cmd[@]}" >"$dir/out.txt" 2>&1)
  else
    (cd "$dir/w" && timeout 600 mpirun --oversubscribe -np "$np" "$run" "${opts[@]}" -- "${cmd[@]}" >"$dir/out.txt" 2>&1)
  fi
  rc=$?
  t1=$(now)
  [ $rc -eq 0 ] || { echo "bench_apps: $1 run of ${cmd[0]} failed ($rc)" >&2; tail -5 "$dir/out.txt" >&2; return 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}
own() { # CP2K's own total time of the last run ($dir/out.txt), seconds
  awk '$1 == "CP2K" && NF == 7 && $7 ~ /^[0-9.]+$/ { t = $7 } END { print t + 0 }' "$dir/out.txt"
}

done_any=0
printf "%-8s %-12s %10s %10s %8s   (median of %d pairs; tally-run %s)\n" application "ranks x thr" plain_s tally_s ratio "$pairs" "${opts[*]:-default settings}"
for app in ${TLY_BENCH_APPS:-hpcc lammps cp2k}; do
  rm -rf "$dir/w"; mkdir "$dir/w"
  case $app in
    hpcc)   np=4; export OMP_NUM_THREADS=1; cmd=(hpcc); cp "$apps/hpccinf.txt" "$dir/w/" ;;
    lammps) np=2; export OMP_NUM_THREADS=2; cmd=(lmp -in in.melt -log none); cp "$apps/in.melt" "$dir/w/" ;;
    cp2k)   np=2; export OMP_NUM_THREADS=2; cmd=(cp2k.psmp -i h2o.inp)
            sed 's/RUN_TYPE MD/RUN_TYPE ENERGY/' /usr/share/doc/cp2k/examples/H2O.inp >"$dir/w/h2o.inp" 2>/dev/null ;;
  esac
  command -v "${cmd[0]}" >/dev/null || { echo "$app: not installed, left out"; continue; }
  : >"$dir/plain" ; : >"$dir/tally" ; : >"$dir/ratio" ; : >"$dir/own"
  for i in $(seq "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then
      p=$(one plain) && po=$(own) && t=$(one tally) && to=$(own) || exit 1
    else
      t=$(one tally) && to=$(own) && p=$(one plain) && po=$(own) || exit 1
    fi
    echo "$p" >>"$dir/plain"; echo "$t" >>"$dir/tally"
    awk -v p="$p" -v t="$t" 'BEGIN { printf "%.4f\n", t / p }' >>"$dir/ratio"
    extra=""
    if [ "$app" = cp2k ]; then
      awk -v p="$po" -v t="$to" 'BEGIN { if (p > 0) printf "%.4f\n", t / p }' >>"$dir/own"
      extra=" (CP2K's own time: plain $po s, tally-run $to s)"
    fi
    echo "  $app pair $i: plain $p s, tally-run $t s$extra" >&2
  done
  printf "%-8s %-12s %10s %10s %8s\n" "$app" "$np x $OMP_NUM_THREADS" "$(median <"$dir/plain")" \
    "$(median <"$dir/tally")" "$(median <"$dir/ratio")"
  [ -s "$dir/own" ] && echo "         CP2K's own time (without start-up and file write): median ratio $(median <"$dir/own")"
  done_any=1
done
[ $done_any -eq 1 ] || { echo "SKIP: none of hpcc, lammps, cp2k is installed"; exit 77; }
