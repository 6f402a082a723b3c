#!/usr/bin/env bash
# One device call (about 4 min on a fresh nvidia-h200, carry .deps): builds the core tests for CUDA
# with tile-queue.patch applied and runs the failing comparison under each SHWA_QUEUE_MASK mode:
#   0  no queue (HEAD's kernels)          2   the update's tiles from the counter
#   6  the update through the same loop, team r taking tiles r, r + league, ... (no counter)
#   14 as 6, the tiles in reverse (team r takes tile tiles - 1 - r)
# and with SHWA_TEST_STEP=device (the default: the update writes the walls' ghosts), fill (the
# step from the device, the ghosts filled) or host (the step from the host, the ghosts filled).
# A mode that fails prints the first differing owned cells (i, j, field, skipping on, off).
#   git apply perf/results/2026-12-03-s30/tile-queue.patch
#   then run: bash perf/results/2026-12-03-s30/queue-debug.sh   (output in $OUT/queue-debug.txt)
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
scripts/build-kokkos.sh cuda > "$out/kokkos.log" 2>&1 || { tail "$out/kokkos.log"; exit 1; }
cmake --preset cuda -DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_APP=OFF \
  -DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" \
  -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11" > "$out/configure.log" 2>&1 || { tail "$out/configure.log"; exit 1; }
cmake --build --preset cuda -j "$(nproc)" --target test_core > "$out/build.log" 2>&1 || { grep -m5 -A3 error "$out/build.log"; exit 1; }
name='skipping dry land gives the fields of computing everything\, bit for bit'
for run in 0:device 2:device 6:device 14:device 2:fill 2:host; do
  m=${run%%:*} step=${run#*:}
  echo "== SHWA_QUEUE_MASK=$m SHWA_TEST_STEP=$step"
  SHWA_QUEUE_MASK=$m SHWA_TEST_STEP=$step timeout 120 build/cuda/tests/test_core "$name" 2>&1 |
    grep -E "^after|^differs|test cases|FAILED|teams :=|t\.(tx|ty|rows) :=" | head -24
done | tee "$out/queue-debug.txt"
