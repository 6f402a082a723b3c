#!/usr/bin/env bash
# Session 47, device call 1: the CFL pass in teams of several warps (SHWA_DEVICE_CFL_WARPS).
# Binaries built on the workstation (level 4) from 9bf204b unless named otherwise (built
# before its rebase onto main's a3c43f7, which changed comments there only), carried packed in
# .deps/bins5.tar.xz (carry it; 12 MB):
#   bench-mf, bench-md    main (cb90270), float and double: one warp a team, 10 scratch arrays;
#   bench-w1f             this tree with SHWA_DEVICE_CFL_WARPS=1 (one warp a team, no scratch);
#   bench-w2f, bench-w2d  this tree (two warps a team);
#   bench-w2f88           f629016, whose Column constructors delegate: the float update then takes 88
#                         registers (22 warps a multiprocessor) against 91 (20), by chance of ptxas;
#   bench-w4f             SHWA_DEVICE_CFL_WARPS=4;
#   bench-w2m48f          two warps a team, SHWA_DEVICE_CFL_MIN_TEAMS=48 (at most 40 registers);
#   bench-w2u2f           two warps a team, the row loop unrolled by two (SHWA_X_CFL_UNROLL=2, 54 registers);
#   bench-fC24, -fC28     two warps a team, and the capped update bound at 24 or 28 warps (SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS: 80 registers, 16 bytes spilled; 72, none);
#   bench-w2d32           double, two warps a team, SHWA_DEVICE_CFL_MIN_TEAMS=32 (64 registers, no spill: 32 warps against 28);
#   test_core-t2f, -t2d   this tree's core tests, float and double;
#   test_core-tnsd        double with SHWA_DEVICE_CFL_SHUFFLE=0 (the scratch path, 7 arrays).
B=/tmp/bins5
mkdir -p $B && tar -xJf .deps/bins5.tar.xz -C $B
nvidia-smi --query-gpu=name --format=csv,noheader
for t in t2f t2d tnsd; do (timeout 200 $B/test_core-$t > $OUT/test_core-$t.log 2>&1; echo "== test_core-$t rc=$?"; tail -3 $OUT/test_core-$t.log) & done; wait
for r in 1 2; do
  for v in mf w1f w2f w2f88 w4f w2m48f w2u2f fC24 fC28 md w2d w2d32; do $B/bench-$v --sizes 4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
M=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
ncu_one() {  # binary, kernel regex, size
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:$2 --launch-skip 2 --launch-count 1 --metrics $M --csv \
    $B/bench-$1 --sizes $3 --variants decoupled --steps 3 --warmup 1 2>/dev/null |
    awk -F'","' -v v=$1 -v k=$2 -v n=$3 'NR > 1 {gsub(/"/, "", $NF); print v, k, n, $(NF-2), $NF}'
}
for v in mf w1f w2f w2u2f md w2d w2d32; do ncu_one $v CflMaxZAtomic 16384; done
for v in w2f w2f88 fC24 fC28; do ncu_one $v DecoupledUpdate 16384; done
timeout 120 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZAtomic" --launch-skip 2 --launch-count 2 \
  --section SourceCounters --section WarpStateStats --import-source yes -o $OUT/ncu-source -f \
  $B/bench-w2f --sizes 4096 --variants decoupled --tiles 32x4 --steps 3 --warmup 1 > /dev/null 2>&1
ncu -i $OUT/ncu-source.ncu-rep --page source --csv --print-source sass > $OUT/ncu-sass-w2f.csv 2>&1
rm -f $OUT/ncu-source.ncu-rep
xz -9 $OUT/ncu-sass-w2f.csv
