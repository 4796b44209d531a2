#!/usr/bin/env bash
# run_avail_cache.sh APP - the counter availability image kept on disk
# (cuda_avail_cache.c).  APP is gpu_truth, which checks its GPU counts
# against the instructions its kernels execute, so every run below also
# proves the image it used gives right values.  In a fresh cache folder:
# the first run asks the GPU (TALLY_CUDA_TIMING names the phase) and
# leaves a 0600 file; the second reads it and does not ask; a truncated
# file is not used (the GPU is asked again and the file made whole); a
# planted link in its place is neither followed nor written through.
set -u
app=$1
. "$(dirname "$0")/gpu_present.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export XDG_CACHE_HOME=$dir/cache TALLY_CUDA_TIMING=1
fail=0
phase="counter availability (from the GPU)"
run() {   # run LABEL WANT_PHASE(0|1)
	"$app" >"$dir/$1.log" 2>&1 || { echo "FAIL: $1: $app failed"; tail -20 "$dir/$1.log"; fail=1; return; }
	got=0; grep -qF "$phase" "$dir/$1.log" && got=1
	[ "$got" = "$2" ] && echo "ok: $1: asked the GPU: $got" ||
		{ echo "FAIL: $1: asked the GPU: $got, want $2"; fail=1; }
}
run first 1
f=$(ls "$XDG_CACHE_HOME"/tally/cuda-avail-*.bin 2>/dev/null | head -1)
[ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ] && echo "ok: $(basename "$f"), mode 600" ||
	{ echo "FAIL: no cache file of mode 600 in $XDG_CACHE_HOME/tally"; ls -la "$XDG_CACHE_HOME/tally"; exit 1; }
size=$(stat -c %s "$f")
run second 0
head -c $((size / 2)) "$f" >"$dir/half" && cat "$dir/half" >"$f"
run truncated 1
[ "$(stat -c %s "$f")" = "$size" ] && echo "ok: the file is whole again ($size bytes)" ||
	{ echo "FAIL: after a truncated file: $(stat -c %s "$f") bytes, want $size"; fail=1; }
echo "not an image" >"$dir/target"; cp "$f" "$dir/good"; rm -f "$f"; ln -s "$dir/target" "$f"
run planted_link 1
[ "$(cat "$dir/target")" = "not an image" ] && [ ! -L "$f" ] && cmp -s "$f" "$dir/good" &&
	echo "ok: the link was replaced by a file, its target untouched" ||
	{ echo "FAIL: planted link: target or file wrong"; ls -la "$XDG_CACHE_HOME/tally"; fail=1; }
exit $fail
