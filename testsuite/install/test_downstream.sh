#!/bin/sh
# Build the installed examples (share/tally/examples) as a downstream
# project would, against an installed and then moved Tally, and run them
# without LD_LIBRARY_PATH.
# usage: test_downstream.sh BUILD_DIR cmake|pkgconfig c|fortran CC [FC]
set -eu
build=$1 how=$2 lang=$3 cc=$4 fc=${5:-}
. "$(dirname "$0")/common.sh"
install_moved "$build"
ex=$prefix/share/tally/examples
[ -d "$ex" ] || fail "examples not installed in $ex"
if [ "$lang" = fortran ]; then
  [ -n "$fc" ] || { echo "SKIP: no Fortran compiler"; exit 77; }
  [ -f "$prefix/include/fpapi.h" ] || { echo "SKIP: Fortran bindings not built"; exit 77; }
fi
unset LD_LIBRARY_PATH
work=$tmp/work
mkdir -p "$work"
case $how in
cmake)
  fortran=OFF
  [ "$lang" = fortran ] && fortran=ON
  cmake -S "$ex/cmake" -B "$work" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    ${fc:+-DCMAKE_Fortran_COMPILER="$fc"} -DWITH_FORTRAN=$fortran >"$work.log" 2>&1 ||
    { cat "$work.log"; fail "configuring the find_package(Tally) example"; }
  cmake --build "$work" >>"$work.log" 2>&1 || { cat "$work.log"; fail "building the CMake example"; }
  # The imported targets point into the moved prefix, not the build tree.
  grep -q "$prefix/lib" "$work/CMakeCache.txt" "$work"/CMakeFiles/*.dir/link.txt 2>/dev/null ||
    fail "the example did not link against $prefix/lib"
  ;;
pkgconfig)
  pc="env PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config"
  [ "$($pc --modversion papi)" = 7.1.0 ] || fail "papi.pc version"
  $pc --exists 'tally >= 0.1' || fail "tally.pc missing or too old"
  # The flags resolve to the moved prefix.
  $pc --cflags papi | grep -q -- "-I$prefix/lib/pkgconfig/../../include" || fail "papi.pc Cflags: $($pc --cflags papi)"
  target=all
  [ "$lang" = fortran ] && target=fortran
  # as the Makefile's head documents it: on make's command line (GNU Make 4.3
  # did not pass it to $(shell) until the Makefile did; issue 52)
  env -u PKG_CONFIG_PATH make -C "$work" -f "$ex/make/Makefile" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" CC="$cc" FC="$fc" $target \
    >"$work.log" 2>&1 || { cat "$work.log"; fail "building the pkg-config example"; }
  ;;
*) fail "unknown way $how" ;;
esac
exe=$work/count_task_clock
[ "$lang" = fortran ] && exe=${exe}_f
[ -x "$exe" ] || fail "$exe was not built"
expect_count "$("$exe")"
