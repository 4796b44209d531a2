#!/usr/bin/env bash
# Run the tests labelled `pmu`, then those labelled `pmurt`, inside the
# arm64 QEMU guest: builds the guest (setup.sh, cached), cross-builds Tally
# into build-pmuvm (or $TALLY_PMUVM_BUILD) for `pmu`, and with its runtime
# against the arm64 sysroot (setup.sh sysroot, cached) into build-pmuvm-rt
# (or $TALLY_PMUVM_RT_BUILD) for `pmurt`, then runs run.py once for each.
# Extra arguments go to run.py (-L label, -R regex); with -L only that
# label runs (`pmurt` in the runtime build, any other in the plain one).
# Exit 77 when the host packages cannot be installed.  See docs/pmuvm.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${TALLY_PMUVM_BUILD:-$top/build-pmuvm}
rt_build=${TALLY_PMUVM_RT_BUILD:-$top/build-pmuvm-rt}
start=$SECONDS

# setup.sh [sysroot]: its last line of stdout; its exit status otherwise
# (77: what it needs cannot be installed or unpacked here).
setup() {
  local out rc
  set +e
  out=$("$top/testsuite/pmuvm/setup.sh" "$@" | tail -n1)
  rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" -eq 0 ] || return "$rc"
  echo "$out"
}

labels=(pmu pmurt) args=()
while [ $# -gt 0 ]; do
  case $1 in
    -L|--label) labels=("$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
# -R without -L: the label whose tests match runs (both may)
only_matching=()
[ ${#args[@]} -gt 0 ] && [ ${#labels[@]} -gt 1 ] && only_matching=(--no-tests-ok)

rc=0
guest=$(setup) || rc=$?
if [ "$rc" -eq 77 ]; then
  echo "pmuvm: SKIPPED: the host packages for the arm64 guest cannot be installed"
  exit 77
fi
[ "$rc" -eq 0 ] || exit "$rc"
ran=0
for label in "${labels[@]}"; do
  if [ "$label" = pmurt ]; then
    sysroot=$(setup sysroot) || {
      s=$?
      if [ "$s" -eq 77 ]; then
        echo "pmuvm: SKIPPED label pmurt: the arm64 sysroot of the runtime cannot be made here"
      else
        rc=$s
      fi
      continue
    }
    cmake -S "$top" -B "$rt_build" -DCMAKE_TOOLCHAIN_FILE="$top/testsuite/pmuvm/aarch64-runtime.cmake" \
      -DTALLY_PMUVM_SYSROOT="$sysroot" -DTALLY_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    dir=$rt_build
  else
    cmake -S "$top" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$top/testsuite/pmuvm/aarch64.cmake" \
      -DTALLY_PMUVM_GUEST="$guest" -DTALLY_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    dir=$build
  fi
  python3 "$top/testsuite/pmuvm/run.py" --build "$dir" --guest "$guest" -L "$label" \
    ${only_matching[@]+"${only_matching[@]}"} ${args[@]+"${args[@]}"} || rc=$?
  ran=$((ran + 1))
done
echo "pmuvm stage: $((SECONDS - start)) s (labels ${labels[*]})"
[ "$rc" -eq 0 ] && [ "$ran" -eq 0 ] && exit 77
exit "$rc"
