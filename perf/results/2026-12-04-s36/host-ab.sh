#!/usr/bin/env bash
# Session 36: the default estuary deck on the host in alternated rounds, dry-land skipping on and
# off, on $THREADS host threads, for each of $CONFIGS, "TREE:WAIT": TREE new is the working tree,
# any other NAME is _NAME/ (a git archive of an earlier commit); WAIT is libgomp's OMP_WAIT_POLICY
# (default: unset, libgomp's spin-then-sleep). Each run's time loop and each kernel's wall time
# (perf/kernel_timer.cpp). Run on the device (carry .deps and inputs/estuary/bathymetry.asc).
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh openmp > "$out/kokkos-build.log" 2>&1 || { tail -20 "$out/kokkos-build.log"; exit 1; }
configs=${CONFIGS:-base:default new:default}
trees=$(for c in $configs; do echo "${c%%:*}"; done | sort -u)
for tree in $trees; do
  src=.; [ "$tree" = new ] || src=_$tree
  ( cmake -S $src -B build/ab-$tree --preset openmp "${cfg[@]}" -DCMAKE_PREFIX_PATH="$SHWA_DEPS/install/openmp" &&
    cmake --build build/ab-$tree -j 8 --target shwa shwa_kernel_timer ) > "$out/build-$tree.log" 2>&1 &
done
wait
for tree in $trees; do [ -x build/ab-$tree/app/shwa ] || { echo "$tree build FAILED"; tail -20 "$out/build-$tree.log"; exit 1; }; done
nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node" 
for r in $(seq "${ROUNDS:-3}"); do
  for th in ${THREADS:-16}; do
    for skip in true false; do
      for c in $configs; do
        tree=${c%%:*} wait_=${c#*:}
        env_=(OMP_NUM_THREADS=$th OMP_PROC_BIND=spread OMP_PLACES=threads)
        [ "$wait_" = default ] || env_+=(OMP_WAIT_POLICY=$wait_)
        env "${env_[@]}" \
          KOKKOS_PROFILE_LIBRARY=$PWD/build/ab-$tree/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/k.txt \
          build/ab-$tree/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/e \
          --overwrite --set time.end="${END:-5400}" --set time.output_interval="${END:-5400}" \
          --set numerics.skip_dry=$skip ${SET:+--set "$SET"} > /tmp/e.log 2>&1 || { tail -3 /tmp/e.log; continue; }
        echo "== r$r $c threads=$th skip=$skip $(grep -o '"steps": [0-9]*' /tmp/e/summary.json) $(grep -o '"time_loop_s": [0-9.]*' /tmp/e/summary.json)"
        sed -n 3,7p /tmp/k.txt
      done
    done
  done
done | tee "$out/host-ab.txt"
