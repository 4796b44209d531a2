#!/usr/bin/env bash
# bench_trace.sh TALLY_RUN APP - what an event costs in trace mode
# (tally-run --trace) against profile mode, in the same job: bench_trace
# times 2x200,000 region events per block (best of 9, thread CPU time;
# 5 runs each, alternating) under each, with
# the same counters, and in trace mode with the counter values as metrics
# (--trace-counters); then the archive's bytes per event (its .evt files
# over the events written).  Target (issue 39): <= 100 ns per event above
# profile mode.  Figures: docs/trace.md.
set -u
run=$1 app=$2
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
export TALLY_EVENTS=${TALLY_EVENTS:-perf::TASK-CLOCK}
for k in 1 2 3 4 5; do   # alternating, best of each: the machine's load hits both
  "$run" --output-name=p$k.h5 -- "$app" > p$k.txt || exit 1
  "$run" --trace --output-name=t$k.h5 -- "$app" > t$k.txt || exit 1
  "$run" --trace --trace-counters --output-name=c$k.h5 -- "$app" > c$k.txt || exit 1
done
best() { cat "$@" | awk '/^ns_per_event/ {print $2}' | sort -g | head -1; }
p=$(best p?.txt) t=$(best t?.txt) c=$(best c?.txt)
events=$(awk '/^events/ {print $2}' t1.txt)
bytes=$(cat t1.trace/traces/*.evt | wc -c) cbytes=$(cat c1.trace/traces/*.evt | wc -c)
awk -v p="$p" -v t="$t" -v c="$c" -v e="$events" -v b="$bytes" -v cb="$cbytes" -v ev="$TALLY_EVENTS" 'BEGIN {
  printf "counters %s\n", ev
  printf "profile mode: %.1f ns per region event\n", p
  printf "trace mode:   %.1f ns per region event (%.1f ns above profile mode, ratio %.2f)\n", t, t - p, t / p
  printf "  with --trace-counters: %.1f ns per region event (%.1f ns above profile mode, ratio %.2f)\n", c, c - p, c / p
  printf "archive: %d bytes of events for %d region events: %.2f bytes per event (%.2f with counters)\n", b, e, b / e, cb / e
  exit !(t - p <= 100) }'
