#!/usr/bin/env bash
# Session 46, device call A: shwa_bench binaries built on the workstation from one tree with the
# experiment macros of the update (SHWA_X_ONE_BRANCH: one branch an edge for the wet/dry and rare
# cases; SHWA_X_ROWOFF: one element offset a row for every field; SHWA_X_UNROLL: the update's row
# loop unrolled), carried in .deps/bins2 (f/d: float/double; 0: HEAD 02733d5's code).
# Timed in turn, two rounds, then the executed instructions of the two step kernels (ncu).
set -u
export PATH=/usr/local/cuda/bin:$PATH
B=.deps/bins2; V=${V:-"f0 fR fO fRO fROU fU d0 dRO dROU"}
for r in 1 2; do
  for v in $V; do
    [ -x $B/bench-$v ] || continue
    $B/bench-$v --sizes ${SIZES:-4096,16384} --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'
  done
done
for v in $V; do
  [ -x $B/bench-$v ] || continue
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:"DecoupledUpdate|CflMaxZAtomic" --launch-skip 4 --launch-count 2 \
    --metrics smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active --csv \
    $B/bench-$v --sizes 4096 --variants decoupled --steps 4 --warmup 1 2>/dev/null |
    python3 -c "
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 10 and r[0] != 'ID']
for r in rows:
    k = 'cfl' if 'CflMax' in r[4] else 'upd'
    name, unit, val = r[-3], r[-2], r[-1]
    if name == 'smsp__inst_executed.sum': val = '%.0f thr-inst/cell' % (32 * float(val.replace(',', '')) / 4096**2)
    print('$v', k, name, val)
" | sort -u
done
