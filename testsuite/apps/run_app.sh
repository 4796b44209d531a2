#!/usr/bin/env bash
# run_app.sh APP TALLY_RUN TALLY_REPORT COUNTER_DIR PRELOAD_FIRST
# One real application from Debian's packages, unmodified: a plain run, then
# a run under `mpirun tally-run` with the test's own MPI and OpenMP counters
# in front of Tally (preload_first); then check_app.py (exit status, result
# lines, MPI calls and bytes, OpenMP regions) and tally-report in every
# format.  Skips (77) only when the application is not installed.
#   APP: hpcc (4 ranks), lammps (2 ranks x 2 threads), cp2k (2 ranks x 2 threads)
# TLY_APPS_PLANT=FUNCTION makes the check expect one call more of FUNCTION
# on rank 0 (to see the test fail; docs/apps.md).
set -u
app=$1 run=$2 report=$3 libs=$4 first=$5
src=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
$py -c "import h5py" 2>/dev/null || { echo "SKIP: python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
case $app in
  hpcc)   exe=hpcc;      pkg=hpcc;  np=4; nt=1; input=hpccinf.txt; args=() ;;
  lammps) exe=lmp;       pkg=lammps; np=2; nt=2; input=in.melt
          args=(-in in.melt -log none)
          # Debian 12's lammps is built without the OPENMP package, so `-sf omp`
          # stops with "Using suffix omp without OPENMP package installed":
          # use it where the package has it.
          if command -v lmp >/dev/null && lmp -h | sed -n '/^Installed packages:/,/^List of/p' | grep -qw OPENMP; then
            args=(-sf omp -pk omp 2 "${args[@]}")
          fi ;;
  cp2k)   exe=cp2k.psmp; pkg=cp2k;  np=2; nt=2; input=h2o.inp; args=(-i h2o.inp) ;;  # written below
  *) echo "unknown application $app"; exit 2 ;;
esac
command -v "$exe" >/dev/null || {
  echo "SKIP: $exe not found: Debian package '$pkg' is not installed (testsuite/apps/install-apps.sh installs it; see its log)"
  exit 77
}
export OMP_NUM_THREADS=$nt
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
mkdir "$dir/plain" "$dir/tally" "$dir/counts"
if [ "$app" = cp2k ]; then
  # the package's own example (one water molecule), one energy instead of 5 MD steps
  ex=/usr/share/doc/cp2k/examples/H2O.inp
  [ -r "$ex" ] || { echo "SKIP: $ex missing (package cp2k incomplete)"; exit 77; }
  sed 's/RUN_TYPE MD/RUN_TYPE ENERGY/' "$ex" >"$dir/plain/$input"
  grep -q 'RUN_TYPE ENERGY' "$dir/plain/$input" || { echo "FAIL: $ex has changed"; exit 1; }
  cp "$dir/plain/$input" "$dir/tally/"
else
  cp "$src/$input" "$dir/plain/" && cp "$src/$input" "$dir/tally/"
fi
mpi=(timeout 300 mpirun --oversubscribe -np "$np")
echo "== $app: plain run ($np ranks x $nt threads): $exe ${args[*]}"
(cd "$dir/plain" && "${mpi[@]}" "$exe" "${args[@]}" >out.txt 2>&1)
rc_plain=$?
echo "== $app: under tally-run, with the test's counters in front of Tally"
# The default settings: GCC OpenMP programs keep libgomp, measured inside it
# (the counters' GOMP_parallel comes first and calls Tally's).
# HPCC also writes its event trace (TALLY_TRACE, docs/trace.md), checked below.
trace=()
[ "$app" = hpcc ] && trace=(--trace)
(cd "$dir/tally" && TLY_APPS_COUNT_DIR="$dir/counts" "${mpi[@]}" "$run" \
   "${trace[@]}" --output-name=app.h5 -- "$first" "$libs/libcount_mpi_c.so $libs/libcount_mpi_f.so $libs/libcount_omp.so" \
   "$exe" "${args[@]}" >out.txt 2>&1)
