#!/usr/bin/env bash
# On the GPU machine: build (if needed), then a debugger look at one test and Nsight Compute on the
# step kernels (the CFL reduction and the flux/update kernel) of the benchmark.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps
out=${OUT:-$PWD/out}; mkdir -p "$out"
[ -x build/cuda/tests/test_core ] || SHWA_WITH_OPENMP=${SHWA_WITH_OPENMP:-0} bash perf/gpu_session.sh 1024 > "$out/session.log" 2>&1
cmake --build --preset cuda -j 16 > /dev/null 2>&1 || echo BUILD FAILED
if [ -n "${DEBUG_TEST:-}" ]; then
  cuda-gdb -batch -ex run -ex 'x/4gx $sp' -ex 'info symbol *(unsigned long*)$sp' \
    -ex 'info symbol *(unsigned long*)($sp+8)' --args build/cuda/tests/test_core "$DEBUG_TEST" 2>&1 | tail -12
  compute-sanitizer --tool memcheck build/cuda/tests/test_core "$DEBUG_TEST" 2>&1 | tail -25
fi
# Skip the copy-bandwidth probe's launches (11) and the set-up kernels; profile a few step kernels.
ncu --kernel-name-base demangled --kernel-name regex:"flux_update|cfl_min_dt" --launch-skip 2 --launch-count 4 \
  --section SpeedOfLight --section LaunchStats --section Occupancy \
  build/cuda/perf/shwa_bench --sizes 4096 --variants ${VARIANTS:-decoupled} --tiles ${TILES:-32x4} --steps 3 --warmup 1 \
  > "$out/ncu.txt" 2>&1
grep -E "^  [a-z].*cuda_parallel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Compute \(SM\)|Block Size|Local|Dynamic Shared" "$out/ncu.txt" | sed 's/cuda_parallel_launch_local_memory<Kokkos::Impl:://' | cut -c1-160 | head -60
