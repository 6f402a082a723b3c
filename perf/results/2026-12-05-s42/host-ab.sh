#!/usr/bin/env bash
# Session 42 on the 2-core development machine: the fine estuary deck (25.5 M cells) to t = 1 s,
# two binaries alternated (OLD, NEW: e.g. builds of 792d0e1 and of this session's HEAD), ROUNDS
# rounds of three runs each: frames (VTK and PNG at 0 and 1 s, the maxima), checkpoints (also at
# 0.5 and 1 s), and a restart from the checkpoint at 1 s to 1.5 s. Prints each run's wall
# time, page faults and summary.json's split.
#   OLD=/tmp/shwa_old NEW=build/openmp/app/shwa THREADS=2 ROUNDS=3 bash perf/results/2026-12-05-s42/host-ab.sh
cd "$(dirname "$0")/../../.."
deck=$PWD/inputs/estuary_fine.toml
T=${THREADS:-2}
run() {  # run LABEL BIN DIR ARGS...: one run, its line
  local label=$1 bin=$2 dir=$3; shift 3
  OMP_NUM_THREADS=$T /usr/bin/time -o /tmp/s42-ab.time -f "%e %R" "$bin" run "$deck" "$@" --set "output.dir=\"$dir\"" > /dev/null 2>&1
  local t; t=$(tail -1 /tmp/s42-ab.time)
  python3 - "$label" "$t" "$dir/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[3]))
wall, faults = sys.argv[2].split()
r = lambda d: ' '.join(f"{k} {v:.2f}" for k, v in d.items() if k != 'note')
print(f"{sys.argv[1]:<16} wall {float(wall):6.2f} s  faults {int(faults)/1e6:.2f} M | {r(s['wall_time_split_s'])} | {r(s['outputs_split_s'])}")
PY
}
for round in $(seq "${ROUNDS:-3}"); do
  for which in OLD NEW; do
    bin=${!which}
    d=/tmp/s42-ab
    rm -rf $d; run "$which frames" "$bin" $d --set time.end=1 --set 'output.formats=["vtk","png"]'
    rm -rf $d; run "$which checkpoints" "$bin" $d --set time.end=1 --set time.checkpoint_interval=0.5 --set 'output.formats=["vtk"]'
    run "$which restart" "$bin" $d --restart --set time.end=1.5 --set time.checkpoint_interval=0.5 --set 'output.formats=["vtk"]'
    rm -rf $d
  done
done
