#!/usr/bin/env bash
# For a machine without a package registry (the GPU machine): download the Debian packages of the
# header-only dependencies (Catch2 2, CLI11, toml11) into DEPS_DIR/debs. perf/gpu_session.sh unpacks
# them there with dpkg -x and points CMake at them.
#   scripts/stage-offline-debs.sh [DEPS_DIR]     (default: $SHWA_DEPS or ~/.cache/shwa)
set -euo pipefail
deps=$(mkdir -p "${1:-${SHWA_DEPS:-$HOME/.cache/shwa}}" && cd "${1:-${SHWA_DEPS:-$HOME/.cache/shwa}}" && pwd)
mkdir -p "$deps/debs"
cd "$deps/debs"
apt-get download -o APT::Sandbox::User=root catch2 libcli11-dev libtoml11-dev 2>&1 | grep -v "^W:" || true
ls "$deps/debs"
