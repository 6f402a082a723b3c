#!/usr/bin/env bash
# Session 48, device call 3 (call 2 never found a machine; 459 s of device time were left): the
# four-warp CFL pass (06fb44b) on the GPU with binaries built on the workstation (level 4), carried
# in .deps/bins7.tar.xz: test_core in float and double, then its step against main before it
# (bench-mf, bench-md: cb90270 from .deps/bins5.tar.xz) and the history rows (JSON).
B=/tmp/bins; mkdir -p $B && tar -xJf .deps/bins5.tar.xz -C $B && tar -xJf .deps/bins7.tar.xz -C $B
nvidia-smi --query-gpu=name --format=csv,noheader
for p in f d; do (timeout 200 $B/test_core-h4$p > $OUT/test_core-h4$p.log 2>&1; echo "== test_core-h4$p rc=$?"; tail -2 $OUT/test_core-h4$p.log) & done; wait
for v in mf h4f md h4d; do $B/bench-$v --sizes 4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
for p in f d; do
  $B/bench-h4$p --sizes 1024,4096,16384 --tiles 32x8 --variants recompute,decoupled --steps 50 --json $OUT/bench-h4$p.json > $OUT/bench-h4$p.log
done
