#!/usr/bin/env bash
# run_swap_race_report.sh APP TALLY_RUN TALLY_REPORT SWAPPER [N] - the swap
# race (run_swap_race.sh) for every file tally-report creates (issue 35).
# Three swappers (swapper.c, as `nobody` when this runs as root) watch the
# 0777 output directory and its 0777 plots/ and csv/ directories and
# replace every new name by a link to a victim.  The real tally-report,
# with all six outputs at once, 3 times; then report_swap_race.py writes N
# (default 100) files of each kind through the functions tally-report
# calls.  The victims are never touched and every file written holds its
# data (at its name or where the swapper moved it).  How many races the
# neighbour won is printed, not asserted (issue 46: under load it loses
# some); the swappers must still be running at the end.
set -u
app=$1 run=$2 report=$3 swapper=$4 n=${5:-100}
here=$(cd "$(dirname "$0")" && pwd)
pypath=${TALLY_PYTHONPATH:?}; unset TALLY_PYTHONPATH   # not a setting of the runs
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
work=$(mktemp -d); chmod 755 "$work"
out=$work/out; logd=$work/log
mkdir -m 777 "$out" "$out/plots" "$out/csv" "$logd"; chmod 777 "$out" "$out/plots" "$out/csv" "$logd"
echo precious >"$work/victim"; mkdir -m 755 "$work/victimdir"
touch -d 2020-01-01 "$work/victim"; vmtime=$(stat -c %Y "$work/victim")
# the input: a traced run (for --trace-export), made before any swapper
(cd "$work" && "$run" --trace --output-name=in.h5 -- "$app" 7 >/dev/null 2>&1)
[ -s "$work/in.h5" ] || { echo "FAILED: no input file"; exit 1; }
as=(); who=$(id -un)
if [ "$(id -u)" = 0 ] && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups); who=nobody
fi
pids=()
trap 'echo "FAILED: stopped by a signal after ${SECONDS} s (load $(cut -d" " -f1-3 /proc/loadavg))"; exit 1' TERM INT HUP
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
for d in out plots csv; do
  dir=$out; [ $d = out ] || dir=$out/$d
  "${as[@]}" "$swapper" "$dir" "$work/victim" "$work/victimdir" "$logd/$d.log" &
  pids+=($!)
done
for d in out plots csv; do
  for _ in $(seq 50); do grep -q watching "$logd/$d.log" 2>/dev/null && break; sleep 0.1; done
  grep -q watching "$logd/$d.log" || { echo "FAILED: the swapper of $d did not start"; exit 1; }
done
echo "swappers run as $who"
fail=0
bad() { echo "FAILED: $*"; fail=1; }
victims() {
  [ "$(cat "$work/victim")" = precious ] && [ "$(stat -c %Y "$work/victim")" = "$vmtime" ] \
    || bad "$1: the victim file was written"
  [ -z "$(ls -A "$work/victimdir")" ] || bad "$1: files appeared in the victim directory: $(ls -A "$work/victimdir")"
}
for i in 1 2 3; do
  (cd "$work" && "$report" in.h5 -o "out/cli$i.txt" --plot out/plots --csv-dir out/csv --hatchet "out/cli$i.json" \
     --html "out/cli$i.html" >/dev/null 2>"$work/err"); rc=$?
  [ $rc = 0 ] || { bad "tally-report $i: exit status $rc"; cat "$work/err"; }
  (cd "$work" && "$report" in.h5 --trace-export perfetto "out/clit$i.json" >/dev/null 2>>"$work/err"); rc=$?
  [ $rc = 0 ] || { bad "tally-report --trace-export $i: exit status $rc"; cat "$work/err"; }
  victims "tally-report $i"
done
echo "tally-report: 3 runs with all six outputs; $(cat "$logd"/*.log | grep -vc watching) names swapped so far"
TALLY_PYTHONPATH=$pypath /usr/bin/python3 -I "$here/report_swap_race.py" "$work/in.h5" "$out" "$logd" "$work/victim" "$work/victimdir" "$n" \
  || fail=1
victims "the end"
# the race was run: every swapper watched to the end (who won is counted above)
for k in 0 1 2; do
  kill -0 "${pids[$k]}" 2>/dev/null || bad "the swapper of $(echo out plots csv | cut -d' ' -f$((k + 1))) died: no race was run"
done
echo "${SECONDS} s; load $(cut -d' ' -f1-3 /proc/loadavg)"
[ $fail = 0 ] && echo "all report swap-race checks passed"
exit $fail
