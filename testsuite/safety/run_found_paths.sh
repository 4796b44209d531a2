#!/usr/bin/env bash
# run_found_paths.sh PRELOAD PLANTED_LIB PYTHON_PICK MPI_APP - nothing Tally loads or
# runs is found by a relative or searched path (issue 47):
#  1. the preload given by a relative path (LD_PRELOAD=lib/...), an MPI
#     program changes directory before MPI_Finalize: the writer library is the one beside
#     the preload, not lib/libtally-h5.so of the new directory (planted);
#  2. a writer library in a directory others may write: not loaded, one line;
#  3. tally-report's launcher (tally.launch) with no configured Python:
#     python3 of a PATH directory others may write (after /usr/bin's place)
#     and of '.' never runs; one line, exit 2;
#  4. tally-run's choice (python.c) the same.
# A planted library or interpreter leaves a marker file when run.
set -u
preload=$(readlink -f "$1") planted=$(readlink -f "$2") pick=$(readlink -f "$3") mpiapp=$(readlink -f "$4")
py=/usr/bin/python3
$py -c "import h5py" 2>/dev/null || { echo "SKIP: python3-h5py missing"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
fail=0
say() { echo "$1"; case $1 in FAILED*) fail=1 ;; esac; }
real=$(dirname "$(readlink -f "$preload")")
# a sanitizer build: its runtime first in LD_PRELOAD (tally-run does the same)
asan=$(ldd "$preload" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "; exit}')
pkg=${TALLY_PYTHONPATH:-}
unset TALLY_PYTHONPATH

# 1. relative preload, an MPI program (its writer is loaded at MPI_Finalize)
#    that changes directory before it: the new directory holds a planted
#    lib/libtally-preload.so and lib/libtally-h5.so
mkdir -p "$w/run/lib" "$w/run/evil/lib" "$w/out"
ln -s "$real/libtally-preload.so" "$w/run/lib/libtally-preload.so"
cp "$planted" "$w/run/evil/lib/libtally-h5.so"
cp "$planted" "$w/run/evil/lib/libtally-preload.so"
export PLANTED_MARKER=$w/marker1
(cd "$w/run" && SAFETY_CHDIR=evil LD_PRELOAD="${asan}lib/libtally-preload.so" TALLY_OUTPUT_DIR=$w/out OMPI_ALLOW_RUN_AS_ROOT=1 \
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 /usr/bin/timeout 120 "$mpiapp" 0 >/dev/null 2>"$w/err1")
rc=$?
cat "$w/err1"
[ $rc -eq 0 ] || say "FAILED: relative preload: exit status $rc"
[ ! -e "$w/marker1" ] && say "ok: relative preload: the planted lib/libtally-h5.so of the new directory was not loaded" \
  || say "FAILED: relative preload: the planted lib/libtally-h5.so was loaded"
n=$(ls "$w/out" | grep -c '\.h5$')
[ "$n" = 1 ] && say "ok: relative preload: the measurement file written ($(ls "$w/out"))" \
  || say "FAILED: relative preload: $n measurement files ($(ls "$w/out"))"

# 2. the writer library's directory writable by others
mkdir -p "$w/open" "$w/out2"
cp "$real/libtally-preload.so" "$w/open/"
cp "$planted" "$w/open/libtally-h5.so"
chmod 0777 "$w/open"
export PLANTED_MARKER=$w/marker2
LD_PRELOAD="${asan}$w/open/libtally-preload.so" TALLY_OUTPUT_DIR=$w/out2 /usr/bin/timeout 60 /bin/true 2>"$w/err2"
cat "$w/err2"
[ ! -e "$w/marker2" ] && say "ok: open directory: its libtally-h5.so was not loaded" \
  || say "FAILED: open directory: its libtally-h5.so was loaded"
n=$(grep -c 'not loaded' "$w/err2")
[ "$n" = 1 ] && say "ok: open directory: said in one line" || say "FAILED: open directory: $n lines say so"

# 3./4. planted python3 in a directory others may write, and in '.'
mkdir -p "$w/evilbin" "$w/cwd"
for d in "$w/evilbin" "$w/cwd"; do
  printf '#!/bin/sh\n: > "%s/marker3"\nexit 0\n' "$w" > "$d/python3"
  chmod 0755 "$d/python3"
done
chmod 0777 "$w/evilbin"
# -S: the running interpreter without site-packages (no h5py) and no
# configured one: only PATH could offer another
(cd "$w/cwd" && PATH=/nonexistent:.:"$w/evilbin":bin /usr/bin/timeout 60 $py -I -S -c "
import sys; sys.path.insert(0, '$pkg')
import tally.launch as L
L.CONFIGURED = ''
sys.exit(L.start('$pkg', ['--help']))" >"$w/out3" 2>"$w/err3")
rc=$?
cat "$w/err3"
[ ! -e "$w/marker3" ] && say "ok: tally-report: no planted python3 ran" || say "FAILED: tally-report: a planted python3 ran"
[ $rc -eq 2 ] && [ "$(wc -l <"$w/err3")" = 1 ] && ! grep -q Traceback "$w/err3" \
  && say "ok: tally-report: exit 2, one line" || say "FAILED: tally-report: exit $rc, $(wc -l <"$w/err3") lines"
rm -f "$w/marker3"
got=$(cd "$w/cwd" && PATH=.:"$w/evilbin"::bin /usr/bin/timeout 60 "$pick")
[ ! -e "$w/marker3" ] && say "ok: tally-run: no planted python3 ran" || say "FAILED: tally-run: a planted python3 ran"
case $got in
  ""|"$w"*|python3|./*) say "FAILED: tally-run: chose $got" ;;
  *) say "ok: tally-run: chose $got (not a planted one)" ;;
esac
# self-test: a python3 in a directory closed to others is taken
chmod 0755 "$w/evilbin"
got=$(cd "$w/cwd" && PATH="$w/evilbin" /usr/bin/timeout 60 "$pick")
[ "$got" = "$w/evilbin/python3" ] && [ -e "$w/marker3" ] && say "ok: self-test: a closed directory's python3 is taken (and leaves its marker)" \
  || say "FAILED: self-test: a closed directory's python3 not taken ($got), or no marker"
[ $fail = 0 ] && echo "found_paths: all checks passed" || echo "found_paths: FAILED"
exit $fail
