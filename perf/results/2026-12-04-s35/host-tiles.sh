#!/usr/bin/env bash
# Session 35: the all-wet benchmark on the device's 16 host cores with other host tile shapes,
# double and float, decoupled, two rounds. Carry .deps.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
scripts/build-kokkos.sh openmp > "$out/kokkos-build.log" 2>&1 || { tail -20 "$out/kokkos-build.log"; exit 1; }
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DSHWA_ENABLE_APP=OFF -DCMAKE_PREFIX_PATH=$SHWA_DEPS/install/openmp
     -DCatch2_DIR=$PWD/.deps/sysroot/usr/lib/cmake/Catch2 -DCLI11_DIR=$PWD/.deps/sysroot/usr/share/cmake/CLI11)
for p in openmp openmp-float; do
  ( cmake -S . -B build/s35-$p --preset $p "${cfg[@]}" && cmake --build build/s35-$p -j 8 --target shwa_bench ) > "$out/build-$p.log" 2>&1 &
done
wait
for r in 1 2; do
  for p in openmp-float openmp; do
    OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads build/s35-$p/perf/shwa_bench --sizes 4096,8192 \
      --variants decoupled --tiles ${TILES:-128x8,256x8,128x16,256x16,512x8} --steps 10 --warmup 2 | grep -v "^#"
  done
done 2>&1 | tee "$out/host-tiles.txt"
