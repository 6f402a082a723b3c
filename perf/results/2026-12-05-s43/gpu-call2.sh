#!/usr/bin/env bash
# Session 43, second call, on the machine of gpu-call1.sh while it is warm (its builds and the
# fine deck's bathymetry are there): the fine deck's checkpoints and restart split, GPU and 16
# cores (perf/results/2026-12-05-s42/ckpt-restart.sh), then the rest of the CUDA suite (core, io,
# comm, perf; the app tests ran in call 1), four at a time.
cd "$(dirname "$0")/../../.."
t0=$SECONDS
timeout 300 bash perf/results/2026-12-05-s42/ckpt-restart.sh 2>&1 | tee "$OUT/ckpt-restart.log"
echo "ckpt-restart: $((SECONDS - t0)) s"
timeout $((570 - SECONDS + t0)) ctest --test-dir build/cuda -LE app -j4 --timeout 200 > "$OUT/ctest-rest.log" 2>&1
grep -E "tests passed|\*\*\*|Failed|Not Run|Skipped" "$OUT/ctest-rest.log"
echo "end: $((SECONDS - t0)) s"
