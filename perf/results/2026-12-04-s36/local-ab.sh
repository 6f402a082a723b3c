#!/usr/bin/env bash
# Session 36, on the 2-core machine: the default estuary to t = 2400 s, one and two threads, skipping
# on and off, base (a worktree of 850f5ea built in /tmp/wt-base/build/openmp, tests off) against
# the working tree (build/openmp), three alternated rounds. Run from the repository root.
for r in 1 2 3; do for th in 1 2; do for skip in true false; do for tree in base new; do
  exe=build/openmp/app/shwa; [ $tree = base ] && exe=/tmp/wt-base/build/openmp/app/shwa
  OMP_NUM_THREADS=$th OMP_PROC_BIND=false $exe run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/lab --overwrite --set time.end=2400 --set time.output_interval=2400 --set numerics.skip_dry=$skip > /tmp/lab.log 2>&1 || tail -3 /tmp/lab.log
  echo "r$r th=$th skip=$skip $tree $(grep -o '"time_loop_s": [0-9.]*' /tmp/lab/summary.json)"
done; done; done; done
