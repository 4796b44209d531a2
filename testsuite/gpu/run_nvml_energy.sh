#!/bin/sh
# run_nvml_energy.sh TEST CHECKER [TALLY_RUN REPORT] - the nvml component's
# energy over a 5 s kernel loop (TEST = test_nvml_energy) against
# nvidia-smi's power readings taken every 50 ms in the same run and
# integrated over the loop's window (CHECKER = check_nvml_energy.py, 5%).
# With TALLY_RUN: the same program under tally-run --events=nvml:::energy,
# the file's root region holds at least the loop's energy, and tally-report
# (REPORT) shows the column.  Skips (77) without nvidia-smi or a GPU.
T=$1; C=$2; R=$3; REP=$4
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: no nvidia-smi here"; exit 77; }
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
F=timestamp,power.draw.instant
nvidia-smi --query-gpu=$F --format=csv,noheader,nounits -i 0 >/dev/null 2>&1 || F=timestamp,power.draw
nvidia-smi --query-gpu=$F --format=csv,noheader,nounits -i 0 -lms 50 >"$W/smi.csv" 2>"$W/smi.err" &
SMI=$!
sleep 1
"$T" >"$W/out.txt" 2>&1; rc=$?
sleep 0.3
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
cat "$W/out.txt"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: $T exited $rc"; exit 1; }
echo "nvidia-smi field: $F, $(wc -l <"$W/smi.csv") readings"
[ -z "$R" ] && exec python3 "$C" "$W/smi.csv" "$W/out.txt"
(cd "$W" && TNE_SECONDS=2 "$R" --events=nvml:::energy:device=0 --output-name=nvml.h5 -- "$T" >rt.txt 2>&1)
rc=$?; cat "$W/rt.txt"
[ $rc -eq 0 ] || { echo "FAIL: tally-run exited $rc"; exit 1; }
python3 "$REP" "$W/nvml.h5" >"$W/report.txt" 2>&1 || { cat "$W/report.txt"; echo "FAIL: tally-report"; exit 1; }
grep -n "energy" "$W/report.txt" | head -5
python3 "$C" "$W/smi.csv" "$W/out.txt" --h5 "$W/nvml.h5" --loop "$W/rt.txt" --report "$W/report.txt"
