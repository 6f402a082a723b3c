#!/usr/bin/env bash
# Session 44, call 3 (carry .deps/bins; built on the workstation from this tree, CUDA 13.0, sm_90):
# the core suite of this tree (SHWA_DEVICE_FAST_MATH 3, the default, and square roots from the
# reciprocal square root), then shwa_bench of this tree against call 1's level-3 and level-0
# binaries in turn, the benchmark for the history, and still water.
cd "$(dirname "$0")/../../.."
t0=$SECONDS
B=.deps/bins
nvidia-smi --query-gpu=name --format=csv,noheader
(cd tests && timeout 120 ../$B/test_core-new 2>&1 | tail -3)
echo "tests $((SECONDS - t0)) s"
for r in 1 2; do
  for b in new fm3 fm0; do
    [ $((SECONDS - t0)) -gt 300 ] && break 2
    echo "$b r$r $(timeout 30 $B/bench-double-$b --sizes 4096,16384 --variants decoupled --steps 50 | tee -a "$OUT/bench.log" | grep -E '^ +[0-9]+ ' | awk '{printf "%s:%s ", $1, $6}')"
  done
done
[ $((SECONDS - t0)) -lt 300 ] && timeout 60 $B/bench-double-new --sizes 1024,4096,8192,16384 \
  --variants recompute,decoupled --json "$OUT/bench-cuda-double.json" > "$OUT/bench-cuda-double.log" 2>&1
grep -E "^ +[0-9]+ " "$OUT/bench-cuda-double.log"
# Still water around the hump: the zeros the device once branched around (docs/kernels.md).
for b in new fm0; do
  [ $((SECONDS - t0)) -gt 340 ] && break
  echo "$b still $(timeout 20 $B/bench-double-$b --sizes 1024,4096 --variants decoupled --steps 50 --velocity 0 | grep -E '^ +[0-9]+ ' | awk '{printf "%s:%s ", $1, $6}')"
done
echo "end $((SECONDS - t0)) s"
