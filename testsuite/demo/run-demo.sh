#!/usr/bin/env bash
# The main job: build Tally, then run an MPI+OpenMP program (4 ranks x 2
# threads) under tally-run, summarise the HDF5 file it writes, report on
# it with plots and an HTML page, and check what came out: the exit status
# is non-zero when a step fails or its output lacks what it must hold.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
fail() { echo "demo: FAILED: $*" >&2; exit 1; }
testsuite/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# tally-python: the reader that --summary and tally-report run (tally-run depends on it too)
cmake --build build -j "$(nproc)" --target tally tally-preload tally-run tally-python rt_app >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
out=$top/build/demo
rm -rf "$out"   # Tally never replaces a file it did not ask to (it would write demo.1.h5)
mkdir -p "$out"
echo "== mpirun --oversubscribe -np 4 tally-run --output-dir $out -- rt_app"
mpirun --oversubscribe -np 4 build/wrappers/tally-run --output-dir "$out" \
	--output-name demo.h5 -- build/testsuite/mpi/rt_app
[ -s "$out/demo.h5" ] || fail "no $out/demo.h5"
echo "== file: $out/demo.h5"
build/wrappers/tally-run --summary "$out/demo.h5" | tee "$out/summary.txt"
[ -s "$out/summary.txt" ] || fail "tally-run --summary printed nothing"
echo "== tally-report $out/demo.h5 (plots in $out/plots, page $out/demo.html)"
build/analysis/bin/tally-report "$out/demo.h5" --top 12 --plot "$out/plots" --html "$out/demo.html" \
	| tee "$out/report.txt"
# the report: its sections, 4 ranks, the OpenMP and MPI rows, no line over 120 columns
for s in "== Run" "== Region tree" "== MPI calls by time" "== MPI per rank"; do
	grep -qx -- "$s" "$out/report.txt" || fail "the report has no '$s' section"
done
grep -Eq '^ranks +4$' "$out/report.txt" || fail "the report does not say 4 ranks"
grep -q 'omp parallel @ ' "$out/report.txt" || fail "no OpenMP region in the report"
grep -Eq '^MPI_[A-Za-z]+ ' "$out/report.txt" || fail "no MPI function row in the report"
w=$(LC_ALL=C.UTF-8 wc -L <"$out/report.txt")
[ "$w" -le 120 ] || fail "a report line is $w columns wide (over 120)"
for p in heatmap imbalance mpi_time; do
	f=$out/plots/$p.png
	[ "$(head -c 8 "$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
		&& [ "$(stat -c %s "$f")" -gt 10000 ] || fail "$f missing, not a PNG or nearly empty"
done
grep -q '<img alt="heatmap" src="data:image/png;base64,' "$out/demo.html" || fail "$out/demo.html has no plot"
echo "demo: passed (report, 3 plots and $out/demo.html checked)"
