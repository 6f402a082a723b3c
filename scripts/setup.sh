#!/usr/bin/env bash
# Everything a fresh Debian 12 machine needs before `cmake --preset FLAVOUR`:
# Debian packages, Kokkos sources (network), Kokkos install for FLAVOUR (no network).
#   scripts/setup.sh [openmp|debug|cuda]     (default openmp)
# Downloads and builds go to $SHWA_DEPS (default ~/.cache/shwa), outside the checkout, and are
# reused by later runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/install-debian-deps.sh"
"$here/fetch-kokkos.sh"
"$here/build-kokkos.sh" "${1:-openmp}"
