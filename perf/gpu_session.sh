#!/usr/bin/env bash
# One call on the GPU machine (no network): build Kokkos + shwa for CUDA from sources carried in
# .deps/src, run the whole test suite there, then the benchmarks (CUDA double and float, and the
# OpenMP build on all host cores for the GPU-vs-CPU comparison). Results go to $OUT (or ./out).
#   perf/gpu_session.sh [bench sizes]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
sizes=${1:-4096,8192}
cfg=(-DSHWA_ENABLE_APP=${SHWA_ENABLE_APP:-OFF} -DSHWA_ENABLE_MPI=${SHWA_ENABLE_MPI:-OFF})
# Header-only Debian packages staged by scripts/stage-offline-debs.sh (this machine has no registry).
if ls .deps/debs/*.deb > /dev/null 2>&1; then
  for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
  cfg+=(-DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11"
        -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
fi
{ nvidia-smi -L; nvcc --version | tail -2; cmake --version | head -1; } > "$out/machine.txt" 2>&1
scripts/build-kokkos.sh cuda || exit 1
cmake --preset cuda "${cfg[@]}" > "$out/configure-cuda.log" 2>&1 || { tail -30 "$out/configure-cuda.log"; exit 1; }
cmake --build --preset cuda -j "$SHWA_JOBS" > "$out/build-cuda.log" 2>&1 || { grep -m20 error "$out/build-cuda.log"; exit 1; }
ctest --preset cuda 2>&1 | tee "$out/ctest-cuda.log" | tail -25
build/cuda/perf/shwa_bench --sizes "$sizes" --variants recompute,decoupled --tiles ${TILES:-32x8,32x4,64x4,16x16} \
  --steps 50 --json "$out/bench-cuda-double.json" | tee "$out/bench-cuda-double.log"
cmake --preset cuda-float "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
  cmake --build --preset cuda-float -j "$SHWA_JOBS" --target shwa_bench > "$out/build-cuda-float.log" 2>&1 &&
  build/cuda-float/perf/shwa_bench --sizes "$sizes" --variants recompute,decoupled --tiles ${TILES:-32x8,32x4,64x4,16x16} \
    --steps 50 --json "$out/bench-cuda-float.json" | tee "$out/bench-cuda-float.log"
if [ "${SHWA_WITH_OPENMP:-1}" = 1 ]; then
  scripts/build-kokkos.sh openmp > "$out/kokkos-openmp.log" 2>&1 &&
    cmake --preset openmp "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF > "$out/configure-openmp.log" 2>&1 &&
    cmake --build --preset openmp -j "$SHWA_JOBS" --target shwa_bench > "$out/build-openmp.log" 2>&1 &&
    OMP_PROC_BIND=spread OMP_PLACES=threads build/openmp/perf/shwa_bench --sizes 2048,4096 \
      --variants recompute,decoupled --tiles ${CPU_TILES:-32x8,256x8} --steps 10 --warmup 2 \
      --json "$out/bench-openmp-double.json" | tee "$out/bench-openmp-double.log" ||
    { echo "OpenMP build failed:"; grep -h -m3 -A6 "error" "$out"/kokkos-openmp.log "$out"/configure-openmp.log "$out"/build-openmp.log 2>/dev/null | head -40; }
fi
