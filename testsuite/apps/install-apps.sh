#!/usr/bin/env bash
# Install the real applications of the apps stage (Debian 12 packages):
# hpcc, lammps, cp2k.  Only those missing; recommends left out (docs,
# examples: about 100 MB to fetch).  A package that cannot be installed is
# reported here and its test skips with the reason; the script itself
# never fails the stage.
set -u
pkgs=(hpcc lammps cp2k)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && { echo "install-apps: ${pkgs[*]} already installed"; exit 0; }
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-apps: installing ${missing[*]}"
$SUDO apt-get update -qq || echo "install-apps: apt-get update failed"
export DEBIAN_FRONTEND=noninteractive
# all at once (one dependency resolution); one by one only if that fails
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
  for p in "${missing[@]}"; do
    $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
      echo "install-apps: could not install $p: its test will skip"
  done
exit 0
