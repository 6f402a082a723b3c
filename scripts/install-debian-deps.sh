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
  # apt-get and dpkg print several lines for each of the packages a fresh machine needs: they go
  # to a log, and reach the terminal (the log's end) only when the installation fails.
  log=${SHWA_DEPS:-$HOME/.cache/shwa}/apt-get.log
  mkdir -p "$(dirname "$log")"
  echo "shwa: installing Debian packages (apt-get's output: $log): ${missing[*]}"
  if ! { $SUDO apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
       > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "shwa: installing the Debian packages failed; the whole output is in $log" >&2
    exit 1
  fi
  echo "shwa: Debian packages installed"
fi
