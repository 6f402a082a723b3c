#!/usr/bin/env bash
# Runs the default deck, inputs/estuary.toml, making its bathymetry first if it is missing.
#   scripts/run-estuary.sh [shwa run options, e.g. --set time.end=600]
# SHWA: the shwa binary (default: build/openmp/app/shwa).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f inputs/estuary/bathymetry.asc ] || python3 scripts/make_estuary.py
exec "${SHWA:-build/openmp/app/shwa}" run inputs/estuary.toml "$@"
