#!/bin/sh
# What the install options leave out (the Spack variants ~fortran ~analysis
# ~papi_names, with ~mpi ~openmp ~cuda): a second configure of the source
# with them off, built and installed, holds no Fortran header, no
# tally-report, no PAPI-named file (libpapi.so, papi.pc, bin/papi_*,
# include/papi.h) -- and still builds and runs a program against
# include/tally with pkg-config tally, and its utilities from libexec/tally.
# usage: test_install_options.sh SOURCE_DIR CC
set -eu
src=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
  -DTALLY_BUILD_TESTS=OFF -DTALLY_ENABLE_MPI=OFF -DTALLY_ENABLE_OPENMP=OFF -DTALLY_ENABLE_HDF5=OFF \
  -DTALLY_ENABLE_CUDA=OFF -DTALLY_ENABLE_FORTRAN=OFF -DTALLY_ENABLE_ANALYSIS=OFF \
  -DTALLY_INSTALL_PAPI_NAMES=OFF >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "configure"; }
cmake --build "$tmp/build" -j2 >>"$tmp/log" 2>&1 || { tail -50 "$tmp/log"; fail "build"; }
cmake --install "$tmp/build" --prefix "$tmp/prefix" >>"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "install"; }
p=$tmp/prefix
(cd "$p" && find . ! -type d | sort) >"$tmp/files"
cat "$tmp/files" | grep -v '^./share/tally/doc/' | sed 's/^/  /'
for f in fpapi.h f77papi.h f90papi.h papi.mod tally-report libpapi.so papi.pc; do
  ! grep -q "/$f\$" "$tmp/files" || fail "$f installed: $(grep "/$f\$" "$tmp/files")"
done
! grep -q '^./bin/papi_' "$tmp/files" || fail "a papi_* utility in bin/"
! grep -q '^./include/[^/]*$' "$tmp/files" || fail "a header directly in include/"
! grep -q '^./share/tally/python/' "$tmp/files" || fail "share/tally/python installed with analysis OFF"
for f in include/tally/papi.h include/tally/papi_types.h include/tally/papiStdEventDefs.h \
         include/tally/tally.h lib/pkgconfig/tally.pc libexec/tally/papi_avail lib/cmake/Tally/TallyConfig.cmake; do
  grep -q "^./$f\$" "$tmp/files" || fail "$f not installed"
done
# pkg-config tally finds include/tally; a PAPI program builds with -ltally and counts.
pc="env PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config"
$pc --cflags tally | grep -q -- "/include/tally" || fail "tally.pc Cflags: $($pc --cflags tally)"
"$cc" -std=c11 -o "$tmp/count" "$p/share/tally/examples/c/count_task_clock.c" $($pc --cflags --libs tally) \
  -Wl,-rpath,"$p/lib" || fail "building against include/tally with -ltally"
out=$("$tmp/count" 2>&1) || { echo "$out"; fail "count_task_clock exited non-zero"; }
echo "$out"
echo "$out" | grep -q '^perf::TASK-CLOCK [1-9][0-9]*$' || fail "no positive perf::TASK-CLOCK count"
# The utilities run from libexec/tally (run path to lib/ from there).
"$p/libexec/tally/papi_avail" >"$tmp/avail" 2>&1 || { cat "$tmp/avail"; fail "libexec/tally/papi_avail"; }
grep -q '^PAPI version' "$tmp/avail" || { cat "$tmp/avail"; fail "papi_avail printed no PAPI version"; }
echo "install options: no Fortran headers, no tally-report, no PAPI names; -ltally program and papi_avail run"
