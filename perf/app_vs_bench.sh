#!/usr/bin/env bash
# How close `shwa run`'s whole time loop comes to shwa_bench's steps alone: runs the fully wet deck
# inputs/bench/wet_4096.toml (no output during the loop), then shwa_bench on the same grid size,
# kernel variant, tile and number of steps, and prints both throughputs (cell updates per second:
# the app's from summary.json, its loop's wall time and steps) and their ratio. The target is 95 %
# on every backend.
#   perf/app_vs_bench.sh [--set section.key=value ...]     (more overrides of the deck)
# Environment: BUILD (build/openmp; e.g. build/cuda), N (4096: the grid is N x N), VARIANT
# (decoupled or recompute), TILE (32x8, or TXxTY/ROWS), DECK, AVB_DIR (a folder for the run's files,
# default a temporary one, removed). OMP_NUM_THREADS and the like apply to both programs.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build/openmp} n=${N:-4096} variant=${VARIANT:-decoupled} tile=${TILE:-32x8}
deck=${DECK:-inputs/bench/wet_4096.toml}
out=${AVB_DIR:-}  # (not OUT: the GPU session scripts keep their results there)
if [ -z "$out" ]; then out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
txty=${tile%%/*}
sets=(--set "grid.nx=$n" --set "grid.ny=$n" --set "numerics.kernel=$variant" --set "numerics.tile=[${txty/x/,}]"
      --set "output.dir=$out/app")
[ "$tile" != "$txty" ] && sets+=(--set "numerics.rows=${tile##*/}")

# --overwrite: the folder is this script's, and an earlier call may have left another size there.
"$build/app/shwa" run "$deck" "${sets[@]}" --overwrite "$@" > "$out/app.log"
steps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["steps_this_run"])' "$out/app/summary.json")
"$build/perf/shwa_bench" --sizes "$n" --variants "$variant" --tiles "$tile" --steps "$steps" --warmup 5 \
  --json "$out/bench.json" > "$out/bench.log"
python3 - "$out/app/summary.json" "$out/bench.json" <<'PY'
import json, sys
app = json.load(open(sys.argv[1]))
bench = json.load(open(sys.argv[2]))["results"][0]
a, b = app["cell_updates_per_s"], bench["cell_updates_per_s"]
n = app["grid"]["nx"]
print(f"grid {n} x {app['grid']['ny']}, {app['kernel']}, tile {bench['tile'][0]}x{bench['tile'][1]}/{bench['rows']}, "
      f"{app['steps_this_run']} steps")
print(f"shwa run    : {a / 1e9:8.4f} G cell updates/s  (time loop {app['time_loop_s']:.4f} s)")
print(f"shwa_bench  : {b / 1e9:8.4f} G cell updates/s  (steps {bench['seconds']:.4f} s)")
print(f"app / bench : {100 * a / b:6.1f} %  (target >= 95 %)")
PY
