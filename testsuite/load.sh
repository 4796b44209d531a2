# load.sh - sourced by testsuite/flaky.sh and testsuite/run-tests.sh: a
# load of busy processes beside the tests (issue 46: tests pass on a busy
# machine).
#   load_start N    starts N busy processes (default: twice the cores)
#   load_stop       stops them (by their ids); the caller's trap calls it
# The busy processes spin in a shell loop at the tests' own priority (as a
# neighbour's jobs do), and each ends by itself within a second when the
# shell that started it is gone, so no busy process outlives its script
# even when that script is killed.
load_pids=()
load_start() {
  local n=${1:-$(( 2 * $(nproc) ))} parent=$$ i
  for i in $(seq 1 "$n"); do
    bash -c 'while kill -0 '"$parent"' 2>/dev/null; do i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; done' &
    load_pids+=($!)
  done
  echo "load: $n busy processes started (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
}
load_stop() {
  [ ${#load_pids[@]} -eq 0 ] && return 0
  # killed busy processes end 143: not a failure of the caller (set -e)
  kill "${load_pids[@]}" 2>/dev/null || true
  wait "${load_pids[@]}" 2>/dev/null || true
  echo "load: ${#load_pids[@]} busy processes stopped"
  load_pids=()
}
