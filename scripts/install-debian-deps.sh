#!/usr/bin/env bash
# Installs what shwa needs from Debian 12's packages (run as root, or with sudo on PATH).
# Idempotent: a second run installs nothing and takes a second.
set -euo pipefail

pkgs=(build-essential cmake ninja-build git pkg-config dpkg-dev
      libopenmpi-dev openmpi-bin catch2 libcli11-dev libtoml11-dev
      libnetcdf-dev libpng-dev zlib1g-dev
      python3 python3-numpy python3-matplotlib valgrind)

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "shwa: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
