#!/usr/bin/env bash
# Session 33, call 1: the default estuary's time loop with each kernel variant, dry-land skipping
# on and off, alternated over ROUNDS rounds, then each kernel's time a step (CUPTI timeline) for
# the recompute variant. Run on the device (carry .deps and inputs/estuary/bathymetry.asc) after
# `perf/gpu_session.sh build` in the same call or an earlier warm one.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
run() {  # kernel skip [more --set ...]
  local k=$1 s=$2; shift 2
  build/cuda/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/shwa-estuary \
    --overwrite --set time.output_interval=5400 --set numerics.kernel="\"$k\"" --set numerics.skip_dry="$s" "$@" \
    > "$out/estuary-run.log" 2>&1 || { tail -3 "$out/estuary-run.log"; return; }
  python3 -c "import json, sys; d = json.load(open('/tmp/shwa-estuary/summary.json'))
print(f'{sys.argv[1]:9s} skip_dry={sys.argv[2]:5s}: {d[\"steps\"]} steps, loop {d[\"time_loop_s\"]:.4f} s')" "$k" "$s"
}
for r in $(seq "${ROUNDS:-3}"); do
  for k in decoupled recompute; do for s in true false; do run $k $s; done; done
done | tee "$out/estuary-variants.txt"
tl_lib=$PWD/build/cuda/perf/libshwa_cuda_timeline.so
for k in ${TL_KERNELS:-recompute decoupled}; do for s in true false; do
  KOKKOS_PROFILE_LIBRARY=$tl_lib SHWA_TIMELINE=/tmp/shwa-etl-$k-$s build/cuda/app/shwa run inputs/estuary.toml \
    --set 'output.formats=["vtk"]' --set output.dir=/tmp/shwa-estuary --overwrite --set time.output_interval=5400 \
    --set numerics.kernel="\"$k\"" --set numerics.skip_dry=$s > "$out/estuary-run.log" 2>&1 || { tail -3 "$out/estuary-run.log"; continue; }
  echo "-- $k skip_dry=$s"; python3 perf/timeline.py /tmp/shwa-etl-$k-$s.rank0.csv --kernels
done; done | tee "$out/estuary-variants-kernels.txt"
