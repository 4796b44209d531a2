#!/bin/sh
# bench_gpu_startup.sh TRUTH BENCH TALLY_RUN [REPEATS] - the fixed cost of
# GPU collection against ncu on the same binaries, in one run: TRUTH =
# gpu_truth (argument "plain": 3 launches), BENCH = bench_gpu_metrics
# (argument "none": 100 launches).  Per program: plain, tally-run without
# GPU events, tally-run with one one-pass metric, ncu with the same metric;
# the median wall time of REPEATS (default 3) runs of each, the fixed cost
# (tally-run with the metric minus plain) and the ratio Tally/ncu.  Phase
# times of one run come from TALLY_CUDA_TIMING=1 (docs/gpu.md).  Skips (77)
# without a GPU or ncu; exit 1 when a run fails.  No verdict on the ratios
# (label bench): the overhead targets are printed beside them.
T=$1; BG=$2; R=$3; N=${4:-3}
# the runs start in a scratch folder: relative program paths are made absolute
abs() { case $1 in /*) echo "$1" ;; */*) echo "$PWD/$1" ;; *) echo "$1" ;; esac; }
T=$(abs "$T"); BG=$(abs "$BG"); R=$(abs "$R")
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU here"; exit 77; }
command -v ncu >/dev/null 2>&1 || { echo "SKIP: no ncu here"; exit 77; }
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME=$W/cache
M=smsp__inst_executed.sum
# wall time of one run in ms on stdout (runs in a pipeline: failures leave a file)
one() {
	s=$(date +%s%N)
	(cd "$W" && "$@" >"$W/out.txt" 2>&1) || { echo "FAIL: $*" >&2; cat "$W/out.txt" >&2; touch "$W/failed"; }
	echo $(( ($(date +%s%N) - s) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
measure() {
	i=0; while [ $i -lt $N ]; do one "$@"; i=$((i + 1)); done | median
}
for p in "3:$T plain" "100:$BG none"; do
	n=${p%%:*}; cmd=${p#*:}
	plain=$(measure $cmd)
	noev=$(measure "$R" --output-name=a.h5 -- $cmd)
	met=$(measure "$R" --events=cuda:::$M --output-name=b.h5 -- $cmd)
	ncu=$(measure ncu --metrics $M $cmd)
	echo "$n launches: plain $plain ms, tally-run no GPU events $noev ms, one metric $met ms, ncu $ncu ms"
	awk -v p=$plain -v m=$met -v c=$ncu -v n=$n 'BEGIN {
		t = n == 3 ? 0.5 : 0.3
		printf "  fixed cost %.2f s (target <= 0.3); Tally/ncu %.2f (target <= %.1f)\n", (m - p) / 1000, m / c, t }'
done
echo "phases (one run, 3 launches):"
(cd "$W" && TALLY_CUDA_TIMING=1 "$R" --events=cuda:::$M --output-name=c.h5 -- $T plain 2>&1) | grep tally-cuda-time
[ -e "$W/failed" ] && exit 1
exit 0
