#!/usr/bin/env bash
# Session 43 on the 2-core development machine: the fine deck (25.5 M cells) to t = 0.5 s with
# ASCII-grid output (two frames of five fields), OLD and NEW builds alternated ROUNDS times (default 2):
# the process's wall time and page faults, and summary.json's split (NEW's has the inputs).
#   OLD=/path/to/old/shwa NEW=build/openmp/app/shwa bash perf/results/2026-12-05-s43/asc-ab.sh
cd "$(dirname "$0")/../../.."
[ -f inputs/estuary_fine/bathymetry.asc ] || python3 scripts/make_estuary.py --nx 6000 --ny 4250 --out inputs/estuary_fine
for round in $(seq "${ROUNDS:-2}"); do
  for build in OLD NEW; do
    dir=/tmp/s43-asc-$build; rm -rf "$dir"
    t=$( { OMP_NUM_THREADS=${THREADS:-2} /usr/bin/time -f "%e %R" "${!build}" run inputs/estuary_fine.toml --set time.end=0.5 \
          --set 'output.formats=["asc"]' --set "output.dir=\"$dir\"" > /dev/null; } 2>&1 | tail -1)
    python3 - "$build" $t "$dir/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[4]))
r = lambda d: {k: round(v, 2) for k, v in d.items() if k != 'note'}
print(f"{sys.argv[1]} wall {float(sys.argv[2]):6.2f} s faults {int(sys.argv[3])/1e6:.2f} M | summary {s['wall_time_s']:.2f} s {r(s['wall_time_split_s'])} | {r(s['outputs_split_s'])}")
PY
    rm -rf "$dir"
  done
done
