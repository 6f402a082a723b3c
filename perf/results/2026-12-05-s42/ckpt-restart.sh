#!/usr/bin/env bash
# Session 42's host changes on the GPU machine, after perf/results/2026-12-05-s41/e2e-split.sh on
# the same warm machine (both builds and the fine deck's bathymetry are there): the fine deck's
# two checkpoints and its restart, each run's time split (summary.json), by the GPU build and by
# 16 cores; then the CUDA build's test of owned_from_host and its restart tests. Run from the
# repository root. Some 3 minutes. BUILDS="openmp" runs the host build alone.
cd "$(dirname "$0")/../../.."
deck=inputs/estuary_fine.toml
[ -f inputs/estuary_fine/bathymetry.asc ] || python3 scripts/make_estuary.py --nx 6000 --ny 4250 --out inputs/estuary_fine
split() {  # split DIR: the run's wall time split and its outputs' split
  python3 - "$1/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
r = lambda d: {k: round(v, 3) for k, v in d.items() if k != 'note'}
print(' ', round(s['wall_time_s'], 3), r(s['wall_time_split_s']), r(s['outputs_split_s']))
PY
}
for build in ${BUILDS:-cuda openmp}; do
  env=()
  [ "$build" = openmp ] && env=(OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads)
  dir=/tmp/s42-$build
  rm -rf "$dir"
  set_=(--set time.checkpoint_interval=0.5 --set 'output.formats=["vtk","png"]' --set "output.dir=\"$dir\"")
  echo "== $build: to t = 1 s, checkpoints at 0.5 and 1 s"
  env "${env[@]}" /usr/bin/time -f "  wall %e s, faults %R" timeout 120 build/$build/app/shwa run $deck --set time.end=1 "${set_[@]}" 2>&1 | tail -2
  split "$dir"
  echo "== $build: restart to t = 1.5 s"
  env "${env[@]}" /usr/bin/time -f "  wall %e s, faults %R" timeout 120 build/$build/app/shwa run $deck --restart --set time.end=1.5 "${set_[@]}" 2>&1 | tail -2
  split "$dir"
  rm -rf "$dir"
done
(cd build/cuda/tests && timeout 60 ./test_core "[fields]" | tail -2)
timeout 200 ctest --test-dir build/cuda -R "restart" -j6 --timeout 150 2>&1 | tail -4
