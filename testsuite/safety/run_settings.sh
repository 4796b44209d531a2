#!/usr/bin/env bash
# run_settings.sh APP TALLY_RUN - every setting validated with one clear
# message: a library setting is not "unknown", a word a choice does not
# take is said with the words it does (any case is fine), values that
# cannot mean what they say are reported once each, the 17th event is left
# out naming the runtime's limit of 16, and TALLY_DISABLE=1 writes nothing
# at all (the PAPI_hl summary included).
set -u
app=$1 run=$2
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
once() { [ "$(grep -c -- "$1" err.txt)" = 1 ] || bad "want one message matching '$1', got $(grep -c -- "$1" err.txt)"; }

TALLY_PERF_MAX_COUNTERS=4 TALLY_MAX_DEPTH=0 TALLY_PASS_INDEX=abc TALLY_PCSAMP_PERIOD=99 TALLY_CHILDREN=mesure \
  TALLY_CUDA_GRANULARITY=Region TALLY_PASS_MODE=none TALLY_SAMPLING=fast \
  "$run" --libomp=/nonexistent --output-name=a.h5 -- "$app" 0 >/dev/null 2>err.txt || bad "run failed"
cat err.txt
grep -q "TALLY_PERF_MAX_COUNTERS" err.txt && bad "TALLY_PERF_MAX_COUNTERS reported (it is a known setting)"
once "TALLY_MAX_DEPTH=0 cannot be honoured"
once "TALLY_PASS_INDEX='abc' is not a pass number"
once "TALLY_PCSAMP_PERIOD=99 is outside 5..31"
once "TALLY_LIBOMP='/nonexistent': No such file or directory"
once "TALLY_CHILDREN='mesure' is not one of exclude,measure; using the default 'exclude'"
once "TALLY_PASS_MODE='none' is not one of auto,off; using the default 'auto'"
once "TALLY_SAMPLING='fast' is not a rate (samples a second, 0 to 20000) nor on/off; sampling is off"
grep -q "TALLY_CUDA_GRANULARITY" err.txt && bad "TALLY_CUDA_GRANULARITY=Region reported (a choice takes any case)"
[ -f a.h5 ] || bad "the measurement was not written"

