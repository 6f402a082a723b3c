#!/usr/bin/env bash
# Session 31, call 3: the cost of --fmad=false (HEAD's shwa_bench with and without), and the core
# suite of the working tree (tile queue, one call site) built with --fmad=false.
# Run on the device (carry .deps) with tile-queue-one-call-site.patch applied and .deps/s31/head.tgz
# made from the commit it applies to (git archive --format=tar.gz -o .deps/s31/head.tgz COMMIT).
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_APP=OFF -DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
scripts/build-kokkos.sh cuda > "$out/k.log" 2>&1 || { tail "$out/k.log"; exit 1; }
echo "kokkos done $(date +%T)"
rm -rf /tmp/h && mkdir -p /tmp/h && tar xzf .deps/s31/head.tgz -C /tmp/h
( cd /tmp/h && cmake --preset cuda -B /tmp/h/b-fma "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF > "$out/c1.log" 2>&1 && cmake --build /tmp/h/b-fma -j 5 --target shwa_bench > "$out/b1.log" 2>&1 || echo "b-fma FAILED" ) &
( cd /tmp/h && cmake --preset cuda -B /tmp/h/b-nofma "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF -DCMAKE_CXX_FLAGS=--fmad=false > "$out/c2.log" 2>&1 && cmake --build /tmp/h/b-nofma -j 5 --target shwa_bench > "$out/b2.log" 2>&1 || echo "b-nofma FAILED" ) &
( cmake --preset cuda -B build/cuda-nofma "${cfg[@]}" -DCMAKE_CXX_FLAGS=--fmad=false > "$out/c3.log" 2>&1 && cmake --build build/cuda-nofma -j 6 --target test_core > "$out/b3.log" 2>&1 || echo "test build FAILED" ) &
wait
echo "builds done $(date +%T)"
build/cuda-nofma/tests/test_core 2>&1 | tail -4 | tee "$out/test-nofma.txt"
build/cuda-nofma/tests/test_core 2>&1 | grep -B3 -A12 FAILED | head -60
for r in 1 2; do
  for b in fma nofma; do
    /tmp/h/b-$b/perf/shwa_bench --sizes 1024,4096,16384 --variants recompute,decoupled --steps 50 2>&1 | grep -E "^ +[0-9]+ (rec|dec)" | sed "s/^/$b r$r /"
  done
done | tee "$out/bench.txt"
