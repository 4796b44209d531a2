#!/usr/bin/env bash
# run_rt_many.sh APP TALLY_RUN N - per-kernel values under the runtime with
# no ceiling: APP N launches N identical small kernels under tally-run with
# one cuda::: counter; the file's gpu_kernels row of that kernel must have
# N launches, min == max > 0 and total == N x min (a launch without its
# value would lower the launches or the total).  77 without a GPU.
# PY: a python3 with h5py (default python3).
set -u
analysis=${TLY_TEST_PYTHONPATH:-$(cd "$(dirname "$0")/../../analysis" && pwd)}   # tally.raw reads the files
app=$1 run=$2 n=$3
PY=${PY:-python3}
. "$(dirname "$0")/gpu_present.sh"
$PY -c "import h5py" 2>/dev/null || { echo "FAIL: $PY has no h5py (set PY)"; exit 1; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
timeout 250 "$run" --events=cuda:::smsp__inst_executed.sum --output-name=many.h5 -- "$app" "$n" || exit 1
PYTHONPATH="$analysis" $PY - "$n" <<'PY'
import sys, tally
n = int(sys.argv[1])
with tally.raw("many.h5") as f:
    rows = [r for r in f["gpu_kernels"][:] if b"work" in r["kernel"]]
for r in rows:
    print(r["kernel"].decode()[:40], r["metric"].decode(), "launches", int(r["launches"]),
          "total", float(r["total"]), "min", float(r["min"]), "max", float(r["max"]))
ok = len(rows) == 1 and int(rows[0]["launches"]) == n and rows[0]["min"] == rows[0]["max"] > 0 \
    and rows[0]["total"] == n * rows[0]["min"]
print("ok" if ok else f"FAIL: want one row with {n} launches, min == max > 0, total == {n} x min")
sys.exit(0 if ok else 1)
PY
