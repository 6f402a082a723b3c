#!/usr/bin/env bash
# Session 32, call 3: variants of the host passes over listed tiles (host-tile-list-chunked.patch and host-variants.patch applied to 134475b), 16 threads:
# each kernel's time (estuary to 1200 s) and the whole deck, skipping on and off.
#   SHWA_X_CHUNK=n   the cheap passes take n listed tiles a take (experiment switch, not landed)
#   SHWA_X_SPAN=1    the maxima fold each tile row from its first active square to its last, in one loop
#   numerics.tile    the update's and CFL pass's host tiles
# Run on the device, carrying .deps and inputs/estuary/bathymetry.asc.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh openmp > "$out/k.log" 2>&1 || { tail "$out/k.log"; exit 1; }
rm -rf build/openmp && cmake --preset openmp "${cfg[@]}" > "$out/c2.log" 2>&1 && cmake --build --preset openmp -j 16 --target shwa shwa_kernel_timer > "$out/b2.log" 2>&1 || { echo "build FAILED"; tail "$out/b2.log"; exit 1; }
run() {  # skip end label [env/--set...]
  local skip=$1 end=$2 label=$3; shift 3
  local envs=() sets=()
  for a in "$@"; do case $a in *=*\[*|numerics.*) sets+=(--set "$a");; *) envs+=("$a");; esac; done
  env OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads "${envs[@]}" \
    build/openmp/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/est --overwrite \
    --set time.end=$end --set time.output_interval=$end --set numerics.skip_dry=$skip "${sets[@]}" > /tmp/run.log 2>&1 || { tail -3 /tmp/run.log; return; }
  echo "== skip=$skip end=$end $label: $(python3 -c "import json; d = json.load(open('/tmp/est/summary.json')); print(d['steps'], 'steps, loop', d['time_loop_s'], 's')")"
}
kt=(KOKKOS_PROFILE_LIBRARY=build/openmp/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/kt.txt)
{
for v in "default" "SHWA_X_SPAN=1" "SHWA_X_CHUNK=2" "SHWA_X_CHUNK=8" "SHWA_X_CHUNK=16" "numerics.tile=[64,8]" "numerics.tile=[128,16]"; do
  a=(); [ "$v" != default ] && a=("$v")
  run true 1200 "$v kernels" "${kt[@]}" "${a[@]}"; sed -n 3,8p /tmp/kt.txt
done
run false 1200 "default kernels" "${kt[@]}"; sed -n 3,8p /tmp/kt.txt
run false 1200 "numerics.tile=[64,8] kernels" "${kt[@]}" "numerics.tile=[64,8]"; sed -n 3,8p /tmp/kt.txt
for r in 1 2; do
  run true 5400 "r$r default"; run false 5400 "r$r default"
  run true 5400 "r$r SHWA_X_SPAN=1" SHWA_X_SPAN=1
  run true 5400 "r$r tile 64x8" "numerics.tile=[64,8]"
done
} 2>&1 | tee "$out/host-variants.txt"
