#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: set-up, build (OpenMP), ctest.
#   scripts/test.sh [PRESET]     PRESET: openmp (default), openmp-float, debug, cuda, cuda-float
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-openmp}
case $preset in openmp*) flavour=openmp ;; cuda*) flavour=cuda ;; *) flavour=$preset ;; esac
scripts/setup.sh "$flavour"
cmake --preset "$preset" > /dev/null
cmake --build --preset "$preset" -j "${SHWA_JOBS:-$(nproc)}"
ctest --preset "$preset" -j "${SHWA_TEST_JOBS:-1}"
