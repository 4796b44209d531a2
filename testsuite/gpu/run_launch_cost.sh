#!/usr/bin/env bash
# run_launch_cost.sh BUILD [OUT] - issue 38's device checks in one call,
# figures printed (logs under OUT, default /tmp/launch-cost):
#   1. gpu_enum: every event of every component, with and without
#      qualifiers, within a bound on count and time; papi_native_avail
#      with and without qualifiers (38.1)
#   2. gpu_host: every tally_gpu_* event id of GH100 round-trips (38.1)
#   3. bench_torch_loop: the PyTorch loop plain, per step, PC sampling, per
#      kernel (with and without the L2 flush) and under bare_cupti.so, the
#      bare-CUPTI floor (38.5); ROUNDS (3), BENCH_TORCH_RUNS and
#      BENCH_TORCH_RANGES as bench_torch_loop.sh says; RANGES_SWEEP="64 256"
#      repeats the per-kernel and bare runs with those image sizes
#   4. torch_train and torch_coexist (the re-check issue 36 owed)
# STEPS picks some of enum host bench sweep torch (all by default).
# Exit 1 when a check failed; the bench has no verdict on its ratios.
B=$(cd "${1:?usage: run_launch_cost.sh BUILD [OUT]}" && pwd)
O=${2:-/tmp/launch-cost}
T=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$O"
fails=""
bare=$(ls "$B"/testsuite/bench/*bare_cupti.so 2>/dev/null | head -1)
py=${TALLY_PYTHON:-python3}
t0=$(date +%s)
for step in ${STEPS:-enum host bench sweep torch}; do
	echo "##### $step at $(( $(date +%s) - t0 )) s"
	case $step in
	enum) timeout 600 "$B/testsuite/gpu/gpu_enum" "$B/src/utils/papi_native_avail" >"$O/enum.log" 2>&1
	      r=$?; grep -vE '^(ok|PASS)' "$O/enum.log" | tail -20 ;;
	host) TALLY_CUPTI_LIB=${TALLY_CUPTI_LIB:-$(ls /usr/local/cuda/lib64/libcupti.so.* 2>/dev/null | head -1)} \
	      timeout 300 "$B/testsuite/gpu/gpu_host" >"$O/host.log" 2>&1
	      r=$?; grep -E 'round-trip|metrics|FAIL' "$O/host.log" | tail -8 ;;
	bench) BENCH_BARE_CUPTI=$bare timeout 900 "$T/bench/bench_torch_loop.sh" "$B/wrappers/tally-run" "$py" \
	         "${ROUNDS:-3}" >"$O/bench.log" 2>&1
	       r=$?; tail -16 "$O/bench.log" ;;
	sweep) r=0
	       for n in ${RANGES_SWEEP:-64 256}; do
		       echo "== ranges per image: $n"
		       BENCH_TORCH_RANGES=$n BENCH_TORCH_RUNS="kernel nocache bare" BENCH_BARE_CUPTI=$bare \
			       timeout 600 "$T/bench/bench_torch_loop.sh" "$B/wrappers/tally-run" "$py" "${ROUNDS:-3}" \
			       >"$O/sweep$n.log" 2>&1 || r=1
		       tail -7 "$O/sweep$n.log"
	       done ;;
	torch) timeout 400 ctest --test-dir "$B" -R '^torch_(train|coexist)$' --output-on-failure >"$O/torch.log" 2>&1
	       r=$?; grep -E 'Test +#|tests passed|FAIL' "$O/torch.log" ;;
	*) echo "unknown step $step"; r=1 ;;
	esac
	echo "$step rc=$r"
	[ "$r" -eq 0 ] || fails="$fails $step"
done
echo "total $(( $(date +%s) - t0 )) s"
[ -z "$fails" ] && { echo "launch cost checks: all passed"; exit 0; }
echo "launch cost checks FAILED:$fails (logs in $O)"
exit 1
