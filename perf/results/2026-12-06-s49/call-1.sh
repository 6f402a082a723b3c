#!/usr/bin/env bash
# Device call 1 of session 49: two experiments against main's kernels (84281c1 = 06fb44b's), one call.
#  vote  (branch wip/warp-vote): the Roe solver's rare branches (entropy fix, outflow limit) taken
#        by the whole warp when any lane needs them (SHWA_X_VOTE: __any_sync(__activemask(), p)),
#        so ptxas needs no reconvergence (BSSY/BSYNC: 32 a cell in the float update, 8 % of its
#        stall samples). ptxas: float capped update 91 -> 87 registers.
#  ahead (branch wip/cfl-ahead): the CFL pass loads its rows two ahead (SHWA_X_CFL_AHEAD), where
#        the row it loads now is waited for at the end of the same iteration (the register
#        rotation's MOV held 28 % of the pass's stall samples, session 48's SASS profile).
#  upd   (branch wip/cfl-ahead too): the update loads W and H two rows ahead (SHWA_X_UPD_AHEAD;
#        its rotation's MOV: 3.8 % of the update's samples).
# Binaries (workstation, level 4), carry .deps/bins8.tar.xz, .deps/bins5.tar.xz, .deps/bins9.tar.xz:
#   bins8: bench-h4f/-h4d, test_core-h4f/-h4d (main), bench-vf/-vd, test_core-vf/-vd (vote)
#   bins5: bench-mf (one-warp CFL teams with scratch), bench-w1f, bench-w2f
#   bins9: bench-af/-ad, test_core-af/-ad (ahead); bins10: bench-uf/-ud, test_core-uf (upd)
B=/tmp/bins; mkdir -p $B && for t in 5 8 9 10; do tar -xJf .deps/bins$t.tar.xz -C $B; done
nvidia-smi --query-gpu=name --format=csv,noheader
# Most important first (the budget may cut the call short): both rounds of the comparison, then
# the tests of the variants, then profiles, then the CFL pass's warps at small sizes.
for r in 1 2; do
  for v in h4f vf af uf h4d vd ad ud; do $B/bench-$v --sizes 1024,4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
for t in vf vd af ad uf; do (timeout 150 $B/test_core-$t > $OUT/test_core-$t.log 2>&1; echo "== test_core-$t rc=$?"; tail -2 $OUT/test_core-$t.log) & done; wait
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for v in h4f af vf; do
  echo "== ncu $v"
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZ" --launch-skip 4 --launch-count 2 --metrics $M \
    $B/bench-$v --sizes 16384 --variants decoupled --steps 3 --warmup 1 2>&1 | grep -E "DecoupledUpdate|CflMaxZ|gpu__time|inst_executed|warps_active|issue_active|registers"
done
for v in mf w1f w2f h4f; do $B/bench-$v --sizes 1024,2048 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
