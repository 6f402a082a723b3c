#!/usr/bin/env bash
# Session 45, call 3: shwa_bench built on the workstation with SHWA_DEVICE_FAST_MATH = 3 and 4
# (carried in .deps/bins as bench-PRECISION-fmLEVEL; fm4sh: level 4 and the CFL pass's shuffles,
# SHWA_DEVICE_CFL_SHUFFLE), timed in turn on the GPU, two rounds; the core suite of the
# single-precision build (level 4, shuffles); the whole CUDA suite of this tree, double (built
# here: perf/gpu_session.sh build test); then, as time allows, the update's and CFL pass's
# instructions and registers (ncu) at 4096^2 and the float update's SASS opcode mix a cell.
cd "$(dirname "$0")/../../.."
B=.deps/bins
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
for P in float; do
  echo "== test_core $P fm4"
  (cd tests && timeout 120 ../$B/test_core-$P-fm4 > "$OUT/test-core-$P-fm4.log" 2>&1; tail -3 "$OUT/test-core-$P-fm4.log")
done
for r in 1 2; do
  for P in double float; do
    for L in 3 4 4sh; do
      echo "== $P fm$L round $r"
      timeout 60 $B/bench-$P-fm$L --sizes 1024,4096,16384 --variants decoupled --steps 50 | grep -E "^ +[0-9]+ "
    done
  done
done
perf/gpu_session.sh build test 2>&1 | tail -12
build/cuda/app/shwa info | grep "device math"
for P in double float; do
  for L in 4 4sh; do
    echo "== ncu $P fm$L"
    timeout 90 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZAtomic" --launch-skip 10 --launch-count 2 --csv --page raw \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread \
      $B/bench-$P-fm$L --sizes 4096 --variants decoupled --steps 10 --warmup 2 > "$OUT/ncu-$P-fm$L.csv" 2>&1
    python3 - "$OUT/ncu-$P-fm$L.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0] != "==PROF=="]
hdr = next((r for r in rows if r[0] == "ID"), None)
if hdr is None:
    print(open(sys.argv[1]).read()[-1500:]); sys.exit()
for r in rows:
    if r[0].isdigit():
        d = dict(zip(hdr, r))
        name = "update" if "Decoupled" in d["Kernel Name"] else "cfl"
        inst = float(d["smsp__inst_executed.sum"].replace(",", "")) * 32 / 4096**2
        print(name, "%.0f thread instructions a cell," % inst, d["gpu__time_duration.sum"], "ns,", d["launch__registers_per_thread"], "registers")
PY
  done
done
echo "== ncu SASS float fm4sh"
timeout 150 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZAtomic" --launch-skip 10 --launch-count 2 \
  --section SourceCounters --section WarpStateStats -o "$OUT/ncu-source-float" -f \
  $B/bench-float-fm4sh --sizes 4096 --variants decoupled --steps 10 --warmup 2 > /dev/null 2>&1
ncu -i "$OUT/ncu-source-float.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-sass-float.csv" 2>&1
python3 perf/ncu_sass.py "$OUT/ncu-sass-float.csv" --cells $((4096 * 4096)) > "$OUT/ncu-sass-float.txt" 2>&1
head -60 "$OUT/ncu-sass-float.txt"
rm -f "$OUT/ncu-source-float.ncu-rep"
