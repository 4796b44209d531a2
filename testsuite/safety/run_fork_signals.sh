#!/usr/bin/env bash
# run_fork_signals.sh FORK_APP TALLY_RUN [nopython] - the program's signals
# in forked children and Python's view of them (issue 47):
#  1. fork_app.c: a fork() child that pauses, ended by its parent with
#     SIGTERM, then SIGINT: it ends by the signal, within 1 s of the same
#     run without Tally (the child of a measured process has no signal
#     thread of Tally's: a handler left there swallowed the signal).
#  2. Python multiprocessing Pool.terminate() (SIGTERM to forked workers):
#     within 1 s of the time without Tally.
#  3. signal.getsignal(SIGTERM) is SIG_DFL under Tally, the common save
#     and restore works, and SIGTERM after the restore still gives the
#     partial file and exit status 143.
# Every run is bounded (timeout 30 s); times are the program's own.
set -u
app=$1 run=$2 python=${3:-python}
py=/usr/bin/python3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAILED: $*"; fail=1; }
secs() { sed -n 's/.*\(ended in\|terminate\) \([0-9.]*\) s.*/\2/p' "$1" | tail -1; }
within() {   # WHAT TALLY_S PLAIN_S
  awk -v a="$2" -v b="$3" 'BEGIN { exit !(a != "" && b != "" && a <= b + 1.0) }' \
    || bad "$1: $2 s under Tally, $3 s without (more than 1 s apart)"
  echo "$1: $2 s under Tally, $3 s without"
}

for s in term int; do
  env --default-signal=INT timeout 30 "$app" $s >"$work/plain" 2>&1 || bad "$s without Tally: $(cat "$work/plain")"
  env --default-signal=INT timeout 30 "$run" --output-dir="$work" -- "$app" $s >"$work/tally" 2>"$work/err"
  rc=$?
  [ $rc = 0 ] || bad "fork + SIG$s under Tally: exit status $rc: $(cat "$work/tally" "$work/err")"
  within "fork + SIG${s^^}" "$(secs "$work/tally")" "$(secs "$work/plain")"
done

[ "$python" = nopython ] && { [ $fail = 0 ] && echo "all fork-signal checks passed (Python left out)"; exit $fail; }
$py -c 'import multiprocessing' 2>/dev/null || { echo "SKIP: no multiprocessing"; exit 77; }
cat >"$work/pool.py" <<'PY'
import multiprocessing as mp, time
def work(x):
    time.sleep(60)
if __name__ == "__main__":
    mp.set_start_method("fork")
    pool = mp.Pool(2)
    pool.map_async(work, range(2))
    time.sleep(0.5)
    t = time.monotonic()
    pool.terminate()
    pool.join()
    print("terminate %.3f s" % (time.monotonic() - t), flush=True)
PY
timeout 30 $py "$work/pool.py" >"$work/plain" 2>&1 || bad "Pool.terminate() without Tally: $(cat "$work/plain")"
timeout 30 "$run" --output-dir="$work" -- $py "$work/pool.py" >"$work/tally" 2>"$work/err"
rc=$?
[ $rc = 0 ] || bad "Pool.terminate() under Tally: exit status $rc: $(tail -3 "$work/err")"
within "Pool.terminate()" "$(secs "$work/tally")" "$(secs "$work/plain")"

cat >"$work/getsig.py" <<'PY'
import os, signal, time
h = signal.getsignal(signal.SIGTERM)
assert h == signal.SIG_DFL, "getsignal(SIGTERM) is %r" % (h,)
signal.signal(signal.SIGTERM, h)
old = signal.signal(signal.SIGTERM, lambda s, f: None)
assert old == signal.SIG_DFL, "signal() returned %r" % (old,)
signal.signal(signal.SIGTERM, old)
assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
print("getsignal ok", flush=True)
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(20)
PY
mkdir "$work/gs"
timeout 30 "$run" --output-dir="$work/gs" -- $py "$work/getsig.py" >"$work/tally" 2>"$work/err"
rc=$?
grep -q "getsignal ok" "$work/tally" || bad "getsignal: $(tail -3 "$work/err")"
[ $rc = 143 ] || bad "SIGTERM after the restore: exit status $rc, want 143"
ls "$work/gs"/*.partial.h5 >/dev/null 2>&1 || bad "SIGTERM after the restore: no partial file: $(cat "$work/err")"
[ $fail = 0 ] && echo "all fork-signal checks passed"
exit $fail
