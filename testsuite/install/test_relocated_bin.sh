#!/bin/sh
# Installed binaries run from a moved prefix without LD_LIBRARY_PATH: every
# ELF file in bin/ and lib/ has $ORIGIN/../lib in its run path (binaries),
# resolves all its libraries, and libtally comes from the prefix, not the
# build tree.  The utilities then run and count.
# usage: test_relocated_bin.sh BUILD_DIR
set -eu
. "$(dirname "$0")/common.sh"
install_moved "$1"
unset LD_LIBRARY_PATH
n=0
for f in "$prefix"/bin/* "$prefix"/lib/*.so*; do
  [ -f "$f" ] && head -c 4 "$f" | grep -q 'ELF' || continue
  n=$((n + 1))
  deps=$(ldd "$f") || fail "ldd $f"
  if echo "$deps" | grep -q 'not found'; then
    echo "$deps"; fail "$f has unresolved libraries"
  fi
  if echo "$deps" | grep -q 'libtally\.so'; then
    echo "$deps" | grep -q "libtally\.so.* => $prefix/bin/\.\./lib/libtally\.so\|libtally\.so.* => $prefix/lib/libtally\.so" ||
      { echo "$deps"; fail "$f does not take libtally from $prefix"; }
  fi
  case $f in
  "$prefix"/bin/*)
    readelf -d "$f" | grep -E 'RUNPATH|RPATH' | grep -q '\$ORIGIN/\.\./lib' || fail "$f has no \$ORIGIN/../lib run path"
    ;;
  esac
done
[ -x "$prefix/bin/papi_avail" ] || fail "papi_avail not installed"
[ "$n" -ge 10 ] || fail "only $n ELF files installed"
echo "checked $n ELF files"
"$prefix/bin/papi_avail" >"$tmp/avail.out" || fail "papi_avail exit status"
grep -q '^PAPI version *: 7\.' "$tmp/avail.out" || fail "papi_avail output"
"$prefix/bin/papi_component_avail" | grep -q perf_event || fail "papi_component_avail lists no perf_event"
out=$("$prefix/bin/papi_command_line" perf::TASK-CLOCK) || fail "papi_command_line exit status"
echo "$out"
echo "$out" | grep -q '^perf::TASK-CLOCK : [1-9][0-9]*$' || fail "papi_command_line counted nothing"
