#!/usr/bin/env bash
# run_adopt_swap.sh APP MPI_APP TALLY_RUN NEIGHBOUR [RUNS] - a directory
# Tally did not make is never taken as its private one (issue 47).  As
# root, with a neighbour `mallory` (useradd when absent) who can write the
# output directory (0777, not sticky): NEIGHBOUR (neighbour.c, mode adopt)
# removes every fresh `*.tmp` directory the moment it appears and moves
# one of root's directories (victims: with files, empty 0755, empty 0700)
# in under its name.  RUNS serial runs (default 10), 3 MPI jobs of 2 ranks
# and 3 traced serial runs: every victim, found by its inode wherever it
# was moved, keeps its mode, owner and contents; the exit status is the
# program's; each run writes its file or says why not.
set -u
app=$1 mpiapp=$2 run=$3 neighbour=$4 runs=${5:-10}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a second user acts as the neighbour)"; exit 77; }
id mallory >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin mallory 2>/dev/null \
  || { echo "SKIP: no user mallory and no useradd"; exit 77; }
unset TALLY_PYTHONPATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
work=$(mktemp -d); chmod 755 "$work"
out=$work/out log=$work/log nb=
trap '[ -n "$nb" ] && kill $nb 2>/dev/null; rm -rf "$work"' EXIT
mkdir -m 777 "$out"; chmod 777 "$out"; touch "$log"; chown mallory "$log"
vict=()
for k in $(seq 1 30); do
  v=v$k; mkdir "$out/$v"
  case $((k % 3)) in
    0) chmod 755 "$out/$v"; echo precious >"$out/$v/keep" ;;
    1) chmod 755 "$out/$v" ;;
    2) chmod 700 "$out/$v" ;;
  esac
  vict+=("$v")
done
# the victims now, by inode (wherever the neighbour moved them): mode,
# owner, entries, contents; one pass (a loaded machine)
state() {
  /usr/bin/python3 - "$out" "$work/inodes" <<'PY'
import os, stat, sys
out, inos = sys.argv[1], [int(x) for x in open(sys.argv[2]).read().split()]
by = {}
for n in os.listdir(out):
    st = os.lstat(os.path.join(out, n))
    if stat.S_ISDIR(st.st_mode):
        by[st.st_ino] = (os.path.join(out, n), st)
for i in inos:
    if i not in by:
        print(i, "gone")
        continue
    p, st = by[i]
    ents = sorted(os.listdir(p))
    keep = open(os.path.join(p, "keep")).read().strip() if "keep" in ents else ""
    print(i, oct(st.st_mode), st.st_uid, ",".join(ents), keep)
PY
}
(cd "$out" && stat -c %i "${vict[@]}") >"$work/inodes"; state0=$(state)
setpriv --reuid=mallory --regid=mallory --clear-groups "$neighbour" adopt "$out" "$log" "${vict[@]}" &
nb=$!
for _ in $(seq 100); do grep -q watching "$log" && break; sleep 0.1; done
grep -q watching "$log" || { echo "the neighbour did not start"; exit 1; }
fail=0 wrote=0 said=0
bad() { echo "FAILED: $*"; fail=1; }
check() {   # WHAT ERRFILE WANT_RC RC
  [ "$4" = "$3" ] || bad "$1: exit status $4, want $3: $(cat "$2")"
  local now; now=$(state)
  [ "$now" = "$state0" ] || { bad "$1: a victim directory changed"; diff <(echo "$state0") <(echo "$now") | head; }
  if grep -Eq "written to .*\.h5$" "$2"; then wrote=$((wrote + 1)); return; fi
  grep -Eq "cannot create|could not be written|no measurement file written|stays in|trace not taken" "$2" \
    && { said=$((said + 1)); return; }
  bad "$1: neither written nor said why: $(cat "$2")"
}
for i in $(seq 1 "$runs"); do
  timeout 120 "$run" --output-dir="$out" --output-name="s$i.h5" -- "$app" 7 >/dev/null 2>"$work/err"
  check "serial $i" "$work/err" 7 $?
done
for i in 1 2 3; do
  timeout 120 mpirun --oversubscribe -np 2 "$run" --output-dir="$out" --output-name="m$i.h5" --exit-timeout=20 \
    -- "$mpiapp" 5 >/dev/null 2>"$work/err"
  check "mpi $i" "$work/err" 5 $?
done
if "$run" --help 2>&1 | grep -q -- --trace; then
  for i in 1 2 3; do
    timeout 120 "$run" --trace --output-dir="$out" --output-name="t$i.h5" -- "$app" 7 >/dev/null 2>"$work/err"
    check "traced $i" "$work/err" 7 $?
  done
fi
echo "$(grep -vc watching "$log") directories swapped in; $wrote runs wrote, $said said why not"
[ $fail = 0 ] && echo "all adopted-directory checks passed"
exit $fail
