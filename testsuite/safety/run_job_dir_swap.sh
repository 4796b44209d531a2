#!/usr/bin/env bash
# run_job_dir_swap.sh APP TALLY_RUN NEIGHBOUR [RUNS] - the whole job
# directory swapped during a job of 2 processes without MPI (issue 47), as
# root with a neighbour `mallory` (made with useradd when absent) who can
# write the output directory: 0777 not sticky ("world"), then 2770 of her
# group ("group").  NEIGHBOUR (neighbour.c, mode parts) moves every job
# directory (`<file>.<id>.parts`) away the moment it appears and puts in
# its place, in turn, a link to her directory or a directory of hers open
# to all, each holding links (rank00000.h5, rank00001.h5, merging) to
# root's victim files.  RUNS jobs per mode (default 3), the two processes
# started 0.3 s apart (RANK/WORLD_SIZE, one subshell each job; rank 0 waits
# 1 s before its program, so that its piece is not older than rank 1's start:
# pieces written before a rank started are an earlier job's, rt_job_dir.c,
# and at quiet load rank 0 ended within the 0.3 s), after one
# job per mode before the neighbour starts (its file must be written).  Only what
# Tally promises is asserted:
#   - the victims are never touched (size, time, mode, owner, content);
#   - every process ends with the program's status (7);
#   - each job either has its file in the output directory (a regular
#     file the reader takes, holding both processes' pids) or says so:
#     every process that wrote no piece in place says why in one line
#     (the job directory refused or replaced), and no process says more
#     than two lines (its piece, the job file);
#   - nothing of Tally's is written in her directories but the pieces a
#     process said it left there.
# What happened is counted: swaps (links, directories), jobs written,
# jobs refused.  Bounded: every job is killed at 60 s.
set -u
app=$1 run=$2 neighbour=$3 runs=${4:-3}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a second user acts as the neighbour)"; exit 77; }
id mallory >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin mallory 2>/dev/null \
  || { echo "SKIP: no user mallory and no useradd"; exit 77; }
