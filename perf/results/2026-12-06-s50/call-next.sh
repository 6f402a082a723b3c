#!/usr/bin/env bash
# The next session's first device call: branch wip/idx32-wide, cell positions computed in 32 bits
# (one IMAD a row) and widened behind an empty asm, so that each field's address stays a 64-bit
# add to its base in a uniform register. Session 50's plain 32-bit positions cut the float
# update's instructions 5.6 % but took 99 registers (-4.4 %); this form: ptxas float update 89-91
# registers (main 90-91), CFL pass 40 (main 42).
# Binaries (workstation, level 4): .deps/bins15.tar.xz (bench-w4f, bench-w4d, test_core-w4f,
# test_core-w4d), .deps/bins8.tar.xz (bench-h4f: main's float kernels), .deps/bins12.tar.xz
# (bench-c1d: main's double kernels, 1e2063e).
B=/tmp/bins; mkdir -p $B && for t in 8 12 15; do tar -xJf .deps/bins$t.tar.xz -C $B; done
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  for v in h4f w4f c1d w4d; do $B/bench-$v --sizes 1024,4096,16384 --variants decoupled --steps 50 --json $OUT/bench-$v-$r.json | awk -v v=$v '/decoupled/ {print v, $1, $6, $NF}'; done
done
for t in w4f w4d; do (timeout 200 $B/test_core-$t > $OUT/test_core-$t.log 2>&1; echo "== test_core-$t rc=$?"; tail -2 $OUT/test_core-$t.log) & done; wait
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for v in h4f w4f; do
  echo "== ncu $v 16384"
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZ" --launch-skip 4 --launch-count 2 --metrics $M \
    $B/bench-$v --sizes 16384 --variants decoupled --steps 3 --warmup 1 2>&1 |
    grep -E "^  void|gpu__time|inst_executed|warps_active|issue_active|registers" | sed -E 's/^  void .*(DecoupledUpdateBody|CflMaxZAtomic)/  \1/' | cut -c1-120
done
