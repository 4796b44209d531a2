#!/usr/bin/env bash
# run_serial_test.sh STYLE APP TALLY_RUN CHECKER [SHIM] - serial_app (no MPI)
# under the runtime, then the file checks.
#   STYLE: tally-run (tally-run --libomp=auto -- app), preload (LD_PRELOAD),
#          reenter (LD_PRELOAD=SHIM:preload: the start-up is re-entered)
set -u
style=$1 app=$2 run=$3 checker=$4 shim=${5:-}
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMP_NUM_THREADS=3 ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
pre=$(dirname "$run")/libtally-preload.so
gomp=$(dirname "$run")/libomp-as-libgomp
# a sanitizer build: ASan's runtime must be preloaded first (tally-run does it)
asan=$(ldd "$pre" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "}')
[ -e "$gomp/libgomp.so.1" ] || { echo "no LLVM libomp: OpenMP threads cannot be measured"; exit 77; }
case $style in
  tally-run) timeout 60 "$run" --output-name=serial.h5 --libomp=auto -- "$app" ;;
  preload)   timeout 60 env TALLY_OUTPUT_NAME=serial.h5 LD_LIBRARY_PATH="$gomp" LD_PRELOAD="$asan$pre" "$app" ;;
  reenter)   timeout 60 env TALLY_OUTPUT_NAME=serial.h5 LD_LIBRARY_PATH="$gomp" LD_PRELOAD="$asan$shim $pre" "$app" ;;
esac
rc=$?
echo "exit status: $rc"
[ $rc -eq 0 ] || { echo "program failed or hung (124 = killed by timeout)"; exit 1; }
[ -f serial.h5 ] || { echo "no serial.h5 written"; ls -l; exit 1; }
exec /usr/bin/python3 "$checker" serial.h5 3
