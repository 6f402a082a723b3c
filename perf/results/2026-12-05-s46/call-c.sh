#!/usr/bin/env bash
# Session 46, device call C: the CFL pass without team scratch when it shuffles. Binaries built on
# the workstation (double, level 4), carried in .deps/bins4: test_core-d (the tree of this commit),
# test_core-dns (the same with SHWA_DEVICE_CFL_SHUFFLE=0: the 32-lane scratch path of the CFL pass,
# 7 arrays), bench-d (this commit) and bench-cd (d559d2a: the CFL pass reserving 10 arrays).
B=.deps/bins4
for t in d dns; do echo "== test_core-$t"; timeout 120 $B/test_core-$t 2>&1 | tail -3; done
for r in 1 2; do
  for v in cd d; do $B/bench-$v --sizes 4096,16384 --variants decoupled --steps 50 | awk -v v=$v '/decoupled/ {print v, $1, $6}'; done
done
