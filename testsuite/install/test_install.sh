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
