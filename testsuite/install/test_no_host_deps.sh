#!/bin/sh
# A build that switches an optional dependency off finds nothing of it on
# the machine (what a Spack spec did not ask for must not leak in from
# /usr or /usr/local/cuda): configured with TALLY_ENABLE_OTF2=OFF,
# TALLY_ENABLE_NVTX=OFF and TALLY_ENABLE_CUDA=OFF, no OTF2 library or
# header and no NVTX/CUDA include directory is in the cache or in any
# compile command.  The same configure with the options left to their
# defaults must find them where the machine has them (else the check
# could not see a leak: that half says so and is not counted).
# usage: test_no_host_deps.sh SOURCE_DIR C_COMPILER
set -eu
src=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
conf() { # dir args...
  d=$1; shift
  cmake -S "$src" -B "$tmp/$d" -DCMAKE_C_COMPILER="$cc" -DTALLY_BUILD_TESTS=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >"$tmp/$d.log" 2>&1 || { cat "$tmp/$d.log"; fail "configure $d"; }
}
leaks() { # dir: print what of OTF2/NVTX/CUDA the build took
  grep -E '^(TALLY_OTF2_LIB|TALLY_OTF2_INCLUDE|TALLY_NVTX3_INCLUDE|CUDAToolkit_[A-Za-z_]*)[:A-Z]*=.+' "$tmp/$1/CMakeCache.txt" \
    | grep -v -E '=(|.*-NOTFOUND)$' || true
  grep -o -E 'otf2[^ "]*|TALLY_HAVE_(OTF2|NVTX)=1|/usr/local/cuda[^ "]*' "$tmp/$1/compile_commands.json" \
    | sort -u || true
}
conf off -DTALLY_ENABLE_OTF2=OFF -DTALLY_ENABLE_NVTX=OFF -DTALLY_ENABLE_CUDA=OFF
found=$(leaks off)
[ -z "$found" ] || fail "switched off, the build still took from the machine: $(echo $found)"
echo "off: nothing of OTF2, NVTX or CUDA found or used"
# the other half: defaults find what the machine has
if [ -e /usr/include/otf2/otf2.h ] || [ -e /usr/local/cuda/include/nvtx3/nvToolsExtPayload.h ]; then
  conf on -DTALLY_ENABLE_CUDA=OFF
  on=$(leaks on)
  [ -n "$on" ] || fail "with the defaults the machine's OTF2/NVTX headers were not found: the check cannot see a leak"
  echo "defaults: found $(echo "$on" | head -3 | tr '\n' ' ')"
else
  echo "defaults: this machine has neither OTF2 nor NVTX headers (the leak check above stands alone)"
fi
