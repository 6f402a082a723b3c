#!/usr/bin/env bash
# Session 43, first call on the GPU machine (carry .deps/src, .deps/debs and
# inputs/estuary/bathymetry.asc): both builds; the CUDA paths of sessions 42-43 that no host
# run reaches (owned_from_host's device stage: test_core [fields]; the app tests, restarts
# included); then both estuary decks end to end, GPU and 16 cores, with the run's split.
cd "$(dirname "$0")/../../.."
t0=$SECONDS
HOST_BUILD=1 timeout 330 bash perf/gpu_session.sh build 2>&1 | tail -4
echo "build: $((SECONDS - t0)) s"
(cd build/cuda/tests && timeout 60 ./test_core "[fields]" | tail -2)
timeout 150 ctest --test-dir build/cuda -L app -j6 --timeout 120 > "$OUT/ctest-app.log" 2>&1
grep -E "tests passed|\*\*\*|Failed" "$OUT/ctest-app.log"
echo "tests: $((SECONDS - t0)) s"
left=$((570 - SECONDS + t0))
E2E_FORMATS='["vtk","png"]' E2E_NOSKIP=gpu timeout $left perf/e2e_estuary.sh > "$OUT/e2e.log" 2>&1
grep -E "^\| estuary" "$OUT/e2e.log"
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/runs/*/summary.json')):
    s = json.load(open(f))
    r = lambda d: {k: round(v, 3) for k, v in d.items() if k != 'note'}
    print(f.split('/')[-2], round(s['wall_time_s'], 3), r(s.get('wall_time_split_s', {})), r(s.get('outputs_split_s', {})))
PY
echo "end: $((SECONDS - t0)) s"
cd "$OUT" && tar czf call1.tgz $(ls | grep -v call1.tgz) && ls | grep -v call1.tgz | xargs rm -rf
