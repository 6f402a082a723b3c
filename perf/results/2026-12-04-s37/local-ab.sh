#!/usr/bin/env bash
# Session 37, on the 2-core machine: the default estuary to t = $END s (default 2400), one and two
# threads, skipping on and off, base (a worktree of the commit before the host update's per-square
# marks, built in /tmp/wt/build/openmp with shwa_kernel_timer, tests off) against the working tree
# (build/openmp), three alternated rounds; each run's loop, skipped land and each pass's time.
# Run from the repository root.
END=${END:-2400}
for r in 1 2 3; do for th in 1 2; do for skip in true false; do for tree in base new; do
  b=$PWD/build/openmp; [ $tree = base ] && b=/tmp/wt/build/openmp
  OMP_NUM_THREADS=$th OMP_PROC_BIND=false KOKKOS_PROFILE_LIBRARY=$b/perf/libshwa_kernel_timer.so \
    SHWA_KERNEL_TIMES=/tmp/lab-k.txt $b/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' \
    --set output.dir=/tmp/lab --overwrite --set time.end=$END --set time.output_interval=$END \
    --set numerics.skip_dry=$skip > /tmp/lab.log 2>&1 || tail -3 /tmp/lab.log
  echo "== r$r th=$th skip=$skip $tree $(grep -o '"time_loop_s": [0-9.]*\|"dry_land_skipped": [0-9.]*' /tmp/lab/summary.json | tr '\n' ' ')"
  grep -E "flux_update|cfl_min_dt|shwa::maxima" /tmp/lab-k.txt
done; done; done; done
