#!/usr/bin/env bash
# run_full_disk.sh MPI_APP TALLY_RUN - a job never hangs at its end
# 2 ranks under mpirun, each rank's exit status seen by a
# shell around tally-run:
#   full:  the output directory is a full 1 MiB tmpfs: both ranks exit
#          well within TALLY_EXIT_TIMEOUT with the application's status 5,
#          one message says the job file could not be written, no
#          temporary file is left behind;
#   room:  the same tmpfs with room: the job file is written (control);
#   stall: rank 1 stops before the collective write
#          (TALLY_INTERNAL_TEST_STALL_RANK=1): both ranks return from
#          MPI_Finalize after TALLY_EXIT_TIMEOUT=4 s, the application
#          goes on and ends with its own status 5.
set -u
analysis=$(cd "$(dirname "$0")/../../analysis" && pwd)   # tally.raw reads the files (issue 40)
app=$1 run=$2
[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d); mnt=$dir/mnt; mkdir "$mnt"
mount -t tmpfs -o size=1M tmpfs "$mnt" 2>/dev/null || { rmdir "$mnt" "$dir"; echo "cannot mount a tmpfs here"; exit 77; }
trap 'umount "$mnt"; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
# job OUT_NAME EXTRA_ENV...: runs the 2-rank job, milliseconds in $ms
job() {
  local name=$1; shift
  local t0=$(date +%s%N)
  env "$@" timeout 60 mpirun --oversubscribe -np 2 sh -c '"$0" "$@"; echo "rank status $?"' \
    "$run" --output-dir="$mnt" --output-name="$name" --exit-timeout=4 -- "$app" 5 >out.txt 2>err.txt
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  cat out.txt err.txt
  [ "$(grep -c '^rank status 5$' out.txt)" = 2 ] || bad "$name: both ranks must end with the app's status 5"
}

job room.h5
PYTHONPATH="$analysis" /usr/bin/python3 -c "import sys, tally; f=tally.raw(sys.argv[1]); assert f.attrs['nranks']==2" "$mnt/room.h5" \
  || bad "room: job file not written"
size=$(stat -c %s "$mnt/room.h5")
rm -f "$mnt"/*

# two jobs at once with room for one and a half files: a job that fails
# leaves nothing on the disk (its incomplete file is removed, so partial
# files have room), and every message says why (never "see above")
dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
rm -f "$mnt/fill"; free=$(( $(stat -f -c '%a * %S' "$mnt") ))
dd if=/dev/zero of="$mnt/fill" bs=1k count=$(( (free - size * 3 / 2) / 1024 )) 2>/dev/null
for k in 1 2; do
  env timeout 60 mpirun --oversubscribe -np 2 "$run" --output-dir="$mnt" --output-name="race$k.h5" --exit-timeout=4 \
    -- "$app" 5 >"race$k.out" 2>"race$k.err" &
  sleep 0.5   # two mpiruns starting together race for Open MPI's session directory
done
wait
cat race1.err race2.err
ls -la "$mnt"
ls -a "$mnt" | grep -q tmp && bad "race: a failed write left its temporary file on the full disk"
grep -q "see above" race1.err race2.err && bad "race: a message says 'see above'"
for k in 1 2; do
  grep -q "race$k.h5 could not be written ([A-Za-z]" "race$k.err" || grep -q "written to .*race$k" "race$k.err" \
    || bad "race: job $k neither wrote its file nor said why"
done
rm -f "$mnt"/*

dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
job full.h5
echo "full disk: the job took $ms ms"
[ $ms -lt 4000 ] || bad "full: took $ms ms; must not wait for the watchdog"
[ "$(grep -c 'job file .*full.h5 could not be written (No space left on device)' err.txt)" = 1 ] \
  || bad "full: not one clear message"
ls "$mnt" | grep -v '^fill$' && bad "full: files left on the full disk"
grep -q "written to" err.txt && bad "full: 'written' printed"
rm -f "$mnt/fill"

job stall.h5 TALLY_INTERNAL_TEST_STALL_RANK=1
echo "stalled rank: the job took $ms ms"
[ $ms -lt 15000 ] || bad "stall: took $ms ms"
[ "$(grep -c 'app done' out.txt)" = 2 ] || bad "stall: the application did not go on after MPI_Finalize"
grep -q "TALLY_EXIT_TIMEOUT=4" err.txt || bad "stall: no message"
[ $fail = 0 ] && echo "full disk / stalled rank: all checks passed"
exit $fail