pypath=${TALLY_PYTHONPATH:-}; unset TALLY_PYTHONPATH   # not a setting of the runs
unset TORCHELASTIC_RUN_ID SLURM_JOB_ID PMIX_NAMESPACE OMPI_MCA_ess_base_jobid MASTER_ADDR MASTER_PORT RANK WORLD_SIZE
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
here=$(cd "$(dirname "$0")" && pwd)
as=(setpriv --reuid=mallory --regid=mallory --clear-groups)
work=$(mktemp -d); chmod 755 "$work"
nb=
trap '[ -n "$nb" ] && kill $nb 2>/dev/null; rm -rf "$work"' EXIT
mkdir -m 755 "$work/victims"
names=(rank00000.h5 rank00001.h5 merging)
for k in "${!names[@]}"; do echo precious >"$work/victims/v$k"; done
touch -d 2020-01-01 "$work/victims"/v*
sum0=$(cd "$work/victims" && stat -c '%n %s %Y %a %U' v* && cat v*)
evil=$work/evil; mkdir -p "$evil"
for k in "${!names[@]}"; do ln -s "$work/victims/v$k" "$evil/${names[$k]}"; done
chown -R -h mallory:mallory "$evil"
fail=0 jobs=0 written=0 refused=0 t0=$(date +%s)
bad() { echo "FAILED: $*"; fail=1; }
victims() {
  [ "$(cd "$work/victims" && stat -c '%n %s %Y %a %U' v* && cat v*)" = "$sum0" ] \
    || { bad "$1: a victim file was touched"; ls -l "$work/victims"; }
}
job() {   # MODE I OUT
  local what="$1 job $2" out=$3 d=$work/job-$1-$2 f r n
  mkdir "$d"
  ( cd "$d" || exit 1
    RANK=0 WORLD_SIZE=2 timeout -s KILL 60 "$run" --output-dir="$out" --output-name="j$2.h5" -- \
      /bin/sh -c 'echo "pid $$" >pid.0; sleep 1; exec "$0" 7' "$app" >/dev/null 2>err.0 &
    p0=$!
    sleep 0.3
    RANK=1 WORLD_SIZE=2 timeout -s KILL 60 "$run" --output-dir="$out" --output-name="j$2.h5" -- \
      /bin/sh -c 'echo "pid $$" >pid.1; exec "$0" 7' "$app" >/dev/null 2>err.1
    echo $? >rc.1; wait $p0; echo $? >rc.0 )
  jobs=$((jobs + 1))
  for r in 0 1; do
    [ "$(cat "$d/rc.$r")" = 7 ] || bad "$what: process $r ended with $(cat "$d/rc.$r"), want 7"
    n=$(grep -c '^tally' "$d/err.$r")
    [ "$n" -le 2 ] || bad "$what: process $r said $n lines: $(cat "$d/err.$r")"
  done
  victims "$what"
  f=$(sed -n 's/.*measurement of 2 processes .* written to \(.*\)$/\1/p' "$d"/err.* | tail -1)
  if [ -n "$f" ]; then
    [ -f "$f" ] && [ ! -L "$f" ] && [ "$(dirname "$f")" = "$out" ] \
      || bad "$what: said written to $f, which is not a file in the output directory"
    if [ -n "$pypath" ] && [ -f "$f" ]; then
      PYTHONPATH=$pypath /usr/bin/python3 - "$f" "$(cut -d' ' -f2 "$d/pid.0")" "$(cut -d' ' -f2 "$d/pid.1")" <<'PY' \
        || bad "$what: the job file is not the job's"
import sys
import tally
run = tally.read(sys.argv[1])
pids = sorted(int(x) for x in run.tables["ranks"]["pid"])
want = sorted(int(x) for x in sys.argv[2:])
print("  %s: pids %s, want %s" % (sys.argv[1].rsplit("/", 1)[-1], pids, want))
sys.exit(0 if pids == want else 1)
PY
    fi
    written=$((written + 1)); return
  fi
  # no job file: each process whose piece is not in the job directory says why
  for r in 0 1; do
    grep -Eq "job directory .*(not a directory of this user|renamed or replaced)|cannot create|is in .*\.parts|not merged|could not be merged" \
      "$d/err.$r" || bad "$what: process $r: no job file and nothing said: $(cat "$d/err.$r")"
  done
  refused=$((refused + 1))
  [ -z "${VERBOSE:-}" ] || echo "  $what: $(cat "$d"/err.* | tr '\n' ' ' | cut -c1-400)"
}

for mode in world group; do
  out=$work/out-$mode; log=$work/log-$mode
  mkdir "$out"; touch "$log"; chown mallory "$log"
  if [ $mode = world ]; then chmod 0777 "$out"; else chgrp mallory "$out"; chmod 2770 "$out"; fi
  # the control: no neighbour yet, the job's file is written
  w0=$written; job $mode 0 "$out"
  [ $written = $((w0 + 1)) ] || bad "$mode: without the neighbour the job wrote no file"
  "${as[@]}" "$neighbour" parts "$out" "$log" "$evil" &
  nb=$!
  for _ in $(seq 100); do grep -q watching "$log" && break; sleep 0.1; done
  grep -q watching "$log" || { echo "the neighbour did not start"; exit 1; }
  for i in $(seq 1 "$runs"); do job $mode "$i" "$out"; done
  kill $nb; wait $nb 2>/dev/null; nb=
  # her directories (at the job directories' names) hold nothing of Tally's
  for x in "$out"/*.parts; do
    [ -d "$x" ] && [ ! -L "$x" ] && [ "$(stat -c %U "$x")" = mallory ] || continue
    extra=$(ls -A "$x" | grep -vxE 'rank0000[01]\.h5|merging')
    [ -z "$extra" ] || bad "$mode: her directory $(basename "$x") holds what Tally wrote: $(echo $extra)"
  done
  echo "$mode: $(grep -c ' link$' "$log") job directories swapped for a link, $(grep -c ' dir$' "$log") for her directory"
done
echo "$jobs jobs (2 without the neighbour) in $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg): $written wrote their job file, $refused said why not ($(cat "$work"/job-*/err.* | grep -c 'not a directory of this user') refusals of the job directory, $(cat "$work"/job-*/err.* | grep -c 'renamed or replaced') of a name swapped after the check); victims untouched: $([ $fail = 0 ] && echo yes || echo no)"
[ $fail = 0 ] && echo "all job-directory swap checks passed"
exit $fail
