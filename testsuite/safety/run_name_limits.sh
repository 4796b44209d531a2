#!/usr/bin/env bash
# run_name_limits.sh APP SIG_APP TALLY_RUN - names at their limits (issue 35):
# a 250-character program name still gets its file (the default name keeps
# 64 characters of it); a SIGTERM partial file under --output-name has
# .partial in its name (never the complete file's name); a 4,000-character
# output directory is refused with a message naming TALLY_OUTPUT_DIR and
# the file that was written is where the message says.
set -u
app=$1 sigapp=$2 run=$3
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }

long=$(printf 'p%.0s' $(seq 250)); cp "$app" "$work/$long"; mkdir out1
"$run" --output-dir=out1 -- "$work/$long" 7 >/dev/null 2>err1; rc=$?
cat err1
[ $rc = 7 ] || bad "long program name: exit status $rc"
f=$(ls out1/tally-*.h5 2>/dev/null)
[ -n "$f" ] || bad "long program name: no file written ($(ls out1))"
case "$f" in out1/tally-$(printf 'p%.0s' $(seq 64))-*) ;; *) bad "long program name: file '$f' does not keep 64 characters of the name";; esac
grep -q "written to .*${f#out1/}" err1 || bad "long program name: the message does not name the file"

mkdir out2
"$run" --output-dir=out2 --output-name=named.h5 -- "$sigapp" 30 >out2.txt 2>err2 &
pid=$!
for _ in $(seq 200); do grep -q ready out2.txt && break; sleep 0.1; done
kill -TERM $pid; wait $pid; rc=$?
cat err2
[ $rc = 143 ] || bad "--output-name + SIGTERM: exit status $rc, want 143"
[ -f out2/named.partial.h5 ] || bad "--output-name + SIGTERM: no named.partial.h5 ($(ls out2))"
[ -e out2/named.h5 ] && bad "--output-name + SIGTERM: the partial file took the complete file's name"
grep -q "written to out2/named.partial.h5" err2 || bad "--output-name + SIGTERM: the message does not name named.partial.h5"

deep=$work/$(printf 'd%.0s' $(seq 200)); for _ in $(seq 19); do deep=$deep/$(printf 'd%.0s' $(seq 200)); done
"$run" --output-dir="$deep" --output-name=deep.h5 -- "$app" 7 >/dev/null 2>err3; rc=$?
cat err3 | cut -c1-200
[ $rc = 7 ] || bad "long directory: exit status $rc"
grep -q "TALLY_OUTPUT_DIR" err3 || bad "long directory: no message naming TALLY_OUTPUT_DIR"
w=$(sed -n 's/.*written to \(.*\.h5\)$/\1/p' err3)
if [ -n "$w" ]; then [ -f "$w" ] || bad "long directory: '$w' was said but is not there"
else grep -Eq "cannot create|no measurement file" err3 || bad "long directory: neither written nor said why"; fi
[ $fail = 0 ] && echo "all name-limit checks passed"
exit $fail
