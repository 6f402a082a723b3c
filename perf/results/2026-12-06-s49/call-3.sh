#!/usr/bin/env bash
# Device call 3 of session 49: the double update's counters, main (h4d) against the vote (vd), at
# 4096^2 (the step on the device: DeviceStep) and 16384^2 (HostStep). Carry .deps/bins8.tar.xz.
B=/tmp/bins; mkdir -p $B && tar -xJf .deps/bins8.tar.xz -C $B
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for v in h4d vd; do for n in 4096 16384; do
  echo "== ncu $v $n"
  timeout 45 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate" --launch-skip 2 --launch-count 1 --metrics $M \
    $B/bench-$v --sizes $n --variants decoupled --steps 3 --warmup 1 2>&1 |
    grep -E "^  void|gpu__time|inst_executed|warps_active|issue_active|registers" | sed 's/void cuda_parallel_launch_local_memory<ParallelFor<//'
done; done 2>&1 | tee $OUT/ncu-d.log
