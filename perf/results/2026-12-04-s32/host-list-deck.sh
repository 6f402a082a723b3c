#!/usr/bin/env bash
# Session 32, call 2 (host-list-deck.txt) and call 4 (KERNELS=0 ROUNDS=4: host-list-deck-k0.txt): the host passes over listed tiles, the cheap passes taking cheap_chunk tiles a take (host-tile-list-chunked.patch applied to 134475b), against 134475b itself (.deps/s32/head.tgz, git archive of it): each kernel's time on 16 threads (estuary
# to 1200 s), then the whole default deck (5400 s), skipping on and off, alternated, two rounds.
# KERNELS=0 leaves the kernel tables out, ROUNDS=n runs n rounds. Run on the device, carrying .deps and inputs/estuary/bathymetry.asc.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh openmp > "$out/k.log" 2>&1 || { tail "$out/k.log"; exit 1; }
rm -rf /tmp/h && mkdir -p /tmp/h && tar xzf .deps/s32/head.tgz -C /tmp/h
cp inputs/estuary/bathymetry.asc /tmp/h/inputs/estuary/
( cd /tmp/h && cmake --preset openmp "${cfg[@]}" > "$out/c1.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa shwa_kernel_timer > "$out/b1.log" 2>&1 || echo "head FAILED" ) &
( rm -rf build/openmp && cmake --preset openmp "${cfg[@]}" > "$out/c2.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa > "$out/b2.log" 2>&1 || echo "new FAILED" ) &
wait
echo "builds done $(date +%T)"
run() {  # tree threads skip end label [env...]
  local tree=$1 th=$2 skip=$3 end=$4 label=$5; shift 5
  local b=build/openmp/app/shwa; [ $tree = head ] && b=/tmp/h/build/openmp/app/shwa
  env OMP_NUM_THREADS=$th OMP_PROC_BIND=spread OMP_PLACES=threads "$@" \
    $b run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/est-$tree --overwrite \
    --set time.end=$end --set time.output_interval=$end --set numerics.skip_dry=$skip > /tmp/run.log 2>&1 || { tail -3 /tmp/run.log; return; }
  echo "== $tree threads=$th skip=$skip end=$end $label: $(python3 -c "import json; d = json.load(open('/tmp/est-$tree/summary.json')); print(d['steps'], 'steps, loop', d['time_loop_s'], 's')")"
}
kt=(KOKKOS_PROFILE_LIBRARY=/tmp/h/build/openmp/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/kt.txt)
{
[ "${KERNELS:-1}" = 1 ] && for tree in head new; do for skip in true false; do run $tree 16 $skip 1200 "kernels" "${kt[@]}"; head -9 /tmp/kt.txt; done; done
for r in $(seq 1 "${ROUNDS:-2}"); do
  for tree in head new; do for skip in true false; do run $tree 16 $skip 5400 "r$r"; done; done
done
} 2>&1 | tee "$out/host-list-deck${KERNELS:+-k$KERNELS}.txt"
