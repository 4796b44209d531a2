#!/bin/sh
# run_pcsamp_checks.sh BIN OUT - PC sampling on a GPU machine: the test at
# two periods, the overhead benchmark, a loss stress run, and ncu's PC
# sampling of the same kernels (SourceCounters + WarpStateStats, raw CSV)
# compared with Tally's stall breakdown.  BIN holds gpu_pcsamp and
# libtally.so*; results go under OUT.  Exits 1 when any run or the
# comparison failed (listed at the end), 0 otherwise.
B=$1; O=$2; D=$(dirname $0); mkdir -p "$O"
fails=""
fail() { fails="$fails $1"; }
export LD_LIBRARY_PATH=$B:$LD_LIBRARY_PATH
t() { s=$(date +%s%N); "$@" >>$O/tests.txt 2>&1; r=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms rc=$r: $*" >>$O/times.txt; [ $r -eq 0 ] || fail "$(basename "$3")_$4"; }
nvidia-smi -L > $O/log.txt 2>&1 || fail nvidia-smi
for p in 16 12; do
	echo "=== period $p" >>$O/tests.txt
	t timeout 120 $B/gpu_pcsamp $p
	awk -v p="=== period $p" '$0 == p {on = 1; next} /^===/ {on = 0} on && /^PCS/' $O/tests.txt > $O/pcs_$p.txt
done
echo "=== bench/stress" >>$O/tests.txt
t timeout 60 $B/gpu_pcsamp bench 16
t timeout 60 $B/gpu_pcsamp bench 12
t timeout 60 $B/gpu_pcsamp stress 5 0
t timeout 60 $B/gpu_pcsamp stress 8 1048576
grep '^PCS\|FAIL\|SKIP' $O/tests.txt > $O/pcs.txt
timeout 180 ncu --section WarpStateStats --section SourceCounters --page raw --csv -k regex:pcs_ \
	$B/gpu_pcsamp plain > $O/ncu_raw.csv 2>>$O/log.txt
r=$?; echo "ncu rc=$r" >>$O/times.txt; [ $r -eq 0 ] || fail ncu
python3 $D/check_pcsamp_vs_ncu.py $O/pcs_16.txt $O/ncu_raw.csv > $O/ncu_check.txt 2>&1
r=$?; echo "ncu check rc=$r" >>$O/times.txt; [ $r -eq 0 ] || fail check_pcsamp_vs_ncu
[ -z "$fails" ] && { echo "pcsamp checks: all passed"; exit 0; }
echo "pcsamp checks FAILED:$fails (see $O)"
exit 1
