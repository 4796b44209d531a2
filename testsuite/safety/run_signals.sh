#!/usr/bin/env bash
# run_signals.sh APP TALLY_RUN [RUNS] [nopython] - signals under tally-run
# (issue 35).
# 1. RUNS (default 100) SIGTERMs at random moments (0-400 ms after the
#    program's 4 threads started allocating) with TALLY_EXIT_TIMEOUT 0, 1
#    and 20 in turn: the exit status is always the signal's (143), the run
#    ends within the bound (no hang), and a partial file exists that the
#    reader takes (partial_reason SIGTERM) or the message says why not;
#    one the exit timeout cut short is kept as *.unfinished.h5, named in
#    the message, and no .tmp is left (issue 47).
#    A run without a limit (exit timeout 0) always has its partial file:
#    at least one file, so a Tally that writes nothing fails.
# 2. A Python script's `except KeyboardInterrupt` runs under tally-run
#    (SIGINT), and an unhandled one ends Python by SIGINT (130), as without
#    Tally.  "nopython": part 2 is left out (a sanitizer build's preload
#    cannot be loaded into Debian's python3; the plain build runs it).
# Bounded whatever the load (issue 46): SAFETY_PARALLEL runs (default 4)
# at once, each waiting for its program as long as the program needs (up
# to 60 s to start, 60 s to end after the signal); no run starts after
# SAFETY_BUDGET seconds (default 420, ctest's limit is 600), and a
# deadline or a SIGTERM from ctest ends the script with an account of
# what ran and what was left, never with a cascade of false messages.
set -u
app=$1 run=$2 runs=${3:-100} python=${4:-python}
pypath=${TALLY_PYTHONPATH:?}; unset TALLY_PYTHONPATH   # not a setting of the runs
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
py=/usr/bin/python3
par=${SAFETY_PARALLEL:-4} budget=${SAFETY_BUDGET:-420}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
fail=0 started=0 finished=0 running=() pypid=
bad() { echo "FAILED: $*"; fail=1; }
account() { echo "runs: $started of $runs started, $finished finished, $((runs - started)) not started; ${SECONDS} s; load $(cut -d' ' -f1-3 /proc/loadavg)"; }
stop_all() {   # the runs still going (and their programs), by their ids
  local r
  for r in "${running[@]+"${running[@]}"}" ${pypid:+"0:$pypid"}; do
    pkill -KILL -P "${r#*:}" 2>/dev/null; kill -KILL "${r#*:}" 2>/dev/null
  done
}
trap 'echo "FAILED: stopped by a signal"; account; stop_all; rm -rf "$work"; exit 1' TERM INT HUP
trap 'stop_all; rm -rf "$work"' EXIT

