#!/usr/bin/env bash
# Install the Debian 12 packages Tally builds and tests with (only those missing).
set -euo pipefail
pkgs=(build-essential cmake pkg-config python3 libpfm4-dev libopenmpi-dev openmpi-bin
      libhdf5-openmpi-dev gfortran libomp-dev clang python3-h5py hdf5-tools
      python3-numpy python3-pandas python3-matplotlib libdw-dev
      libotf2-trace-dev otf2-tools python3-otf2
      flake8 black python3-setuptools python3-wheel python3-venv python3-pil chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
