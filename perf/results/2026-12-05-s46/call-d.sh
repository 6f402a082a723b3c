#!/usr/bin/env bash
# For a later session (not run yet): where the double capped update's spill comes from since
# cell_at (9739678: -1.2 % at 16384^2 on an H100, its row loop now loads spilled registers).
# Binaries in .deps/bins3, double, level 4, built on the workstation:
#   bench-d0   02733d5 (every field indexed by its View);
#   bench-cd   9739678 (cell_at for the loads and the stores);
#   bench-dS   9739678 with update_cell's four stores indexed by the Views again (loads by cell_at);
#   bench-dL   9739678 with Column::load indexed by the Views again (stores by cell_at).
# ptxas: the capped update at 128 registers spills 52 bytes (d0, dL) or 24 bytes (cd, dS); where
# the spill sits (in the loop or not) shows only on the GPU (ncu's local loads).
B=.deps/bins3
for r in 1 2; do
  for v in d0 cd dS dL; do $B/bench-$v --sizes 4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
for v in d0 cd dS dL; do
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:DecoupledUpdate --launch-skip 2 --launch-count 1 \
    --metrics smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,gpu__time_duration.sum --csv \
    $B/bench-$v --sizes 16384 --variants decoupled --steps 3 --warmup 1 2>/dev/null | awk -F'","' -v v=$v 'NR > 1 {print v, $(NF-2), $NF}'
done
