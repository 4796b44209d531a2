#!/usr/bin/env bash
# Build the arm64 guest used by the PMU test bed (see docs/pmuvm.md).
#
# Installs the host packages it needs (apt-get, sudo when not root), then
# unpacks an arm64 Debian root file system with mmdebstrap from the mirror
# this machine's apt is configured with, and packs it as an initramfs next
# to the guest kernel.  Everything goes to a cache directory keyed by a
# hash of the package list and this script, so later runs reuse it.
#
# `setup.sh sysroot` makes instead an arm64 sysroot with the development
# packages of Tally's runtime (Open MPI, parallel HDF5, libdw, libpfm4) for
# cross-building it (aarch64-runtime.cmake), cached the same way.
#
# Prints the guest (or sysroot) directory on its last line of stdout.
# Exit status 77: the host packages cannot be installed (the caller
# reports a skip).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

host_pkgs=(qemu-system-arm mmdebstrap cpio gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
guest_pkgs=(busybox-static libc6 libpfm4 libpfm4-dev libpapi-dev papi-tools linux-image-arm64)

# What the runtime (wrappers/) is built against; the guest gets only the
# shared libraries it loads, packed from here by run.py.
sysroot_pkgs=(libc6-dev libpfm4-dev libopenmpi-dev libhdf5-openmpi-dev libdw-dev)

# Bump when the guest's layout (what build_guest makes) changes.
layout=1
# Bump when what build_sysroot makes changes.
sysroot_layout=1

log() { echo "pmuvm-setup: $*" >&2; }

install_host_pkgs() {
  local missing=() p SUDO=""
  for p in "${host_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  log "installing host packages: ${missing[*]}"
  if ! { $SUDO dpkg --add-architecture arm64 && $SUDO apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    log "SKIP: cannot install ${missing[*]} (no apt access?); the PMU test bed cannot run here"
    exit 77
  fi
}

# The guest is Debian $suite; its packages come from the mirror this
# machine's apt is configured with for that suite's main component, as apt
# itself reports it (apt-get indextargets reads sources.list, *.list and
# deb822 *.sources alike).  No host name is built in: with no such mirror
# configured, the test bed cannot be made here, and we say so.
suite=bookworm

debian_mirror() {
  local m
  m=$(apt-get indextargets --format '$(TARGET_OF) $(RELEASE) $(COMPONENT) $(REPO_URI)' 2>/dev/null |
      awk -v s="$suite" '$1 == "deb" && $2 == s && $3 == "main" { print $4; exit }')
  if [ -z "$m" ]; then
    log "SKIP: apt is configured with no Debian mirror for '$suite main' (see apt-get indextargets);"
    log "      add one to /etc/apt/sources.list.d/ (e.g. a debian.sources with 'Suites: $suite') and retry"
    exit 77
  fi
  echo "${m%/}"
}

cache_root() {
  echo "${TALLY_PMUVM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tally-pmuvm}"
}

# Files of the rootfs the guest never needs (modules, docs, locales,
# python, static archives) stay out of the initramfs: a smaller archive
# unpacks faster in the emulated guest.
pack_initramfs() { # rootfs out
  (cd "$1" && find . \( -path ./boot -o -path ./lib/modules -o -path ./usr/lib/modules \
      -o -path ./usr/share -o -path ./usr/include -o -path ./var/cache \
      -o -path './usr/lib/python3*' -o -path './usr/lib/linux-image-*' -o -path ./usr/lib/klibc \
      -o -path ./usr/lib/aarch64-linux-gnu/gconv -o -path ./usr/lib/aarch64-linux-gnu/perl-base \
      -o -name '*.a' \) -prune -o -print | cpio -o -H newc --quiet) | gzip -1 > "$2"
}

# Symlink farm for cross builds: only libpfm and PAPI, so the cross
# compiler's own glibc is never shadowed by the rootfs copy.
make_cross_dirs() { # guest
  local g=$1 ml=usr/lib/aarch64-linux-gnu
  mkdir -p "$g/cross/pfm/include" "$g/cross/pfm/lib" "$g/cross/papi/include" "$g/cross/papi/lib"
  ln -sfn "$g/rootfs/usr/include/perfmon" "$g/cross/pfm/include/perfmon"
  ln -sfn "$(readlink -f "$g/rootfs/$ml/libpfm.so")" "$g/cross/pfm/lib/libpfm.so"
  ln -sfn "$(readlink -f "$g/rootfs/$ml/libpfm.so")" "$g/cross/pfm/lib/libpfm.so.4"
  local h
  for h in papi.h papiStdEventDefs.h; do
    ln -sfn "$g/rootfs/usr/include/$h" "$g/cross/papi/include/$h"
  done
  ln -sfn "$(readlink -f "$g/rootfs/$ml/libpapi.so")" "$g/cross/papi/lib/libpapi.so"
}

build_guest() { # dir mirror
  local g=$1 mirror=$2 tmp
  tmp="$g.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  log "unpacking arm64 rootfs from $mirror (${guest_pkgs[*]})"
  mmdebstrap --quiet --variant=extract --arch=arm64 --include="$(IFS=,; echo "${guest_pkgs[*]}")" \
    "$suite" "$tmp/rootfs" "$mirror" >&2
  ln -sf busybox "$tmp/rootfs/bin/sh"
  local k
  k=$(ls "$tmp"/rootfs/boot/vmlinuz-* | sort -V | tail -n1)
  cp "$k" "$tmp/vmlinuz"
  pack_initramfs "$tmp/rootfs" "$tmp/base.cpio.gz"
  rm -rf "$g"; mv "$tmp" "$g"
  make_cross_dirs "$g"
}

# Absolute links of the rootfs (libm.so -> /lib/aarch64-linux-gnu/libm.so.6)
# would name the host's files: each becomes relative, inside the sysroot.
relative_links() { # root
  local l t
  find "$1" -type l -lname '/*' -print0 | while IFS= read -r -d '' l; do
    t=$(readlink "$l")
    ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$1$t")" "$l"
  done
}

build_sysroot() { # dir mirror
  local s=$1 mirror=$2 tmp
  tmp="$s.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  log "unpacking arm64 sysroot from $mirror (${sysroot_pkgs[*]})"
  mmdebstrap --quiet --variant=extract --arch=arm64 --include="$(IFS=,; echo "${sysroot_pkgs[*]}")" \
    "$suite" "$tmp" "$mirror" >&2
  rm -rf "$tmp"/usr/share/{doc,man,info,locale} "$tmp/dev"
  relative_links "$tmp"
  rm -rf "$s"; mv "$tmp" "$s"
}

sysroot_main() { # mirror
  local key s
  key=$(printf '%s\n' sysroot "${sysroot_pkgs[@]}" "$1" "$sysroot_layout" | sha256sum | cut -c1-16)
  s="$(cache_root)/sysroot-$key"
  if [ -f "$s/usr/include/hdf5/openmpi/hdf5.h" ] && [ -d "$s/usr/lib/aarch64-linux-gnu/pkgconfig" ]; then
    log "reusing sysroot $s"
  else
    mkdir -p "$(cache_root)"
    build_sysroot "$s" "$1"
    log "sysroot ready in $s"
  fi
  echo "$s"
}

main() {
  install_host_pkgs
  local key g mirror
  mirror=$(debian_mirror)
  if [ "${1:-}" = sysroot ]; then
    sysroot_main "$mirror"
    return
  fi
  key=$(printf '%s\n' "${guest_pkgs[@]}" "$mirror" "$layout" | sha256sum | cut -c1-16)
  g="$(cache_root)/guest-$key"
  if [ -f "$g/base.cpio.gz" ] && [ -f "$g/vmlinuz" ]; then
    make_cross_dirs "$g"
    log "reusing guest $g"
  else
    mkdir -p "$(cache_root)"
    build_guest "$g" "$mirror"
    log "guest ready in $g"
  fi
  echo "$g"
}
main "$@"
