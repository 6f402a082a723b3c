#!/usr/bin/env bash
# Device call 2: the carry in scratch with the step in scratch for both step sources (the kernels
# the same code, so that nvcc fuses them alike): call 1's HostStep and DeviceStep kernels disagreed
# in the last bits. Double only (the default carries in scratch in double).
# Binaries: .deps/bins12.tar.xz (bench-c1d, test_core-c1d), .deps/bins8.tar.xz (main bench-h4d).
B=/tmp/bins; mkdir -p $B && for t in 8 12; do tar -xJf .deps/bins$t.tar.xz -C $B; done
nvidia-smi --query-gpu=name --format=csv,noheader
(timeout 200 $B/test_core-c1d > $OUT/test_core-c1d.log 2>&1; echo "== test_core-c1d rc=$?"; tail -2 $OUT/test_core-c1d.log) 
for r in 1 2; do
  for v in h4d c1d; do $B/bench-$v --sizes 1024,4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
