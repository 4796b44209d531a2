#!/bin/sh
# run_device_checks.sh BUILD OUT - GPU tests, ncu comparison, benchmark and
# enumeration timing on a GPU machine.  Writes results under OUT.  Exits 1
# when any test, ncu run or comparison failed or was skipped (on the GPU
# machine nothing may be missing), 0 otherwise; failures are listed at the
# end.  The verdicts alone: ctest --test-dir BUILD -L device.
B=$1; O=$2; mkdir -p "$O"
fails=""
fail() { fails="$fails $1"; }
M=smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes_read.sum
MB=smsp__inst_executed.sum,dram__bytes_read.sum
export XDG_CACHE_HOME=$O/cache
t() { s=$(date +%s%N); "$@" >>$O/log.txt 2>&1; r=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms rc=$r: $*" >>$O/times.txt; [ $r -eq 0 ] || fail "$1"; }
nvidia-smi -L > $O/log.txt 2>&1 || fail nvidia-smi
rm -rf $O/cache; t $B/src/utils/tally-gpu-avail
t $B/src/utils/tally-gpu-avail
t env TALLY_CUDA_NO_CACHE=1 $B/src/utils/tally-gpu-avail
$B/src/utils/tally-gpu-avail >> $O/avail.txt 2>&1
$B/src/utils/tally-gpu-avail -d >> $O/avail.txt 2>&1
$B/src/utils/tally-gpu-avail -g $M,sm__throughput.avg.pct_of_peak_sustained_elapsed >> $O/avail.txt 2>&1
for x in gpu_host gpu_subscriber gpu_truth gpu_papi gpu_groups; do
	echo "=== $x" >>$O/tests.txt; timeout 200 $B/testsuite/gpu/$x >>$O/tests.txt 2>&1; r=$?
	echo "=== $x rc=$r" >>$O/tests.txt; [ $r -eq 0 ] || fail $x
done
ncu --csv --metrics $M $B/testsuite/gpu/gpu_truth plain > $O/ncu_truth.csv 2>>$O/log.txt || fail ncu
grep '^TALLY' $O/tests.txt > $O/tally_truth.txt
python3 $(dirname $0)/check_vs_ncu.py $O/ncu_truth.csv $O/tally_truth.txt > $O/ncu_check.txt 2>&1 || fail check_vs_ncu
BG=$B/testsuite/bench/bench_gpu_metrics
for i in 1 2; do t $BG none; t $BG kernel; t $BG papi; t ncu --metrics $MB $BG none; done
[ -z "$fails" ] && { echo "device checks: all passed"; exit 0; }
echo "device checks FAILED:$fails (see $O)"
exit 1
