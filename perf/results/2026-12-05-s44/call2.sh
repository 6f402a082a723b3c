#!/usr/bin/env bash
# Session 44, call 2 (carry .deps/src, .deps/debs, .deps/bins): the CUDA build of this commit, its
# whole suite, then shwa_bench of this commit (SHWA_DEVICE_FAST_MATH 3, square roots from the
# reciprocal square root too) against call 1's level-3 and level-0 binaries, in turn.
cd "$(dirname "$0")/../../.."
t0=$SECONDS
timeout 300 bash perf/gpu_session.sh build > "$OUT/build.log" 2>&1
echo "build rc=$? $((SECONDS - t0)) s"; tail -4 "$OUT/build.log"
timeout $((480 - SECONDS + t0)) ctest --test-dir build/cuda -j8 --timeout 200 > "$OUT/ctest-cuda.log" 2>&1
echo "ctest rc=$? $((SECONDS - t0)) s"
grep -E "tests passed|\*\*\*|Failed|Not Run|Skipped" "$OUT/ctest-cuda.log" | head -20
B=.deps/bins
for r in 1 2; do
  for b in build/cuda/perf/shwa_bench $B/bench-double-fm3 $B/bench-double-fm0; do
    [ $((SECONDS - t0)) -gt 560 ] && break 2
    echo "$b r$r $(timeout 30 $b --sizes 4096,16384 --variants decoupled --steps 50 | tee -a "$OUT/bench.log" | grep -E '^ +[0-9]+ ' | awk '{printf "%s:%s ", $1, $6}')"
  done
done
[ $((SECONDS - t0)) -lt 540 ] && timeout 50 build/cuda/perf/shwa_bench --sizes 1024,4096,8192,16384 \
  --variants recompute,decoupled --json "$OUT/bench-cuda-double.json" > "$OUT/bench-cuda-double.log" 2>&1
# Still water around the hump: the zeros the device once branched around (docs/kernels.md).
for b in build/cuda/perf/shwa_bench $B/bench-double-fm0; do
  [ $((SECONDS - t0)) -gt 570 ] && break
  echo "$b still $(timeout 15 $b --sizes 1024,4096 --variants decoupled --steps 50 --velocity 0 | grep -E '^ +[0-9]+ ' | awk '{printf "%s:%s ", $1, $6}')"
done
echo "end $((SECONDS - t0)) s"
