#!/bin/sh
# run_ncu_check.sh truth|pcsamp TEST CHECKER - one ncu comparison as a test
# (label device): runs TEST (gpu_truth or gpu_pcsamp) for Tally's values,
# the same kernels under ncu ("plain": no Tally), and CHECKER on both.
# Exit: the checker's verdict; 77 only when this machine has no NVIDIA GPU
# or driver, or no ncu (Nsight Compute, part of the CUDA toolkit); any run
# that fails or times out fails the test.
mode=$1 test=$2 checker=$3
[ -e /dev/nvidiactl ] && nvidia-smi -L >/dev/null 2>&1 ||
	{ echo "SKIP: no NVIDIA GPU or driver on this machine (/dev/nvidiactl, nvidia-smi -L)"; exit 77; }
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null) ||
	{ echo "SKIP: ncu (Nsight Compute) is not installed: no reference to compare with"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/tally-ncu-XXXXXX") || exit 1
run() { # what log command...
	what=$1 log=$2; shift 2
	timeout 240 "$@" >"$log" 2>"$log.err"; rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $what exited $rc (output in $log, $log.err)"; tail -20 "$log" "$log.err"; exit 1; }
}
case $mode in
truth)
	m=smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes_read.sum
	run "$test" "$dir/tally.txt" "$test"
	run "ncu on $test plain" "$dir/ncu.csv" "$ncu" --csv --metrics "$m" "$test" plain
	grep '^TALLY' "$dir/tally.txt" >"$dir/tally_lines.txt"
	python3 "$checker" "$dir/ncu.csv" "$dir/tally_lines.txt";;
pcsamp)
	run "$test 16" "$dir/tally.txt" "$test" 16
	grep '^PCS' "$dir/tally.txt" >"$dir/pcs.txt"
	run "ncu on $test plain" "$dir/ncu.csv" "$ncu" --section WarpStateStats --section SourceCounters \
		--page raw --csv -k regex:pcs_ "$test" plain
	python3 "$checker" "$dir/pcs.txt" "$dir/ncu.csv";;
*)
	echo "FAIL: usage: run_ncu_check.sh truth|pcsamp TEST CHECKER"; exit 1;;
esac
rc=$?
[ $rc -eq 0 ] && rm -rf "$dir" || echo "files kept in $dir"
exit $rc
