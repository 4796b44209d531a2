#!/bin/sh
# Install the build into a temporary prefix; check the Fortran files are
# there; build a fixed-form program with -fno-underscoring, the default and
# -fsecond-underscore, and a `use papi` program without and with
# underscoring, each with -lpapi only, and run them.
# usage: test_install_manglings.sh BUILD_DIR SOURCE_DIR FC
set -eu
build=$1 src=$2 fc=$3
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/fpapi.h include/f77papi.h include/f90papi.h include/papi.mod; do
  [ -f "$prefix/$f" ] || { echo "missing installed $f"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name 'libpapi.so' | head -n 1)")
# the flags a pkg-config consumer gets (papi.pc), else the include dir
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags papi 2>/dev/null) || flags="-I$prefix/include"
for mode in -fno-underscoring "" -fsecond-underscore; do
  exe="$prefix/mangle${mode}"
  # shellcheck disable=SC2086
  "$fc" $mode -Wall -Werror $flags -o "$exe" "$src/mangle_prog.F" -L"$libdir" -lpapi -Wl,-rpath,"$libdir"
  # the program must reference the external names of this convention
  case $mode in
    -fno-underscoring) sym=papif_start ;;
    -fsecond-underscore) sym=papif_start__ ;;
    *) sym=papif_start_ ;;
  esac
  nm -u "$exe" | grep -q " $sym\$" || { echo "$exe does not call $sym"; exit 1; }
  echo "fixed form ${mode:-default} ($sym): $("$exe")"
done
for mode in -fno-underscoring ""; do
  exe="$prefix/mangle_mod${mode}"
  # shellcheck disable=SC2086
  "$fc" $mode -Wall -Werror $flags -o "$exe" "$src/mangle_mod.f90" -L"$libdir" -lpapi -Wl,-rpath,"$libdir"
  echo "use papi ${mode:-default}: $("$exe")"
done