rc_tally=$?
echo "exit status: plain $rc_plain, measured $rc_tally"
bad=0
if [ "$rc_plain" -ne 0 ] || [ "$rc_tally" -ne "$rc_plain" ]; then
  echo "FAIL: exit status differs or the plain run failed"; tail -20 "$dir/plain/out.txt" "$dir/tally/out.txt"; exit 1
fi
[ -f "$dir/tally/app.h5" ] || { echo "FAIL: no Tally file"; tail -20 "$dir/tally/out.txt"; exit 1; }
# no Tally message about the OpenMP runtime (its counters preloaded in front
# of Tally once made a false "did not take its place ... not measured")
if grep -E '^tally' "$dir/tally/out.txt" | grep -q -i -E 'libomp|libgomp|not measured'; then
  echo "FAIL: a Tally message about the OpenMP runtime:"; grep -E '^tally' "$dir/tally/out.txt"; bad=1
fi
out=out.txt
[ "$app" = hpcc ] && out=hpccoutf.txt
if [ -n "${TLY_APPS_PLANT:-}" ]; then   # a wrong expected value, to see the check fail
  echo "planting: the counters expect one $TLY_APPS_PLANT call more on rank 0"
  f=$dir/counts/c.0.txt; [ -f "$f" ] || f=$dir/counts/f.0.txt
  awk -v fn="$TLY_APPS_PLANT" '$1 == fn { $2 += 1 } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
fi
$py "$src/check_app.py" "$dir/tally/app.h5" "$dir/counts" "$np" "$nt" \
    "$dir/plain/$out" "$dir/tally/$out" "$app" || bad=1
if [ "$app" = hpcc ]; then
  # (1.4 million events: the Perfetto export, minutes here, is tested on
  # the trace tests' runs, label trace)
  echo "== the trace: otf2-print reads it, enters = the profile's visits, every send received"
  if [ -x /usr/bin/otf2-print ]; then
    PYTHONPATH="$(dirname "$report")/../../share/tally/python${PYTHONPATH:+:$PYTHONPATH}" \
      $py "$src/../trace/check_trace.py" /usr/bin/otf2-print "$dir/tally/app.h5" --mpi || bad=1
  else
    echo "FAIL: otf2-print missing (Debian otf2-tools): testsuite/install-deps.sh installs it"; bad=1
  fi
fi
echo "== tally-report, every format"
for fmt in text csv json markdown; do
  "$report" --format "$fmt" -o "$dir/report.$fmt" "$dir/tally/app.h5" >"$dir/report.log" 2>&1 &&
    grep -q MPI_ "$dir/report.$fmt" ||
    { echo "FAIL: tally-report --format $fmt"; cat "$dir/report.log"; bad=1; }
done
$py -c "import json, sys; json.load(open(sys.argv[1]))" "$dir/report.json" || { echo "FAIL: report.json is not JSON"; bad=1; }
"$report" --csv-dir "$dir/csv" --hatchet "$dir/tree.json" --plot "$dir/plots" "$dir/tally/app.h5" \
  >"$dir/report.log" 2>&1 || { echo "FAIL: tally-report --csv-dir/--hatchet/--plot"; cat "$dir/report.log"; bad=1; }
n_csv=$(ls "$dir/csv"/*.csv 2>/dev/null | wc -l) n_png=$(ls "$dir/plots"/*.png 2>/dev/null | wc -l)
echo "tally-report: text, csv, json, markdown; $n_csv CSV table(s), $n_png plot(s), hatchet tree"
{ [ "$n_csv" -gt 0 ] && [ "$n_png" -gt 0 ] && [ -s "$dir/tree.json" ]; } || { echo "FAIL: tally-report wrote nothing"; bad=1; }
[ $bad -eq 0 ] && echo "PASS: $app" || echo "FAIL: $app"
exit $bad
