#!/bin/sh
# Install the build into a temporary prefix, then build a PAPI 7 program
# against the installed headers with -lpapi only, and run it.
# usage: test_install.sh BUILD_DIR SOURCE CC
set -eu
build=$1 src=$2 cc=$3
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for h in papi.h papi_types.h papiStdEventDefs.h; do
  [ -f "$prefix/include/$h" ] || { echo "missing installed header $h"; exit 1; }
done
libdir=$prefix/lib
[ -d "$libdir" ] || libdir=$(dirname "$(find "$prefix" -name 'libpapi.so' | head -n 1)")
"$cc" -std=c11 -Wall -Wextra -Werror -o "$prefix/papi7_user" "$src" \
  -I"$prefix/include" -L"$libdir" -lpapi -Wl,-rpath,"$libdir"
out=$("$prefix/papi7_user")
echo "$out"
echo "$out" | grep -q '^counted perf::TASK-CLOCK [1-9][0-9]*$'
# The runtime, where built, from the install: the preload library loads the
# HDF5 writer library installed beside it (wrappers/output/h5_lib.h).
if [ -x "$prefix/bin/tally-run" ]; then
  [ -f "$libdir/libtally-h5.so" ] || { echo "missing installed libtally-h5.so beside libtally-preload.so"; exit 1; }
  (cd "$prefix" && "$prefix/bin/tally-run" --output-name=inst.h5 -- "$prefix/papi7_user" >/dev/null)
  [ -s "$prefix/inst.h5" ] || { echo "the installed runtime wrote no file"; exit 1; }
  echo "installed runtime wrote inst.h5 through libtally-h5.so"
fi
