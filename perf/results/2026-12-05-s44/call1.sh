#!/usr/bin/env bash
# Session 44, call 1: shwa_bench built on the workstation with SHWA_DEVICE_FAST_MATH = 0-3
# (carried in .deps/bins as bench-PRECISION-fmLEVEL), timed in turn on the GPU, two rounds; then
# the core suite at level 3; the update's and CFL pass's instructions and registers (ncu) at 4096^2 for levels 0, 2 and 3.
cd "$(dirname "$0")/../../.."
B=.deps/bins
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
# The core suite (kernels: bit for bit across tiles, variants, skipping, capped and device-step
# kernels; the math's bounds) of a level-3 build, the level that changes the most.
(cd tests && timeout 150 ../$B/test_core-double-fm3 2>&1 | tail -25)
for P in double float; do
  for r in 1 2; do
    for L in 0 1 2 3; do
      echo "== $P fm$L round $r"
      timeout 60 $B/bench-$P-fm$L --sizes 1024,4096,16384 --variants decoupled --steps 50 | grep -E "^ +[0-9]+ "
    done
  done
done
for P in double float; do
  for L in 0 2 3; do
    echo "== ncu $P fm$L"
    timeout 120 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZAtomic" --launch-skip 10 --launch-count 4 --csv --page raw \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size \
      $B/bench-$P-fm$L --sizes 4096 --variants decoupled --steps 10 --warmup 2 > "$OUT/ncu-$P-fm$L.csv" 2>&1
    python3 - "$OUT/ncu-$P-fm$L.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0] != "==PROF=="]
hdr = next((r for r in rows if r[0] == "ID"), None)
if hdr is None:
    print(open(sys.argv[1]).read()[-2000:]); sys.exit()
for r in rows:
    if r[0].isdigit():
        d = dict(zip(hdr, r))
        name = "update" if "Decoupled" in d["Kernel Name"] else "cfl"
        print(name, {k: d[k] for k in hdr if k.startswith(("gpu__", "smsp__", "launch__"))})
PY
  done
done
