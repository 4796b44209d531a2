#!/usr/bin/env bash
# run_signals.sh APP TALLY_RUN [RUNS] [nopython] - signals under tally-run
# (issue 35).
# 1. RUNS (default 100) SIGTERMs at random moments (0-400 ms after the
#    program's 4 threads started allocating) with TALLY_EXIT_TIMEOUT 0, 1
#    and 20 in turn: the exit status is always the signal's (143), the run
#    ends within the bound (no hang), and a partial file exists that the
#    reader takes (partial_reason SIGTERM) or the message says why not.
# 2. A Python script's `except KeyboardInterrupt` runs under tally-run
#    (SIGINT), and an unhandled one ends Python by SIGINT (130), as without
#    Tally.  "nopython": part 2 is left out (a sanitizer build's preload
#    cannot be loaded into Debian's python3; the plain build runs it).
set -u
app=$1 run=$2 runs=${3:-100} python=${4:-python}
pypath=${TALLY_PYTHONPATH:?}; unset TALLY_PYTHONPATH   # not a setting of the runs
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
py=/usr/bin/python3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0 partial=0 said=0 longest=0
bad() { echo "FAILED: $*"; fail=1; }

# waits for "ready" in $1 (20 s at most)
ready() { for _ in $(seq 200); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# waits for pid $1 at most $2 s (then SIGKILL: a hang); status in $rc
bounded_wait() {
  local pid=$1 t0=$SECONDS
  ( sleep "$2"; kill -KILL "$pid" 2>/dev/null ) & local dog=$!
  wait "$pid"; rc=$?
  kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
  [ $((SECONDS - t0)) -gt "$longest" ] && longest=$((SECONDS - t0))
}

timeouts=(0 1 20)
for i in $(seq 1 "$runs"); do
  d=$work/r$i; mkdir "$d"
  to=${timeouts[$((i % 3))]}
  "$run" --output-dir="$d" --exit-timeout="$to" -- "$app" 30 >"$d/out" 2>"$d/err" &
  pid=$!
  ready "$d/out" || bad "run $i: the program did not start"
  sleep "0.$(printf %03d $((RANDOM % 400)))"
  kill -TERM "$pid"
  bounded_wait "$pid" 60
  [ "$rc" = 143 ] || { bad "run $i (exit timeout $to): exit status $rc, want 143 (SIGTERM)"; cat "$d/err"; }
  if ls "$d"/*.partial.h5 >/dev/null 2>&1; then
    partial=$((partial + 1))
    grep -q "SIGTERM: partial data written to $d/.*\.partial\.h5" "$d/err" || bad "run $i: no message naming the file"
    mv "$d"/*.partial.h5 "$work/r$i.partial.h5"
  elif grep -q "SIGTERM" "$d/err"; then
    said=$((said + 1)); echo "run $i: $(cat "$d/err")"
  else
    bad "run $i: no partial file and no message: $(ls "$d") $(cat "$d/err")"
  fi
  ls "$d" | grep -q tmp && bad "run $i: a temporary file or directory is left: $(ls "$d")"
done
echo "$runs SIGTERMs: $partial partial files, $said runs said why not; longest run ${longest} s after the signal"
shopt -s nullglob
TALLY_PYTHONPATH=$pypath $py "$(dirname "$0")/check_files.py" SIGTERM "$partial" "$work"/*.partial.h5 || fail=1

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
  d=$work/py-$mode; mkdir "$d"
  # a background job of a script starts with SIGINT ignored: give it the default
  env --default-signal=INT "$run" --output-dir="$d" -- $py "$work/ki.py" "$d/marker" $mode >"$d/out" 2>"$d/err" &
  pid=$!
  ready "$d/out" || bad "python $mode: did not start"
  sleep 0.3; kill -INT "$pid"
  bounded_wait "$pid" 30
  if [ $mode = handled ]; then
    [ "$rc" = 5 ] || bad "python: exit status $rc, want 5 (the script's cleanup)"
    [ -f "$d/marker" ] || bad "python: the script's 'except KeyboardInterrupt' did not run"
    grep -q "measurement written to" "$d/err" || bad "python: no measurement file after the cleanup: $(cat "$d/err")"
  else
    [ "$rc" = 130 ] || bad "python: an unhandled KeyboardInterrupt gave exit status $rc, want 130 (SIGINT)"
  fi
done
[ $fail = 0 ] && echo "all signal checks passed"
exit $fail
