#!/usr/bin/env bash
# The main job: build Tally, show what this machine can count, and count a
# small workload with the PAPI API.  (Becomes the MPI+OpenMP demo under
# tally-run when the runtime lands.)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
testsuite/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
bin=build/src/utils
echo "== papi_component_avail"; "$bin/papi_component_avail"
echo "== papi_avail -a";         "$bin/papi_avail" -a
echo "== papi_command_line perf::TASK-CLOCK perf::PAGE-FAULTS perf::CONTEXT-SWITCHES"
"$bin/papi_command_line" perf::TASK-CLOCK perf::PAGE-FAULTS perf::CONTEXT-SWITCHES
