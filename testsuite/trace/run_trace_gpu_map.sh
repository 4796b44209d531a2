#!/bin/sh
# run_trace_gpu_map.sh TRACE_GPU_MAP OTF2PRINT CHECKER - the GPU streams'
# record -> OTF2 mapping with synthetic CUPTI records (trace_gpu_map.c):
# 9,000 records (7,014 kernels) on 3 streams of 2 devices, handed over out
# of order; check_trace_gpu.py checks the archive as it checks a PyTorch
# run's.  Then with a cap of 1,000 events per location: per stream the
# kept events and tally::dropped_events add up to 2 x its 3,000 records.
# The Perfetto export of the first archive (GPU streams as tracks of the
# rank's process) passes check_perfetto.py when TRACE_REPORT names
# tally-report and python3-otf2 is there.
# 77 without otf2-print (otf2-tools) or python3.
prog=$1 otf2print=$2 checker=$3
[ -x "$otf2print" ] || { echo "SKIP: no otf2-print (Debian otf2-tools)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$prog" "$dir/a" > "$dir/a.log" || { cat "$dir/a.log"; exit 1; }
cat "$dir/a.log"
grep -q "^CUPTI_DROPPED 5$" "$dir/a.log" || { echo "FAIL: CUPTI's dropped count not summed (want 5)"; exit 1; }
python3 "$checker" "$otf2print" "$dir/a/traces.otf2" --kernels 7014 --records 9000 --streams 3 --step step \
  --cupti-dropped 5 || exit 1
"$prog" "$dir/b" 1000 > "$dir/b.log" || { cat "$dir/b.log"; exit 1; }
python3 "$checker" "$otf2print" "$dir/b/traces.otf2" --streams 3 --records 1500 \
  --gpu-dropped 15000 --per-stream 3000 || exit 1
if [ -n "${TRACE_REPORT:-}" ] && /usr/bin/python3 -c "import otf2" 2>/dev/null; then
  PYTHONPATH=${TRACE_PYTHONPATH:-} "$TRACE_REPORT" "$dir/a" --trace-export perfetto "$dir/a.json" || exit 1
  /usr/bin/python3 "$(dirname "$checker")/check_perfetto.py" "$dir/a.json" 0 || exit 1
  /usr/bin/python3 -c "import json, sys; e = json.load(open(sys.argv[1]))['traceEvents']; \
n = sum(1 for x in e if x['ph'] == 'B' and x['tid'] >= 1000000); print('perfetto GPU slices', n); \
sys.exit(n != 9000)" "$dir/a.json" || { echo "FAIL: the export's GPU slices are not the 9000 records"; exit 1; }
fi
