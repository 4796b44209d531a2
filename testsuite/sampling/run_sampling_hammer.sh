#!/usr/bin/env bash
# run_sampling_hammer.sh APP TALLY_RUN [RUNS] [BUDGET_S] - the perf source's
# crash of 2026-11-29, hammered (docs/sampling.md, Debug information).
#
# The perf source at 5,000 Hz with a 1-byte buffer (sampling_loss's shape)
# crashed the program 1 run in 20-30 (SIGSEGV on a NULL OpenSSL lock, or
# glibc's "double free" abort): libdw's debug-information search ended at
# debuginfod, whose client initialised libcurl, libssh2 and OpenSSL on
# Tally's drain thread, also after the exit had run OpenSSL's clean-up.
#   1. one run with a 256-byte stack copy (every unwinding falls back to
#      a module's .debug_frame, so the search runs for libc & co.) under
#      LD_DEBUG=files: libdebuginfod is never loaded (the old code loaded
#      it in every run; only where libdebuginfod.so.1 is installed);
#   2. RUNS (40) runs of the loss shape with the perf source, stopping
#      after BUDGET_S (200) seconds but never below 10 runs: every run
#      exits 0 and writes its file.
# Skipped (77) where perf_event_paranoid forbids a user's own cpu-clock.
set -u
app=$1 run=$2 runs=${3:-40} budget=${4:-200}
p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) && [ "$p" -le 2 ] ||
	{ echo "perf_event_paranoid ${p:-missing}: no cpu-clock for a user"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0

if ldconfig -p 2>/dev/null | grep -q 'libdebuginfod\.so\.1 '; then
	mkdir ld
	LD_DEBUG=files LD_DEBUG_OUTPUT="$dir/ld/ld" timeout 150 "$run" --sampling=5000 --sampling-stack=256 \
		--sampling-source=perf --output-name=ld.h5 -- "$app" 0.3 >ld.out 2>&1
	rc=$?
	loaded=$(cat ld/ld.* 2>/dev/null | grep -c 'file=libdebuginfod\.so')
	seen=$(cat ld/ld.* 2>/dev/null | grep -c 'file=.*libdw\.so')
	echo "LD_DEBUG run: exit $rc, libdw loaded ${seen}x, libdebuginfod loaded ${loaded}x"
	[ "$seen" -gt 0 ] || { echo "LD_DEBUG=files wrote nothing on libdw: the check cannot see"; fail=1; }
	[ "$rc" -eq 0 ] && [ -s ld.h5 ] || { cat ld.out; echo "the LD_DEBUG run failed ($rc)"; fail=1; }
	[ "$loaded" -eq 0 ] || { grep -h 'libdebuginfod' ld/ld.* | head -3; echo "libdebuginfod was loaded"; fail=1; }
else
	echo "libdebuginfod.so.1 not installed: its check left out"
fi

start=$SECONDS n=0 bad=0
while [ $n -lt "$runs" ] && { [ $n -lt 10 ] || [ $((SECONDS - start)) -lt "$budget" ]; }; do
	n=$((n + 1))
	rm -f out.h5
	timeout 150 "$run" --sampling=5000 --sampling-buffer=1 --sampling-source=perf --output-name=out.h5 \
		-- "$app" 0.5 >out.txt 2>err.txt
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s out.h5 ]; then
		bad=$((bad + 1))
		echo "run $n: exit $rc: $(tail -c 300 err.txt | tr '\n' ' ')"
	fi
done
echo "perf source, 5000 Hz, 1-byte buffer: $bad of $n runs failed in $((SECONDS - start)) s (load $(cut -d' ' -f1 /proc/loadavg))"
[ $bad -eq 0 ] || fail=1
exit $fail
