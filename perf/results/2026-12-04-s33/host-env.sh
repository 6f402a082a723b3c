#!/usr/bin/env bash
# Session 33: the estuary to t = 1200 s on 16 host threads, skipping on and off, under several
# OpenMP runtime settings (ENVS, '|'-separated), ROUNDS rounds alternated; host-launchprof.patch
# applied (host-env-tileprof.txt: an earlier form of it that summed each thread's time in tiles;
# since: host-launchprof.patch, and SHWA_CHEAP_CHUNK from host-chunk.patch).
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
REBUILD=${REBUILD:-1} THREADS= bash perf/results/2026-12-04-s33/host-tileprof.sh > /dev/null
IFS='|' read -r -a envs <<< "${ENVS:-X=1|OMP_WAIT_POLICY=active|OMP_PROC_BIND=close}"
for r in $(seq "${ROUNDS:-2}"); do
  for e in "${envs[@]}"; do
    for skip in true false; do
      env OMP_NUM_THREADS=${TH:-16} OMP_PROC_BIND=spread OMP_PLACES=threads $e \
        KOKKOS_PROFILE_LIBRARY=$PWD/build/openmp/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/k.txt \
        build/openmp/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/e \
        --overwrite --set time.end=1200 --set time.output_interval=1200 --set numerics.skip_dry=$skip > /tmp/e.log 2>&1 || { tail -3 /tmp/e.log; continue; }
      echo "== r$r [$e] skip=$skip $(grep -o '"time_loop_s": [0-9.]*' /tmp/e/summary.json)"
      grep launchprof /tmp/e.log | sed "s/us a launch: //"; sed -n 3,6p /tmp/k.txt
    done
  done
done | tee "$out/host-env.txt"
