#!/usr/bin/env bash
# Session 48, device call 2: the whole CUDA suite of 06fb44b (the CFL pass in teams of four
# warps), then its step against main before it, float and double, in one call (kept under
# 480 s: the session had 564 s of device time left).
# Carry .deps/src, .deps/debs (the build), .deps/bins5.tar.xz (bench-mf, bench-md: cb90270, whose
# kernels are eef2996's; bench-w2d: two-warp teams) and .deps/bins6.tar.xz (bench-h4f, bench-h4d:
# 06fb44b built on the workstation, level 4, float 42 and double 68 registers in the CFL pass).
B=/tmp/bins; mkdir -p $B && tar -xJf .deps/bins5.tar.xz -C $B && tar -xJf .deps/bins6.tar.xz -C $B
CTEST_ARGS="-j4 --timeout 150" timeout 360 bash perf/gpu_session.sh build test 2>&1 | tail -25
for r in 1; do
  for v in mf h4f md h4d; do $B/bench-$v --sizes 4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
for p in f d; do
  $B/bench-h4$p --sizes 4096,16384 --tiles 32x8 --variants recompute,decoupled --steps 50 --json $OUT/bench-h4$p.json > $OUT/bench-h4$p.log
done