# the 17th event and later: left out, saying the runtime's limit (not
# "cannot be counted here"); 18 distinct software event names (aliases
# have their own codes), the first 16 recorded
ev=CPU-CLOCK,PERF_COUNT_SW_CPU_CLOCK,TASK-CLOCK,PERF_COUNT_SW_TASK_CLOCK,PAGE-FAULTS
ev=$ev,PERF_COUNT_SW_PAGE_FAULTS,FAULTS,CONTEXT-SWITCHES,PERF_COUNT_SW_CONTEXT_SWITCHES,CS
ev=$ev,CPU-MIGRATIONS,PERF_COUNT_SW_CPU_MIGRATIONS,MIGRATIONS,MINOR-FAULTS
ev=$ev,PERF_COUNT_SW_PAGE_FAULTS_MIN,MAJOR-FAULTS,PERF_COUNT_SW_PAGE_FAULTS_MAJ,CGROUP-SWITCHES
TALLY_EVENTS=perf::${ev//,/,perf::} "$run" --output-name=ev.h5 -- "$app" 0 >/dev/null 2>err.txt || bad "run failed"
cat err.txt
once "event 'perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ' left out: the runtime records at most 16 events per thread"
once "event 'perf::CGROUP-SWITCHES' left out: the runtime records at most 16 events per thread"
[ "$(grep -c "left out\|cannot be counted" err.txt)" = 2 ] || bad "events before the 17th were left out"
[ -f ev.h5 ] || bad "the measurement with 16 events was not written"

# TALLY_VERBOSE out of range or in hex: refused and said (it once
# silenced every message, its own included), the other bad settings still
# said; library settings said on every machine, GPU or not; a control
# character in a value is escaped (a newline once split the message)
for v in 99999999999999999999999 0x10; do
  TALLY_VERBOSE=$v TALLY_CHILDREN=mesure TALLY_PERF_RDPMC=maybe TALLY_QUIET=$'x\ny' PAPI_NO_WARNING=perhaps \
    TALLY_CUDA_TIMING=zz TALLY_CUDA_RANGES=65537 TALLY_CUDA_NO_CACHE=$'a\e[2Jb' TALLY_CUDA_REPLAY=never \
    "$run" --output-name=v.h5 --output-replace -- "$app" 0 >/dev/null 2>err.txt || bad "run failed"
  cat err.txt
  once "TALLY_VERBOSE='$v' is not a valid whole number (0..999999); using the default '1'"
  once "TALLY_CHILDREN='mesure' is not one of"
  once "TALLY_PERF_RDPMC='maybe' is not a valid yes/no value"
  once "TALLY_QUIET='x\\\\ny' is not a valid yes/no value"
  once "PAPI_NO_WARNING='perhaps' is not a valid yes/no value"
  once "TALLY_CUDA_TIMING='zz' is not a valid yes/no value"
  once "TALLY_CUDA_RANGES='65537' is not a valid whole number (0..65536)"
  once "TALLY_CUDA_NO_CACHE='a\\\\x1b\\[2Jb' is not a valid yes/no value"
  once "TALLY_CUDA_REPLAY='never' is not one of"
  grep -q $'\e' err.txt && bad "a raw escape reached stderr"
  [ "$(grep -vc '^tally' err.txt)" = 0 ] || bad "a message was split over lines"
done
# a 10 KB value of a library setting: said once (it was said by the
# runtime and again by the library), never echoed whole (issue 47)
long=$(head -c 10000 /dev/zero | tr '\0' x)
TALLY_PERF_RDPMC=$long "$run" --output-name=l.h5 --output-replace -- "$app" 0 >/dev/null 2>err.txt || bad "run failed"
[ "$(grep -c TALLY_PERF_RDPMC err.txt)" = 1 ] || bad "a 10 KB TALLY_PERF_RDPMC said $(grep -c TALLY_PERF_RDPMC err.txt) times, want once"
[ "$(wc -L <err.txt)" -lt 1000 ] || bad "a 10 KB value echoed whole ($(wc -L <err.txt) characters on a line)"
# a malformed TALLY_PASSES with a newline: said on one line, escaped (issue 47)
TALLY_PASSES=$'2\nfoo' "$run" --output-name=pp.h5 --output-replace -- "$app" 0 >/dev/null 2>err.txt || bad "run failed"
cat err.txt
grep -q 'passes=2\\nfoo' err.txt || bad "a malformed TALLY_PASSES is not said escaped"
[ "$(grep -vc '^tally' err.txt)" = 0 ] || bad "a malformed TALLY_PASSES split a message"
# the library alone (no tally-run): its own settings said once each
mkdir lib
(cd lib && TALLY_PERF_RDPMC=maybe PAPI_NO_WARNING=perhaps TALLY_CUDA_TIMING=zz "$app" 0 hl >/dev/null 2>../err.txt) \
  || bad "plain run failed"
cat err.txt
once "TALLY_PERF_RDPMC='maybe' is not a valid yes/no value"
once "PAPI_NO_WARNING='perhaps' is not a valid yes/no value"
once "TALLY_CUDA_TIMING='zz' is not a valid yes/no value"

mkdir off
TALLY_DISABLE=1 "$run" --output-dir=off --output-name=b.h5 -- "$app" 0 hl >/dev/null 2>err.txt || bad "run failed"
cat err.txt
[ -z "$(ls -A off)" ] || bad "TALLY_DISABLE=1 wrote: $(ls -A off)"
ls -A | grep -q tally_hl_ && bad "TALLY_DISABLE=1 wrote a PAPI_hl summary"
# control: the same program without tally-run writes its PAPI_hl summary,
# and with TALLY_DISABLE=1 it does not
mkdir hl
TALLY_OUTPUT_DIR=hl "$app" 0 hl >/dev/null 2>err.txt || bad "plain run failed"
ls hl | grep -q '^tally_hl_.*\.json$' || bad "control: no PAPI_hl summary ($(ls -A hl))"
rm -f hl/*
TALLY_DISABLE=1 TALLY_OUTPUT_DIR=hl "$app" 0 hl >/dev/null 2>err.txt || bad "plain run failed"
[ -z "$(ls -A hl)" ] || bad "TALLY_DISABLE=1 wrote $(ls -A hl)"
"$run" --output-dir=off --output-name=b.h5 -- "$app" 0 hl >/dev/null 2>err.txt || bad "run failed"
[ -f off/b.h5 ] || bad "control: no measurement file"
[ $fail = 0 ] && echo "settings: all checks passed"
exit $fail
