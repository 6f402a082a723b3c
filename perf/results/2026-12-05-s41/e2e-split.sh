#!/usr/bin/env bash
# Session 41 on the GPU machine: both builds, the estuary decks end to end (perf/e2e_estuary.sh,
# GPU and 16 cores, skipping off on the GPU too), where each run's wall time went
# (summary.json's wall_time_split_s and outputs_split_s), then the PNG and app tests of the CUDA
# build. Run from the repository root with .deps carried (and OUT set by the device tool).
cd "$(dirname "$0")/../../.."
HOST_BUILD=1 timeout 300 bash perf/gpu_session.sh build 2>&1 | tail -5
E2E_FORMATS='["vtk","png"]' E2E_NOSKIP=gpu timeout 200 perf/e2e_estuary.sh > "$OUT/e2e.log" 2>&1
grep -E "^\| estuary" "$OUT/e2e.log"
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/runs/*/summary.json')):
    s = json.load(open(f))
    split = {k: round(v, 3) for k, v in s.get('wall_time_split_s', {}).items() if k != 'note'}
    outputs = {k: round(v, 3) for k, v in s.get('outputs_split_s', {}).items() if k != 'note'}
    print(f.split('/')[-2], round(s['wall_time_s'], 3), split, outputs)
PY
(cd build/cuda/tests/io/scratch && timeout 60 ../test_io "[png]" | tail -2)
timeout 120 ctest --test-dir build/cuda -L app -j6 --timeout 100 2>&1 | tail -6
cd "$OUT" && tar czf e2e.tgz $(ls | grep -v e2e.tgz) && ls | grep -v e2e.tgz | xargs rm -rf
