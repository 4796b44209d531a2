#!/usr/bin/env bash
# flaky.sh [--quiet] [--build DIR] LABEL [N] - the flaky-test record (issue
# 46): runs `ctest -L LABEL` N times (default 20) in the build DIR
# (default build) under a load it makes, busy processes twice the cores
# (testsuite/load.sh; --quiet: none), and prints each test's failures in N
# runs with its longest time.  The busy processes are stopped on every
# exit (trap).  The output of each failed run is kept in
# DIR/flaky-LABEL/runK.log.  Exit status: 1 when a test failed at least once.
#   testsuite/flaky.sh safety 5
#   testsuite/flaky.sh --quiet threads
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/load.sh"
quiet=0 dir=build
while [ $# -gt 0 ]; do
  case $1 in
    --quiet) quiet=1; shift ;;
    --build) dir=$2; shift 2 ;;
    *) break ;;
  esac
done
label=${1:?usage: flaky.sh [--quiet] [--build DIR] LABEL [N]} n=${2:-20}
logs=$dir/flaky-$label; rm -rf "$logs"; mkdir -p "$logs"
trap 'load_stop' EXIT
trap 'echo "flaky: stopped by a signal"; exit 1' TERM INT HUP
[ $quiet = 1 ] || load_start
declare -A runs fails longest
start=$SECONDS loads=()
for k in $(seq 1 "$n"); do
  out=$logs/run$k.log
  ctest --test-dir "$dir" -L "$label" --output-on-failure >"$out" 2>&1
  rc=$?
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  # "  3/12 Test  #5: name ......   Passed    1.23 sec" (or ***Failed, ***Timeout, Not Run ...)
  while read -r name verdict secs; do
    runs[$name]=$(( ${runs[$name]:-0} + 1 ))
    case $verdict in Passed|Skipped) ;; *) fails[$name]=$(( ${fails[$name]:-0} + 1 )) ;; esac
    awk -v a="$secs" -v b="${longest[$name]:-0}" 'BEGIN { exit !(a > b) }' && longest[$name]=$secs
  done < <(sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) [ .]*(\*\*\*)?([A-Za-z]+)[^0-9]*([0-9.]+) sec.*/\1 \3 \4/p' "$out")
  echo "run $k of $n: ctest exit status $rc, $(grep -c ' Test  *#' "$out") tests, ${SECONDS}s so far, load ${loads[-1]}"
  [ $rc = 0 ] && rm -f "$out"
done
echo "== flaky: label $label, $n runs in $((SECONDS - start)) s, $([ $quiet = 1 ] && echo "no load made" ||
  echo "${#load_pids[@]} busy processes beside"), load average after each run: ${loads[*]}"
printf '%-40s %8s %8s %10s\n' test runs failed longest_s
bad=0
for t in $(printf '%s\n' "${!runs[@]}" | sort); do
  printf '%-40s %8d %8d %10s\n' "$t" "${runs[$t]}" "${fails[$t]:-0}" "${longest[$t]}"
  [ "${fails[$t]:-0}" -gt 0 ] && bad=1
done
[ $bad = 1 ] && echo "failed runs' output: $logs/"
exit $bad
