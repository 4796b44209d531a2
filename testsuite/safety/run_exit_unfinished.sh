#!/usr/bin/env bash
# run_exit_unfinished.sh SIG_APP TALLY_RUN SLOW_WRITE.so [planted] - a write
# the exit deadline cuts short (issue 47: it left its private `.tmp`
# directory behind, the message saying only "not complete").  SLOW_WRITE
# (slow_write.c, LD_PRELOAD) makes every write of the staged file take 3 s
# and TALLY_EXIT_TIMEOUT is 1 s, so the deadline always passes during the
# write: (1) SIGTERM (the signal thread's deadline): exit status 143; (2)
# exit() of a serial program (the SIGALRM watchdog): exit status 0.  Each
# time what was written is kept as <stem>.unfinished.h5 in the output
# directory, named in the one message, and no `.tmp` is left.  (3) exit()
# with the deadline between the writer's mark "publishing" and its rename
# (SLOW_RENAME=1: the rename waits until SIGALRM is pending): the rename
# is done, the one line names the complete file, which the reader takes,
# exit status 0, no `.tmp` (issue 47: the watchdog waited 2 s for a rename
# it had interrupted, said nothing and left the `.tmp`).  Bounded: each
# run is killed at 60 s.
# planted: the writer not slowed: the file completes, no unfinished file:
# the test must fail ("no unfinished file").
set -u
app=$1 run=$2 slow=$3 planted=${4:-}
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
pypath=${TALLY_PYTHONPATH:-}; unset TALLY_PYTHONPATH   # not a setting of the runs
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# a sanitizer build's runtime comes first in LD_PRELOAD
asan=$(ldd "$slow" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "; exit}')
pre="$asan$slow"; [ -n "$planted" ] && pre=
fail=0
bad() { echo "FAILED: $*"; fail=1; }
check() {   # WHAT DIR WANT_RC RC WANT_LINE
  local what=$1 d=$2
  echo "$what: exit status $4; $(cat "$d/err")"
  [ "$4" = "$3" ] || bad "$what: exit status $4, want $3"
  ls "$d"/*.unfinished.h5 >/dev/null 2>&1 || { bad "$what: no unfinished file: $(ls "$d")"; return; }
  grep -q "$5 $d/.*\.unfinished\.h5" "$d/err" || bad "$what: the message does not name the unfinished file"
  [ "$(grep -c tally "$d/err")" = 1 ] || bad "$what: $(grep -c tally "$d/err") lines, want one"
  ! ls "$d" | grep -q tmp || bad "$what: a temporary directory is left: $(ls "$d")"
}
# (1) SIGTERM while the partial file is written
d=$work/sig; mkdir "$d"
LD_PRELOAD=$pre timeout -s KILL 60 "$run" --output-dir="$d" --exit-timeout=1 -- "$app" 30 >"$d/out" 2>"$d/err" &
pid=$!
for _ in $(seq 600); do grep -q ready "$d/out" 2>/dev/null && break; sleep 0.1; done
kill -TERM "$pid"; wait "$pid"; rc=$?
check "SIGTERM" "$d" 143 $rc "what it holds is left, unfinished, as"
# (2) exit(): the serial file at the end, under the SIGALRM watchdog
d=$work/exit; mkdir "$d"
LD_PRELOAD=$pre timeout -s KILL 60 "$run" --output-dir="$d" --exit-timeout=1 -- "$app" 1 >"$d/out" 2>"$d/err"
check "exit()" "$d" 0 $? "the file it was writing is left unfinished as"
# (3) exit(): the deadline between the mark and the rename
d=$work/window; mkdir "$d"
t0=$(date +%s.%N)
SLOW_RENAME=1 LD_PRELOAD=$pre timeout -s KILL 60 "$run" --output-dir="$d" --exit-timeout=1 -- "$app" 1 \
  >"$d/out" 2>"$d/err"
rc=$?
echo "exit() at the rename: exit status $rc after $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s; $(cat "$d/err")"
[ $rc = 0 ] || bad "exit() at the rename: exit status $rc, want 0"
[ "$(grep -c tally "$d/err")" = 1 ] || bad "exit() at the rename: $(grep -c tally "$d/err") lines, want one"
! ls "$d" | grep -q tmp || bad "exit() at the rename: a temporary directory is left: $(ls "$d")"
grep -q "is complete, in place as $d/[^ ]*\.h5$\|unfinished as $d/[^ ]*\.h5$" "$d/err" \
  || bad "exit() at the rename: the line names no file in place"
if [ -n "$pypath" ] && ls "$d"/*.h5 >/dev/null 2>&1; then
  TALLY_PYTHONPATH=$pypath /usr/bin/python3 "$(dirname "$0")/check_files.py" any 1 "$d"/*.h5 \
    || bad "exit() at the rename: the file is not readable"
fi
[ $fail = 0 ] && echo "a write cut short by the exit deadline is kept as *.unfinished.h5 and said, no .tmp left"
exit $fail
