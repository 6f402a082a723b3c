#!/usr/bin/env bash
# Session 33: each host thread's time inside the tiles of the update, CFL and maxima passes
# (host-launchprof.patch applied: where each launch's wall time goes), on the estuary to t = $END s, at each of $THREADS host threads
# with dry-land skipping on and off; beside each kernel's wall time (perf/kernel_timer.cpp).
# Run on the device (carry .deps and inputs/estuary/bathymetry.asc).
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
if [ ! -x build/openmp/app/shwa ] || [ "${REBUILD:-1}" = 1 ]; then
  { scripts/build-kokkos.sh openmp && cmake --preset openmp "${cfg[@]}" && cmake --build --preset openmp -j 16 --target shwa shwa_kernel_timer; } > "$out/openmp-build.log" 2>&1 || { tail -20 "$out/openmp-build.log"; exit 1; }
fi
for r in $(seq "${ROUNDS:-1}"); do
for th in ${THREADS-16 8 4}; do
  for skip in true false; do
    OMP_NUM_THREADS=$th OMP_PROC_BIND=spread OMP_PLACES=threads \
      KOKKOS_PROFILE_LIBRARY=$PWD/build/openmp/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/k.txt \
      build/openmp/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/e \
      --overwrite --set time.end="${END:-1200}" --set time.output_interval="${END:-1200}" \
      --set numerics.skip_dry=$skip ${SET:+--set "$SET"} > /tmp/e.log 2>&1 || { tail -3 /tmp/e.log; continue; }
    echo "== r$r threads=$th skip=$skip $(grep -o '"time_loop_s": [0-9.]*' /tmp/e/summary.json)"
    grep launchprof /tmp/e.log | sed "s/us a launch: //"; sed -n 3,6p /tmp/k.txt
  done
done
done | tee "$out/host-tileprof.txt"
