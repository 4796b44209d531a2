#!/usr/bin/env bash
# run_swap_race.sh APP MPI_APP TALLY_RUN SWAPPER [RUNS] [JOBS] - a neighbour who
# swaps every name Tally creates (issue 35).  The output directory is open
# to all (0777, not sticky); SWAPPER (swapper.c), run as `nobody` when this
# runs as root (else as this user), replaces every file and directory that
# appears in it by a link to a victim file or a victim directory at once.
# RUNS serial runs (default 100, 4 at a time), JOBS (default 10) MPI jobs of 2 ranks and
# JOBS jobs of 2 processes without MPI (RANK/WORLD_SIZE): the victims are never touched
# (content, mtime, the directory stays empty), the exit status is the
# program's, and every "written to FILE" names a file Tally's reader takes
# (a job without MPI whose piece could not be written: a partial one) (found under the name the swapper moved it to, if it did),
# else the run says it could not write; at least one file is written (a
# Tally that writes nothing fails: safety_swap_race_planted).  No run
# starts after SAFETY_BUDGET s (default 400; ctest's limit is 600): then,
# or on SIGTERM, it ends with an account of what ran and what was left.
set -u
app=$1 mpiapp=$2 run=$3 swapper=$4 runs=${5:-100} jobs=${6:-10}
budget=${SAFETY_BUDGET:-400} ran=0 total=$((${5:-100} + 2 * ${6:-10}))
pypath=${TALLY_PYTHONPATH:?}; unset TALLY_PYTHONPATH   # not a setting of the runs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
work=$(mktemp -d); chmod 755 "$work"
out=$work/out; logd=$work/log
mkdir -m 777 "$out" "$logd"; chmod 777 "$out" "$logd"
echo precious >"$work/victim"; mkdir -m 755 "$work/victimdir"
touch -d 2020-01-01 "$work/victim"; vmtime=$(stat -c %Y "$work/victim")
as=(); who=$(id -un)
if [ "$(id -u)" = 0 ] && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups); who=nobody
fi
"${as[@]}" "$swapper" "$out" "$work/victim" "$work/victimdir" "$logd/log" &
swp=$!
account() { echo "runs: $ran of $total ran, $((total - ran)) left; ${SECONDS} s; load $(cut -d' ' -f1-3 /proc/loadavg)"; }
trap 'echo "FAILED: stopped by a signal"; account; exit 1' TERM INT HUP
trap 'kill $swp 2>/dev/null; rm -rf "$work"' EXIT
# past the budget no run starts: says so once, and fails
spent() {
  [ $SECONDS -lt "$budget" ] && return 1
  [ -z "${said_spent:-}" ] && bad "the budget of $budget s was spent"; said_spent=1
}
for _ in $(seq 50); do grep -q watching "$logd/log" 2>/dev/null && break; sleep 0.1; done
grep -q watching "$logd/log" || { echo "the swapper did not start"; exit 1; }
echo "swapper runs as $who"
fail=0 wrote=0 said=0 files=()
bad() { echo "FAILED: $*"; fail=1; }

victims() {
  [ "$(cat "$work/victim")" = precious ] && [ "$(stat -c %Y "$work/victim")" = "$vmtime" ] \
    || bad "$1: the victim file was written"
  [ -z "$(ls -A "$work/victimdir")" ] || bad "$1: files appeared in the victim directory: $(ls -A "$work/victimdir")"
}
# where the data of "written to PATH" is now: PATH, or the name the swapper moved it to
# (the swapper renames, links, then logs: a name that is missing or already
# its link waits for the log line, up to 10 s on a loaded machine; twice
# under load the check read the victim through the fresh link)
where() {
  local base=${1##*/} moved k
  for k in $(seq 100); do
    moved=$(awk -v n="$base" '$1 == n { m = $2 } END { print m }' "$logd/log")
    { [ -n "$moved" ] || { [ -e "$1" ] && [ ! -L "$1" ]; }; } && break
    sleep 0.1
  done
  if [ -n "$moved" ]; then echo "$out/$moved"; else echo "$1"; fi
}
outcome() {   # NAME ERRFILE
  local n=0 p
  while IFS= read -r p; do
    files+=("$(where "$p")"); n=$((n + 1))
  done < <(sed -n 's/.*written to \([^ ]*\.h5\)$/\1/p' "$2" | grep -v '\.partial\.h5$')
  if [ $n -gt 0 ]; then wrote=$((wrote + 1)); return; fi
  if grep -Eq "cannot create|could not be written|no measurement file written|could not be merged|cannot rename|replaced by someone else" "$2"; then
    said=$((said + 1)); return
  fi
  bad "$1: neither written nor said why: $(cat "$2")"
}

# serial runs 4 at a time (each its own name; the swapper races them all)
for first in $(seq 1 4 "$runs"); do
  spent && break
  last=$((first + 3 < runs ? first + 3 : runs)); batch=()
  for i in $(seq "$first" "$last"); do
    ( "$run" --output-dir="$out" --output-name="s$i.h5" -- "$app" 7 >/dev/null 2>"$work/err$i"; echo $? >"$work/rc$i" ) &
    batch+=($!)
  done
  wait "${batch[@]}"
  for i in $(seq "$first" "$last"); do
    ran=$((ran + 1)); rc=$(cat "$work/rc$i" 2>/dev/null || echo none)
    [ "$rc" = 7 ] || bad "serial $i: exit status $rc, want 7"
    victims "serial $i"; outcome "serial $i" "$work/err$i"
  done
done
echo "serial: $wrote written, $said said why not (4 runs at a time)"
for i in $(seq 1 "$jobs"); do
  spent && break; ran=$((ran + 1))
  timeout 120 mpirun --oversubscribe -np 2 "$run" --output-dir="$out" --output-name="m$i.h5" --exit-timeout=10 \
    -- "$mpiapp" 5 >/dev/null 2>"$work/err"
  rc=$?; [ $rc = 5 ] || { bad "mpi $i: exit status $rc, want 5"; cat "$work/err"; }
  victims "mpi $i"; outcome "mpi $i" "$work/err"
done
for i in $(seq 1 "$jobs"); do
  spent && break; ran=$((ran + 1))
  ( RANK=0 WORLD_SIZE=2 "$run" --output-dir="$out" --output-name="j$i.h5" -- "$app" 7 & p0=$!
    RANK=1 WORLD_SIZE=2 "$run" --output-dir="$out" --output-name="j$i.h5" -- "$app" 7 & p1=$!
    wait $p0; a=$?; wait $p1; b=$?; [ $a = 7 ] && [ $b = 7 ] ) >/dev/null 2>"$work/err" \
    || bad "job $i: an exit status is not 7"
  victims "job $i"; outcome "job $i" "$work/err"
done
echo "all: $wrote runs wrote their file, $said said why not; $(grep -vc watching "$logd/log") names swapped"
kill -0 $swp 2>/dev/null || bad "the swapper died: no race was run"
account
TALLY_PYTHONPATH=$pypath /usr/bin/python3 "$(dirname "$0")/check_files.py" any "${#files[@]}" "${files[@]}" || fail=1
[ $fail = 0 ] && echo "all swap-race checks passed"
exit $fail
