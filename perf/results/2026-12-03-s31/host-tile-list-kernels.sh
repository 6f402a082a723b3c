#!/usr/bin/env bash
# Next step for host-tile-list.patch (not run: no budget left): host-tile-list-call.sh's two OpenMP builds with the kernel timer, estuary to 1200 s, 16 threads.
# Run on the device (carry .deps and inputs/estuary/bathymetry.asc) with host-tile-list.patch applied
# and .deps/s31/head2.tgz made from the commit it applies to (git archive --format=tar.gz -o ...).
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh openmp > "$out/k.log" 2>&1 || { tail "$out/k.log"; exit 1; }
rm -rf /tmp/h && mkdir -p /tmp/h && tar xzf .deps/s31/head2.tgz -C /tmp/h
cp inputs/estuary/bathymetry.asc /tmp/h/inputs/estuary/ 2>/dev/null
( cd /tmp/h && cmake --preset openmp "${cfg[@]}" > "$out/c1.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa shwa_kernel_timer > "$out/b1.log" 2>&1 || echo "head FAILED" ) &
( rm -rf build/openmp && cmake --preset openmp "${cfg[@]}" > "$out/c2.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa > "$out/b2.log" 2>&1 || echo "new FAILED" ) &
wait
echo "builds done $(date +%T)"
for tree in head new; do
  b=build/openmp/app/shwa; [ $tree = head ] && b=/tmp/h/build/openmp/app/shwa
  for skip in true false; do
    OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads KOKKOS_PROFILE_LIBRARY=/tmp/h/build/openmp/perf/libshwa_kernel_timer.so \
      SHWA_KERNEL_TIMES=/tmp/kt.txt $b run inputs/estuary.toml --set 'output.formats=["vtk"]' \
      --set output.dir=/tmp/est-$tree --overwrite --set time.end=1200 --set time.output_interval=1200 --set numerics.skip_dry=$skip > "$out/run.log" 2>&1 || { tail -3 "$out/run.log"; continue; }
    echo "== $tree skip=$skip"; sed -n 3,8p /tmp/kt.txt
  done
done | tee "$out/host-list-kernels.txt"
