#!/bin/bash
# The default estuary deck end to end with its outputs (vtk and png, checkpoints), two builds
# alternated: wall time, time loop, and the Kokkos regions of outputs and checkpoints
# (perf/kernel_timer.cpp).
#   e2e-ab.sh NAME:SHWA NAME:SHWA ...   (ROUNDS=3, THREADS=2, BIND=spread or false, TIMER=libshwa_kernel_timer.so)
set -eu
rounds=${ROUNDS:-3} threads=${THREADS:-2}
timer=${TIMER:-build/openmp/perf/libshwa_kernel_timer.so}
printf '%-6s %-5s %8s %8s %10s %12s %14s\n' build round wall_s loop_s wall-loop output_ms checkpoint_ms
for r in $(seq "$rounds"); do
  for spec in "$@"; do
    name=${spec%%:*} exe=${spec#*:} out=/tmp/e2e-ab-$name
    rm -rf "$out"
    times=$(OMP_NUM_THREADS=$threads OMP_PROC_BIND=${BIND:-spread} OMP_PLACES=threads KOKKOS_PROFILE_LIBRARY=$timer \
      "$exe" run inputs/estuary.toml --set "output.dir=\"$out\"" 2>&1 | awk '
        $NF == "shwa::output" {o = $3 / 1000} $NF == "shwa::checkpoint" {c = $3 / 1000} END {printf "%.1f %.1f", o, c}')
    python3 - "$out/summary.json" "$name" "$r" $times <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w, l = s["wall_time_s"], s["time_loop_s"]
print(f"{sys.argv[2]:<6} {sys.argv[3]:<5} {w:8.2f} {l:8.2f} {w - l:10.2f} {float(sys.argv[4]):12.1f} {float(sys.argv[5]):14.1f}")
PY
  done
done
