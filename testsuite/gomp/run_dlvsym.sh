#!/usr/bin/env bash
# run_dlvsym.sh APP SHIM PRELOAD PYTHONPATH [plain] - a tool chaining
# GOMP_parallel with dlvsym(RTLD_NEXT, ..., "GOMP_4.0") preloaded in front
# of Tally: the tool sees every region (its next definition is Tally's) and
# Tally records them all, "omp parallel" visits on the main thread = the
# program's regions.  "plain": the shim alone (no Tally) must reach libgomp,
# the self-check that the shim chains at all.
set -u
app=$1 shim=$2 pre=$3 pypath=$4 mode=${5:-tally}
/usr/bin/python3 -c "import h5py, pandas" 2>/dev/null || { echo "SKIP: python3-h5py or pandas missing"; exit 77; }
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
export DLVSYM_SHIM_OUT=$dir/shim.txt OMP_NUM_THREADS=2 TALLY_OUTPUT_NAME=chain.h5
# a sanitizer build: its runtime must come first (tally-run does the same)
asan=$(ldd "$shim" "$pre" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "; exit}')
if [ "$mode" = plain ]; then
  timeout 60 env LD_PRELOAD="$asan$shim" "$app" >out.txt || { echo "program failed"; exit 1; }
  read -r calls next <shim.txt; read -r want _ <out.txt
  echo "shim alone: $calls calls, next $next"
  [ "$calls" = "$want" ] && [[ $next == *libgomp* ]] || { echo "FAIL: the shim does not chain to libgomp"; exit 1; }
  exit 0
fi
timeout 60 env LD_PRELOAD="$asan$shim $pre" "$app" >out.txt || { echo "program failed"; exit 1; }
read -r calls next <shim.txt; read -r want _ <out.txt
echo "shim: $calls calls, next definition in $next"
[ "$calls" = "$want" ] || { echo "FAIL: shim saw $calls of $want regions"; exit 1; }
[[ $next == *libtally-preload* ]] || { echo "FAIL: dlvsym(RTLD_NEXT, GOMP_parallel, GOMP_4.0) gives $next, not Tally"; exit 1; }
exec /usr/bin/python3 - "$pypath" chain.h5 "$want" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tally.reader import read
run = read(sys.argv[2])
reg, st = run.table("regions"), run.table("region_stats")
ids = set(reg[reg["kind"] == 3]["id"])
v = int(st[(st["thread"] == 0) & st["region"].isin(ids)]["visits"].sum())
print(f"Tally: {v} omp parallel visits on the main thread, want {sys.argv[3]}")
sys.exit(0 if v == int(sys.argv[3]) else 1)
PY
