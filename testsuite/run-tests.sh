#!/usr/bin/env bash
# Build Tally and run its test suite: a -Werror build, then ASan+UBSan over
# the whole suite, then TSan over the threading tests, then real
# applications from Debian (label `apps`, release build only), the fuzzer,
# the arm64 guest, and last the timing- and race-sensitive labels (safety,
# threads, runtime, api) again on the release build beside busy processes
# twice the cores (testsuite/load.sh; issue 46).  Benchmarks (label
# `bench`) are not run here: `ctest --test-dir build -L bench`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
testsuite/install-deps.sh
jobs=$(nproc)

run_suite() { # name cmake-args... ; ctest args in CTEST_ARGS
  local dir="build-ci-$1"; shift
  cmake -S . -B "$dir" -DTALLY_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
  # One test at a time: many tests compare counters with clocks, and the
  # MPI tests run 4 ranks x 2 threads on this 2-core machine.
  ctest --test-dir "$dir" --output-on-failure ${CTEST_ARGS}
}

echo "== build and test (-Werror)"
CTEST_ARGS="-LE bench|apps" run_suite release -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== ASan + UBSan"
# Leaks are checked; testsuite/lsan.supp names only Open MPI's own (full
# stacks are needed to see them through its unloaded components).  Tests
# that run Python alone (the layout checks, the reader's crafted files and
# fuzzer: ~225 s here) run in the release stage only: the sanitizers
# instrument the C code.  So does sampling_hammer (40 runs of one shape
# for a crash at exit that was libdebuginfod's, and a check that it is
# never loaded: ~100 s under ASan, 30 s in the release stage).
ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
  LSAN_OPTIONS=suppressions=$top/testsuite/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1 \
  CTEST_ARGS="-LE bench|apps|layout -E ^(safety_crafted_files|safety_reader_fuzz|sampling_hammer)$" \
  run_suite asan -DCMAKE_BUILD_TYPE=Debug -DTALLY_SANITIZE=address,undefined
echo "== TSan (threading tests)"
TSAN_OPTIONS="halt_on_error=1" CTEST_ARGS="-L threads" run_suite tsan -DCMAKE_BUILD_TYPE=Debug \
  -DTALLY_SANITIZE=thread -DCMAKE_C_COMPILER=clang
echo "== real applications: HPCC, LAMMPS, CP2K from Debian under tally-run (docs/apps.md)"
apps_start=$SECONDS
testsuite/apps/install-apps.sh
ctest --test-dir build-ci-release -L apps --no-tests=error --output-on-failure
echo "apps stage: $((SECONDS - apps_start)) s, package installation included"
echo "== libFuzzer: NVTX schema registration + payload decoding (60 s, clang)"
cmake -S . -B build-ci-fuzz -DTALLY_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build-ci-fuzz -j "$jobs" --target fuzz_nvtx >/dev/null
ctest --test-dir build-ci-fuzz -L fuzz --no-tests=error --output-on-failure
echo "== PMU test bed: labels pmu and pmurt (the runtime sampling on hardware counters) in the arm64 QEMU guest (docs/pmuvm.md)"
pmu_rc=0
testsuite/pmuvm/run.sh || pmu_rc=$?
if [ "$pmu_rc" -eq 77 ]; then
  echo "pmuvm: SKIPPED: the host packages for the guest could not be installed"
elif [ "$pmu_rc" -ne 0 ]; then
  exit "$pmu_rc"
fi
echo "== under load: the timing- and race-sensitive tests again beside $((2 * jobs)) busy processes (release build)"
# A shared login node or a CI runner with neighbours: these tests compare
# clocks (labels threads and api: counters against thread CPU time, wall
# clocks, overflow rates; region_time_only) or race an adversary or a
# signal (the safety tests below), and must pass there too.  The busy
# processes are stopped on every exit (trap) and end by themselves when
# this script is gone (testsuite/load.sh).  The rest of labels safety and
# runtime (functional checks, 640 s quiet in all) stays in the quiet
# stages: with them this stage would take ~20 minutes (525 s quiet, about
# 2.5 times that beside the busy processes), a third of CI's hour.
. testsuite/load.sh
trap load_stop EXIT
loaded_start=$SECONDS
load_start $((2 * jobs))
ctest --test-dir build-ci-release -L 'threads|api' -LE 'bench|apps' --no-tests=error --output-on-failure
ctest --test-dir build-ci-release --no-tests=error --output-on-failure -R \
  '^(safety_signals|safety_swap_race|safety_swap_race_report|safety_trace_swap|safety_adopt_swap|safety_fork_signals|safety_job_ids|region_time_only)$'
load_stop
echo "loaded stage: $((SECONDS - loaded_start)) s"
