#!/usr/bin/env bash
# Session 32, call 1: why host-tile-list.patch (perf/results/2026-12-03-s31) gains on 2 cores and
# not on this machine's 16. HEAD (.deps/s32/head.tgz, git archive of the commit the patch applies
# to) and the working tree (the patch applied) built side by side, OpenMP, with the kernel timer;
# the default estuary to 1200 s, skipping on and off, at 16 threads (and variants), then 2 threads.
# Run on the device, carrying .deps and inputs/estuary/bathymetry.asc.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
{ nproc; lscpu | grep -E "Model name|Socket|Core|Thread|NUMA|L3"; g++ --version | head -1; } > "$out/machine.txt"
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh openmp > "$out/k.log" 2>&1 || { tail "$out/k.log"; exit 1; }
echo "kokkos done $(date +%T)"
rm -rf /tmp/h && mkdir -p /tmp/h && tar xzf .deps/s32/head.tgz -C /tmp/h
cp inputs/estuary/bathymetry.asc /tmp/h/inputs/estuary/
( cd /tmp/h && cmake --preset openmp "${cfg[@]}" > "$out/c1.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa shwa_kernel_timer > "$out/b1.log" 2>&1 || echo "head FAILED" ) &
( rm -rf build/openmp && cmake --preset openmp "${cfg[@]}" > "$out/c2.log" 2>&1 && cmake --build --preset openmp -j 8 --target shwa > "$out/b2.log" 2>&1 || echo "new FAILED" ) &
wait
echo "builds done $(date +%T)"
run() {  # tree threads skip end label [env...]
  local tree=$1 th=$2 skip=$3 end=$4 label=$5; shift 5
  local b=build/openmp/app/shwa; [ $tree = head ] && b=/tmp/h/build/openmp/app/shwa
  env OMP_NUM_THREADS=$th OMP_PROC_BIND=spread OMP_PLACES=threads "$@" \
    KOKKOS_PROFILE_LIBRARY=/tmp/h/build/openmp/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES=/tmp/kt.txt \
    $b run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/est-$tree --overwrite \
    --set time.end=$end --set time.output_interval=$end --set numerics.skip_dry=$skip > /tmp/run.log 2>&1 || { tail -3 /tmp/run.log; return; }
  echo "== $tree threads=$th skip=$skip end=$end $label: loop $(python3 -c "import json; print(json.load(open('/tmp/est-$tree/summary.json'))['time_loop_s'])") s"
  head -14 /tmp/kt.txt
}
{
for r in 1 2; do
  for tree in head new; do for skip in true false; do run $tree 16 $skip 1200 "r$r"; done; done
done
run new 16 true 1200 "wait=active" OMP_WAIT_POLICY=active
run head 16 true 1200 "wait=active" OMP_WAIT_POLICY=active
run new 16 true 1200 "bind=close" OMP_PROC_BIND=close
run head 16 true 1200 "bind=close" OMP_PROC_BIND=close
for tree in head new; do for skip in true false; do run $tree 2 $skip 300 "2 threads"; done; done
cat /tmp/kt.txt
} 2>&1 | tee "$out/host-list-diag.txt"
