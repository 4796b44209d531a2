#!/usr/bin/env bash
# run_clang_names.sh SOURCE TALLY_RUN PYTHONPATH - a clang-built OpenMP
# program (LLVM's libomp, OMPT; clang emits no .debug_aranges) under
# tally-run: each "omp parallel" region is named "function (file:line)",
# and that file:line is what addr2line gives for its raw address (the call
# before the return address in regions.address).  Skips without clang or
# its OpenMP (libomp-dev).
set -u
src=$1 run=$2 pypath=$3
command -v clang >/dev/null && command -v addr2line >/dev/null || { echo "SKIP: clang or addr2line missing"; exit 77; }
/usr/bin/python3 -c "import h5py, pandas" 2>/dev/null || { echo "SKIP: python3-h5py or pandas missing"; exit 77; }
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
cp "$src" omp_clang.c
clang -fopenmp -g -O1 omp_clang.c -o omp_clang 2>cc.txt || { cat cc.txt; echo "SKIP: clang cannot build OpenMP (libomp-dev)"; exit 77; }
unset TALLY_LIBOMP OMP_NUM_THREADS
timeout 120 "$run" --output-name=c.h5 -- ./omp_clang >out.txt 2>err.txt || { cat err.txt; echo "program failed"; exit 1; }
exec /usr/bin/python3 - "$pypath" c.h5 <<'PY'
import subprocess
import sys
sys.path.insert(0, sys.argv[1])
from tally.reader import read
reg = read(sys.argv[2]).table("regions")
par = reg[reg["kind"] == 3]
fail = 0 if len(par) == 2 else 1
print(f"{len(par)} parallel regions, want 2")
for name, addr in zip(par["name"], par["address"]):
    mod, off = addr.rsplit("+0x", 1)
    line = subprocess.run(["addr2line", "-e", mod, hex(int(off, 16) - 1)], capture_output=True,
                          text=True).stdout.split()[0]
    want = line.rsplit("/", 1)[-1]
    ok = f"({want})" in name.split(" in ")[0]
    print(f"{'ok' if ok else 'WRONG'}: {name!r} at {addr}, addr2line {want}")
    fail |= not ok
sys.exit(fail)
PY
