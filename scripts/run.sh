#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: set-up, build (OpenMP), then the default deck
# inputs/estuary.toml (its bathymetry is generated on first use by scripts/make_estuary.py).
# Results land in the deck's output directory (out/estuary): PNG quicklooks, a ParaView .pvd
# series, NetCDF, gauges and summary.json.
#   scripts/run.sh [shwa run options, e.g. --set time.end=600]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh openmp
cmake --preset openmp > /dev/null
cmake --build --preset openmp -j "${SHWA_JOBS:-$(nproc)}" --target shwa
exec scripts/run-estuary.sh "$@"
