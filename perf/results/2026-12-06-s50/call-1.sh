#!/usr/bin/env bash
# Device call 1 for the session after 49, on branch wip/scratch-carry: the update's row-to-row
# carry in team scratch (SHWA_X_CARRY). The double update is held by stalls (60 % of issue slots)
# and spills at its 128-register cap (ptxas: 48/44 B with the step a kernel argument, 24/24 B with
# it from the device); with the cell below's qx, qy, h c and x-edge sums (level 1; level 2: and its
# y-edge sums) and a device step's dt, fx, fy in team scratch, it spills nothing. Float: 90-91 ->
# 84-87 registers (level 1), 22 warps a multiprocessor instead of 20.
# Binaries (workstation, level 4): carry .deps/bins8.tar.xz (main: bench-h4f/-h4d) and
# .deps/bins11.tar.xz: bench-k1d, bench-k2d, bench-k1f, bench-k2f, test_core-k1d/-k2d/-k1f.
B=/tmp/bins; mkdir -p $B && for t in 8 11; do tar -xJf .deps/bins$t.tar.xz -C $B; done
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  for v in h4d k1d k2d h4f k1f k2f; do $B/bench-$v --sizes 1024,4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
for t in k1d k2d k1f; do (timeout 150 $B/test_core-$t > $OUT/test_core-$t.log 2>&1; echo "== test_core-$t rc=$?"; tail -2 $OUT/test_core-$t.log) & done; wait
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
for v in h4d k1d k2d; do for n in 4096 16384; do
  echo "== ncu $v $n"
  timeout 45 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate" --launch-skip 2 --launch-count 1 --metrics $M \
    $B/bench-$v --sizes $n --variants decoupled --steps 3 --warmup 1 2>&1 |
    grep -E "^  void|gpu__time|inst_executed|warps_active|issue_active|registers|local" | sed 's/void cuda_parallel_launch_local_memory<ParallelFor<//'
done; done