# waits for "ready" in $1 (60 s at most)
ready() { for _ in $(seq 600); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# waits for pid $1 at most $2 s (then SIGKILL: a hang); status in $rc, seconds in $took
bounded_wait() {
  local pid=$1 t0=$SECONDS
  ( sleep "$2"; kill -KILL "$pid" 2>/dev/null ) & local dog=$!
  wait "$pid"; rc=$?
  kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
  took=$((SECONDS - t0))
}

# one run: its verdict lines on stdout ("ok partial|said SECONDS" or FAILED: ...)
one() {
  local i=$1 d=$work/r$1 to pid
  mkdir "$d" 2>/dev/null || { echo "GONE"; return; }
  to=${timeouts[$((i % 3))]}
  "$run" --output-dir="$d" --exit-timeout="$to" -- "$app" 30 >"$d/out" 2>"$d/err" &
  pid=$!
  if ! ready "$d/out"; then
    [ -d "$d" ] || { echo "GONE"; return; }
    echo "FAILED: run $i: the program did not print ready within 60 s: $(cat "$d/err")"
  fi
  sleep "0.$(printf %03d $((RANDOM % 400)))"
  kill -TERM "$pid"
  bounded_wait "$pid" 60
  [ -d "$d" ] || { echo "GONE"; return; }
  [ "$rc" = 143 ] || echo "FAILED: run $i (exit timeout $to): exit status $rc, want 143 (SIGTERM): $(cat "$d/err")"
  if ls "$d"/*.partial.h5 >/dev/null 2>&1; then
    if grep -q "SIGTERM: partial data written to $d/.*\.partial\.h5" "$d/err"; then
      echo "ok partial $took"
    else
      # the file in place and no line naming it (issue 47: it was put in
      # place as the exit timeout ran out and the message said it was not)
      echo "FAILED: run $i (exit timeout $to): no message naming the file: $(cat "$d/err")"
    fi
    mv "$d"/*.partial.h5 "$work/r$i.partial.h5"
  elif [ "$to" = 0 ]; then
    echo "FAILED: run $i: no partial file with no exit time limit: $(ls "$d") $(cat "$d/err")"
  elif ls "$d"/*.unfinished.h5 >/dev/null 2>&1; then
    # cut short by the exit timeout: kept under a name that says so, and said
    if grep -q "not complete after TALLY_EXIT_TIMEOUT=$to s; what it holds is left, unfinished, as $d/.*\.unfinished\.h5" "$d/err"; then
      echo "run $i (exit timeout $to): $(cat "$d/err")"; echo "ok cut $took"
    else
      echo "FAILED: run $i: an unfinished file the message does not name: $(ls "$d") $(cat "$d/err")"
    fi
  elif grep -Eq "SIGTERM|Terminated" "$d/err"; then
    echo "run $i (exit timeout $to): $(cat "$d/err")"; echo "ok said $took"
  else
    echo "FAILED: run $i: no partial file and no message: $(ls "$d") $(cat "$d/err")"
  fi
  # nothing temporary is left, not even by a write the exit timeout cut
  # short (issue 47: its private .tmp directory was), unless the message
  # says the move failed and names it
  if ls "$d" | grep -q tmp && ! grep -q "stays, unfinished, in" "$d/err"; then
    echo "FAILED: run $i: a temporary file or directory is left: $(ls "$d") $(cat "$d/err")"
  fi
}

timeouts=(0 1 20)
# a finished run's verdict: counted, its FAILED lines shown
collect() {   # i
  local v=$work/v$1
  grep -q '^GONE' "$v" && return 1
  grep -v '^ok ' "$v"
  grep -q '^FAILED' "$v" && fail=1
  finished=$((finished + 1))
  return 0
}
gone=0 i=0
while [ $i -lt "$runs" ] || [ ${#running[@]} -gt 0 ]; do
  if [ $i -lt "$runs" ] && [ ${#running[@]} -lt "$par" ] && [ $SECONDS -lt "$budget" ] && [ $gone = 0 ]; then
    i=$((i + 1)); started=$i
    one "$i" >"$work/v$i" 2>&1 &
    running+=("$i:$!")
    continue
  fi
  [ ${#running[@]} -eq 0 ] && break   # budget spent (or the directory gone) with nothing running
  wait -n 2>/dev/null
  left=()
  for r in "${running[@]}"; do
    if kill -0 "${r#*:}" 2>/dev/null; then left+=("$r"); continue; fi
    wait "${r#*:}" 2>/dev/null
    if [ ! -d "$work" ]; then gone=1; continue; fi
    collect "${r%%:*}" || gone=1
  done
  running=("${left[@]+"${left[@]}"}")
done
[ $gone = 1 ] && { echo "FAILED: the work directory $work disappeared: stopped"; account; exit 1; }
[ "$started" -lt "$runs" ] && bad "the budget of $budget s was spent: $((runs - started)) of $runs runs not started"
partial=$(cat "$work"/v* | grep -c '^ok partial') said=$(cat "$work"/v* | grep -c '^ok said')
cut=$(cat "$work"/v* | grep -c '^ok cut')
longest=$(cat "$work"/v* | awk '$1 == "ok" && $3 > m { m = $3 } END { print m + 0 }')
echo "$finished SIGTERMs ($par at a time): $partial partial files, $cut cut short by the exit timeout (kept as" \
  "*.unfinished.h5, said), $said runs said why not; longest run ${longest} s after the signal"
account
shopt -s nullglob
TALLY_PYTHONPATH=$pypath $py "$here/check_files.py" SIGTERM 1 "$work"/*.partial.h5 || fail=1

# 2. KeyboardInterrupt
[ "$python" = nopython ] && { [ $fail = 0 ] && echo "all signal checks passed (Python left out)"; exit $fail; }
cat >"$work/ki.py" <<'PY'
import sys, time
print("ready", flush=True)
if sys.argv[2] == "handled":
    try:
        time.sleep(30)
    except KeyboardInterrupt:
        open(sys.argv[1], "w").write("cleanup ran")
        sys.exit(5)
else:
    time.sleep(30)
PY
for mode in handled unhandled; do
  d=$work/py-$mode; mkdir "$d" || { bad "the work directory $work disappeared"; break; }
  # a background job of a script starts with SIGINT ignored: give it the default
  env --default-signal=INT "$run" --output-dir="$d" -- $py "$work/ki.py" "$d/marker" $mode >"$d/out" 2>"$d/err" &
  pid=$!; pypid=$pid
  ready "$d/out" || bad "python $mode: did not start within 60 s"
  sleep 0.3; kill -INT "$pid"
  bounded_wait "$pid" 60
  if [ $mode = handled ]; then
    [ "$rc" = 5 ] || bad "python: exit status $rc, want 5 (the script's cleanup)"
    [ -f "$d/marker" ] || bad "python: the script's 'except KeyboardInterrupt' did not run"
    grep -q "measurement written to" "$d/err" || bad "python: no measurement file after the cleanup: $(cat "$d/err")"
  else
    [ "$rc" = 130 ] || bad "python: an unhandled KeyboardInterrupt gave exit status $rc, want 130 (SIGINT)"
  fi
  pypid=
done
[ $fail = 0 ] && echo "all signal checks passed"
exit $fail
