#!/usr/bin/env bash
# Session 35: the host CFL sums computed in the decoupled update (the working tree, "new") against
# the tree before it (_base/, a git archive of 8ca6695), on the device's 16 host cores: shwa_bench
# all wet (double, 128x8 tiles) and the default estuary with skipping on and off, two alternated
# rounds; then the new tree's float benchmark (256x8). Carry .deps and the bathymetry.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
scripts/build-kokkos.sh openmp > "$out/kokkos-build.log" 2>&1 || { tail -20 "$out/kokkos-build.log"; exit 1; }
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCMAKE_PREFIX_PATH=$SHWA_DEPS/install/openmp
     -DCatch2_DIR=$PWD/.deps/sysroot/usr/lib/cmake/Catch2 -DCLI11_DIR=$PWD/.deps/sysroot/usr/share/cmake/CLI11
     -Dtoml11_DIR=$PWD/.deps/sysroot/usr/share/cmake/toml11)
for tree in base new; do
  src=.; [ $tree = new ] || src=_$tree
  ( cmake -S $src -B build/f-$tree --preset openmp "${cfg[@]}" &&
    cmake --build build/f-$tree -j 6 --target shwa shwa_bench shwa_kernel_timer ) > "$out/build-$tree.log" 2>&1 &
done
( cmake -S . -B build/f-float --preset openmp-float "${cfg[@]}" -DSHWA_ENABLE_APP=OFF &&
  cmake --build build/f-float -j 4 --target shwa_bench ) > "$out/build-float.log" 2>&1 &
wait
export OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads
for r in 1 2; do
  for tree in base new; do
    echo "== r$r $tree bench double"
    build/f-$tree/perf/shwa_bench --sizes 4096,8192 --variants decoupled --tiles 128x8 --steps 10 --warmup 2 | grep decoupled
  done
  for skip in true false; do
    for tree in base new; do
      KOKKOS_PROFILE_LIBRARY=$PWD/build/f-$tree/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/k.txt \
        build/f-$tree/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/e \
        --overwrite --set time.end=5400 --set time.output_interval=5400 --set numerics.skip_dry=$skip > /tmp/e.log 2>&1 || tail -3 /tmp/e.log
      echo "== r$r $tree estuary skip=$skip $(grep -o '"steps": [0-9]*' /tmp/e/summary.json) $(grep -o '"time_loop_s": [0-9.]*' /tmp/e/summary.json)"
      grep -E "flux_update|cfl_min|maxima|fill_b" /tmp/k.txt
    done
  done
done 2>&1 | tee "$out/fused-ab.txt"
for r in 1 2; do
  build/f-float/perf/shwa_bench --sizes 4096,8192 --variants decoupled --tiles 256x8 --steps 10 --warmup 2 | grep decoupled
done 2>&1 | tee "$out/fused-float.txt"
