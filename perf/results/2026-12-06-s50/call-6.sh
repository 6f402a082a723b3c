#!/usr/bin/env bash
# Device call 6: call 5's 32-bit positions cut the float update's instructions 5.6 % but raised it
# from 90 to 99 registers (16 warps a multiprocessor instead of 20): 5.81 -> 6.17 ms at 16384^2.
# i4f20: the same code with the capped update bounded at 20 warps (96 registers).
# Binaries: .deps/bins14.tar.xz (bench-i4f20), .deps/bins8.tar.xz (h4f: main's float).
B=/tmp/bins; mkdir -p $B && for t in 8 14; do tar -xJf .deps/bins$t.tar.xz -C $B; done
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  for v in h4f i4f20; do $B/bench-$v --sizes 1024,4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $2, $6, $NF}'; done
done
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
echo "== ncu i4f20 16384"
timeout 60 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate" --launch-skip 2 --launch-count 1 --metrics $M \
  $B/bench-i4f20 --sizes 16384 --variants decoupled --steps 3 --warmup 1 2>&1 |
  grep -E "^  void|gpu__time|inst_executed|warps_active|issue_active|registers|local" | sed -E 's/^  void .*(DecoupledUpdateBody)/  \1/' | cut -c1-120
