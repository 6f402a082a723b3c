#!/usr/bin/env bash
# Session 31, call 6 (host-tile-list-16cores.txt): the host passes over listed tiles (working tree) against HEAD, OpenMP on the
# Run on the device (carry .deps and inputs/estuary/bathymetry.asc) with host-tile-list.patch applied
# and .deps/s31/head2.tgz made from the commit it applies to (git archive --format=tar.gz -o ...).
# machine's 16 cores, the default estuary to its end, skipping on and off, alternated.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh openmp > "$out/k.log" 2>&1 || { tail "$out/k.log"; exit 1; }
echo "kokkos done $(date +%T)"
rm -rf /tmp/h && mkdir -p /tmp/h && tar xzf .deps/s31/head2.tgz -C /tmp/h
cp inputs/estuary/bathymetry.asc /tmp/h/inputs/estuary/ 2>/dev/null
( cd /tmp/h && cmake --preset openmp "${cfg[@]}" > "$out/c1.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa > "$out/b1.log" 2>&1 || echo "head FAILED" ) &
( cmake --preset openmp "${cfg[@]}" > "$out/c2.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa > "$out/b2.log" 2>&1 || echo "new FAILED" ) &
wait
echo "builds done $(date +%T)"
for r in 1 2; do
  for tree in head new; do
    b=build/openmp/app/shwa; [ $tree = head ] && b=/tmp/h/build/openmp/app/shwa
    for skip in true false; do
      OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads $b run inputs/estuary.toml --set 'output.formats=["vtk"]' \
        --set output.dir=/tmp/est-$tree --overwrite --set time.output_interval=5400 --set numerics.skip_dry=$skip > "$out/run.log" 2>&1 || { tail -3 "$out/run.log"; continue; }
      python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
print(f'r{sys.argv[2]} {sys.argv[3]} skip={sys.argv[4]}: {d[\"steps\"]} steps, loop {d[\"time_loop_s\"]:.3f} s')" /tmp/est-$tree/summary.json $r $tree $skip
    done
  done
done | tee "$out/host-list.txt"
