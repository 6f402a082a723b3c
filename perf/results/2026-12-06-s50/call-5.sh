#!/usr/bin/env bash
# Device call 5: 32-bit cell positions (cell_at; branch wip/idx32). The float update spends about
# 30 of its 494 thread instructions a cell and the CFL pass about 20 of its 170 forming 64-bit
# field addresses each row (session 48's SASS); with a 32-bit position each field's address is one
# IMAD.WIDE.U32. Float update registers 90 -> 98-99 (ptxas).
# Binaries: .deps/bins13.tar.xz (bench/test_core-i4f, -i4d: the change; ),
# .deps/bins12.tar.xz (c1d: main's double),
# .deps/bins8.tar.xz (h4f: main's float).
B=/tmp/bins; mkdir -p $B && for t in 8 12 13; do tar -xJf .deps/bins$t.tar.xz -C $B; done
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  for v in h4f i4f c1d i4d; do $B/bench-$v --sizes 1024,4096,16384 --variants decoupled,recompute --steps 50 --json $OUT/bench-$v-$r.json | awk -v v=$v '/decoupled|recompute/ {print v, $1, $2, $6, $NF}'; done
done
for t in i4f i4d; do (timeout 200 $B/test_core-$t > $OUT/test_core-$t.log 2>&1; echo "== test_core-$t rc=$?"; tail -2 $OUT/test_core-$t.log) & done; wait
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for v in h4f i4f; do
  echo "== ncu $v 16384"
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZ" --launch-skip 4 --launch-count 2 --metrics $M \
    $B/bench-$v --sizes 16384 --variants decoupled --steps 3 --warmup 1 2>&1 |
    grep -E "^  void|gpu__time|inst_executed|warps_active|issue_active|registers" | sed -E 's/^  void .*(DecoupledUpdateBody|CflMaxZAtomic)/  \1/' | cut -c1-120
done
