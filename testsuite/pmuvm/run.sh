#!/usr/bin/env bash
# Run the tests labelled `pmu` (or -L <label>, e.g. pmubench) inside the
# arm64 QEMU guest: builds the guest (setup.sh, cached), cross-builds
# Tally into build-pmuvm (or $TALLY_PMUVM_BUILD), then runs run.py.
# Extra arguments go to run.py (-L label, -R regex).  Exit 77 when the
# host packages cannot be installed.  See docs/pmuvm.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${TALLY_PMUVM_BUILD:-$top/build-pmuvm}
set +e
guest=$("$top/testsuite/pmuvm/setup.sh" | tail -n1)
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -eq 77 ]; then
  echo "pmuvm: SKIPPED: the host packages for the arm64 guest cannot be installed"
  exit 77
fi
[ "$rc" -eq 0 ] || exit "$rc"
cmake -S "$top" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$top/testsuite/pmuvm/aarch64.cmake" \
  -DTALLY_PMUVM_GUEST="$guest" -DTALLY_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
exec python3 "$top/testsuite/pmuvm/run.py" --build "$build" --guest "$guest" "$@"
