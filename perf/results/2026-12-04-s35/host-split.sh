#!/usr/bin/env bash
# Session 35: on the device's 16 host cores, (1) the default estuary with skipping on and off in
# $ROUNDS alternated rounds (host-ab.sh of session 34, the working tree only), and (2) where the
# all-wet step's time goes: shwa_bench at 4096^2 and 8192^2, decoupled, double (128x8 tiles) and
# float (256x8), each kernel's time (perf/kernel_timer.cpp). Carry .deps and the bathymetry.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
TREES=new ROUNDS=${ROUNDS:-4} THREADS=16 bash perf/results/2026-12-04-s34/host-ab.sh > /dev/null 2>&1
grep -E "^==|flux_update|cfl|maxima|fill_b" "$out/host-ab.txt"
export SHWA_DEPS=$PWD/.deps
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DSHWA_ENABLE_APP=OFF -DCMAKE_PREFIX_PATH=$SHWA_DEPS/install/openmp
     -DCatch2_DIR=$PWD/.deps/sysroot/usr/lib/cmake/Catch2 -DCLI11_DIR=$PWD/.deps/sysroot/usr/share/cmake/CLI11)
for p in openmp openmp-float; do
  ( cmake -S . -B build/s35-$p --preset $p "${cfg[@]}" && cmake --build build/s35-$p -j 8 --target shwa_bench shwa_kernel_timer ) > "$out/build-$p.log" 2>&1 &
done
wait
for p in openmp openmp-float; do
  tile=128x8; [ $p = openmp-float ] && tile=256x8
  for n in 4096 8192; do
    OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads KOKKOS_PROFILE_LIBRARY=$PWD/build/s35-$p/perf/libshwa_kernel_timer.so \
      SHWA_KERNEL_TIMES=/tmp/kb.txt build/s35-$p/perf/shwa_bench --sizes $n --variants decoupled --tiles $tile --steps 10 --warmup 2 | tail -1
    sed -n 1,6p /tmp/kb.txt
  done
done 2>&1 | tee "$out/bench-split.txt"
