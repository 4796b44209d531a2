#!/usr/bin/env bash
# run_trace_swap.sh APP MPI_APP TALLY_RUN NEIGHBOUR [RUNS [MPI_RUNS]] - the trace
# directory swap (issue 47), as root with a neighbour `mallory` (made with
# useradd when absent) who can write the output directory: 0777 not
# sticky ("world"), then 2770 of her group ("group").  NEIGHBOUR
# (neighbour.c, mode trace) replaces every directory whose name holds
# ".trace" by a link to her directory, whose traces.otf2, traces.def,
# traces/N.evt and traces/N.def are links to root's victim files.  RUNS
# serial runs (default 5) and MPI_RUNS (default 3) MPI jobs of 2 ranks
# per mode under
# tally-run --trace: the victims are never touched, the exit status is the
# program's, and each run either says where its archive is (a directory
# holding traces.otf2, found under the name the neighbour moved it to if
# it did) or that the trace was not taken / stays elsewhere.
set -u
app=$1 mpiapp=$2 run=$3 neighbour=$4 runs=${5:-5} mpiruns=${6:-3}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a second user acts as the neighbour)"; exit 77; }
id mallory >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin mallory 2>/dev/null \
  || { echo "SKIP: no user mallory and no useradd"; exit 77; }
unset TALLY_PYTHONPATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
as=(setpriv --reuid=mallory --regid=mallory --clear-groups)
work=$(mktemp -d); chmod 755 "$work"
nb=
trap '[ -n "$nb" ] && kill $nb 2>/dev/null; rm -rf "$work"' EXIT
mkdir -m 755 "$work/victims"
names=(traces.otf2 traces.def traces/0.evt traces/0.def traces/1.evt traces/1.def)
for k in "${!names[@]}"; do echo precious >"$work/victims/v$k"; done
touch -d 2020-01-01 "$work/victims"/v*
sum0=$(cd "$work/victims" && stat -c '%n %s %Y %a %U' v* && cat v*)
evil=$work/evil; mkdir -p "$evil/traces"
for k in "${!names[@]}"; do ln -s "$work/victims/v$k" "$evil/${names[$k]}"; done
chown -R -h mallory:mallory "$evil"
fail=0 runsdone=0 wrote=0 said=0 t0=$(date +%s)
bad() { echo "FAILED: $*"; fail=1; }
victims() {
  [ "$(cd "$work/victims" && stat -c '%n %s %Y %a %U' v* && cat v*)" = "$sum0" ] \
    || { bad "$1: a victim file was touched"; ls -l "$work/victims"; }
}
outcome() {   # WHAT ERRFILE LOG OUT
  local d moved
  d=$(sed -n 's/.*trace written to \(.*\)\/traces\.otf2$/\1/p' "$2" | tail -1)
  if [ -n "$d" ]; then
    moved=$(awk -v n="${d##*/}" '$1 == n { m = $2 } END { print m }' "$3")
    [ -n "$moved" ] && d=$4/$moved
    [ -d "$d" ] && [ ! -L "$d" ] && [ -f "$d/traces.otf2" ] && [ ! -L "$d/traces.otf2" ] \
      || bad "$1: said written to $d, which holds no archive"
    wrote=$((wrote + 1)); return
  fi
  grep -Eq "trace not taken|trace archive stays in|left incomplete" "$2" && { said=$((said + 1)); return; }
  bad "$1: neither written nor said why: $(cat "$2")"
}

for mode in world group; do
  out=$work/out-$mode; log=$work/log-$mode
  mkdir "$out"; touch "$log"; chown mallory "$log"
  if [ $mode = world ]; then chmod 0777 "$out"; else chgrp mallory "$out"; chmod 2770 "$out"; fi
  "${as[@]}" "$neighbour" trace "$out" "$log" "$evil" &
  nb=$!
  for _ in $(seq 100); do grep -q watching "$log" && break; sleep 0.1; done
  grep -q watching "$log" || { echo "the neighbour did not start"; exit 1; }
  for i in $(seq 1 "$runs"); do
    timeout 120 "$run" --trace --output-dir="$out" --output-name="s$i.h5" -- "$app" 7 >/dev/null 2>"$work/err"
    rc=$?; [ $rc = 7 ] || bad "$mode serial $i: exit status $rc, want 7: $(cat "$work/err")"
    victims "$mode serial $i"; outcome "$mode serial $i" "$work/err" "$log" "$out"; runsdone=$((runsdone + 1))
  done
  for i in $(seq 1 "$mpiruns"); do
    timeout 120 mpirun --oversubscribe -np 2 "$run" --trace --output-dir="$out" --output-name="m$i.h5" \
      --exit-timeout=20 -- "$mpiapp" 5 >/dev/null 2>"$work/err"
    rc=$?; [ $rc = 5 ] || bad "$mode mpi $i: exit status $rc, want 5: $(cat "$work/err")"
    victims "$mode mpi $i"; outcome "$mode mpi $i" "$work/err" "$log" "$out"; runsdone=$((runsdone + 1))
  done
  kill $nb; wait $nb 2>/dev/null; nb=
  echo "$mode: $(grep -vc watching "$log") directories swapped"
done
echo "$runsdone runs in $(( $(date +%s) - t0 )) s (load $(cut -d' ' -f1-3 /proc/loadavg)): $wrote wrote their archive, $said said why not"
[ $fail = 0 ] && echo "all trace-swap checks passed"
exit $fail
