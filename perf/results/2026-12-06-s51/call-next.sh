#!/usr/bin/env bash
# Device calls for the next session, each trying patches beside this script against the tree as it
# is (run from anywhere on the GPU machine, carrying .deps/src and .deps/debs; output in $OUT):
#
#   call-next.sh micro  sqrt-normal.patch + clamp-loads.patch, two changes that keep every bit:
#                       the CFL pass's edge speed takes its root without sqrt_nonneg's test of the
#                       operand and its branch (the "reciprocals and roots" test compares the two),
#                       and the column kernels' lanes beyond the box's ghost column read that
#                       column instead of a guarded zero, the CFL pass's next row unguarded.
#                       test_core of the patched tree in both precisions, Nsight Compute of the
#                       update and the CFL pass at 16384^2 (which kernel gained), then shwa_bench of
#                       both trees in both precisions, two rounds. ~9 min.
#   call-next.sh fuse   fuse-z.patch (SHWA_EXPERIMENT_FUSE_Z=1, float only): issue 16's item 1.
#                       The decoupled update also sums Z_i of W^{n+1} for the cells its strips
#                       complete; where a step takes its dt from the host (blocks above 4096^2, one
#                       block, k = 1, one tracer, no watcher) the next step takes it from those
#                       sums and a border pass over the rest, after the boundary fill, instead of
#                       the CFL pass. test_core's "[fused]" (dt and fields bit for bit against the
#                       CFL pass, the fused path taken), ncu of the update, the CFL pass and the
#                       border pass at 16384^2, then shwa_bench of both trees: at 16384^2 the
#                       patched tree's step is the fused one; below, its update does the fused
#                       work for nothing. ~5 min.
set -uo pipefail
part=${1:?usage: call-next.sh micro|fuse}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=${OUT:-$PWD/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
sr=$PWD/.deps/sysroot
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_APP=OFF -DCatch2_DIR="$sr/usr/lib/cmake/Catch2"
     -DCLI11_DIR="$sr/usr/share/cmake/CLI11" -Dtoml11_DIR="$sr/usr/share/cmake/toml11")
scripts/build-kokkos.sh cuda > "$out/kokkos.log" 2>&1 || { tail "$out/kokkos.log"; exit 1; }
case $part in micro) patches="sqrt-normal.patch clamp-loads.patch" flags="" presets="cuda-float cuda" ;;
              fuse) patches=fuse-z.patch flags="-DSHWA_EXPERIMENT_FUSE_Z=1" presets="cuda-float" ;;
              *) echo "unknown part $part"; exit 2 ;; esac
p=/tmp/shwa-patched; rm -rf "$p" && mkdir -p "$p"
tar --exclude=./.deps --exclude=./build --exclude=./out -cf - . | tar -xf - -C "$p"
for patch in $patches; do
  (cd "$p" && patch -p1 < "$here/$patch") >> "$out/patch.log" 2>&1 || { cat "$out/patch.log"; exit 1; }
done
for pr in $presets; do
  ( cmake --preset $pr -B build/base-$pr "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF > "$out/cfg-base-$pr.log" 2>&1 &&
    cmake --build build/base-$pr -j 4 --target shwa_bench > "$out/build-base-$pr.log" 2>&1 || echo "base $pr build FAILED" ) &
  ( cd "$p" && cmake --preset $pr -B build/p-$pr "${cfg[@]}" -DSHWA_ENABLE_TESTS=ON "-DCMAKE_CXX_FLAGS=$flags -Xptxas=-v" \
      > "$out/cfg-p-$pr.log" 2>&1 &&
    cmake --build build/p-$pr -j 4 --target shwa_bench test_core > "$out/build-p-$pr.log" 2>&1 || echo "patched $pr build FAILED" ) &
done
wait
echo "built at ${SECONDS}s"; nvidia-smi -L
for pr in $presets; do
  grep -A4 "Compiling entry.*\(CflMaxZAtomic\|DecoupledUpdateBody\)" "$out/build-p-$pr.log" | grep -c "spill stores, [1-9]" | sed "s/^/$pr: step kernels that spill (in double the capped update with the step from the device did before): /"
  if [ $part = fuse ]; then timeout 120 "$p/build/p-$pr/tests/test_core" "[fused]" 2>&1 | tail -4; fi
  timeout 250 "$p/build/p-$pr/tests/test_core" > "$out/test-$pr.log" 2>&1; echo "$pr test_core rc=$?"; tail -2 "$out/test-$pr.log"
done
ncu_kernels="Decoupled|Cfl"; [ $part = fuse ] && ncu_kernels="Decoupled|Cfl|FusedZ"
for pr in $presets; do for t in base p; do
  b=build/base-$pr/perf/shwa_bench; [ $t = p ] && b=$p/build/p-$pr/perf/shwa_bench
  timeout 120 ncu --kernel-name-base demangled --kernel-name regex:"$ncu_kernels" --launch-skip 6 --launch-count 6 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
    --csv "$b" --sizes 16384 --variants decoupled --tiles 32x8 --steps 4 --warmup 1 > "$out/ncu-$pr-$t.csv" 2> "$out/ncu-$pr-$t.err"
  python3 - "$out/ncu-$pr-$t.csv" "$pr $t" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k, m, v = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value')
for r in rows[1:]:
    name = 'update' if 'Decoupled' in r[k] else 'cfl' if 'Cfl' in r[k] else 'border' if 'FusedZ' in r[k] else r[k][:40]
    print(sys.argv[2], name, r[m], r[v])
PY
done; done | sort | uniq | tee "$out/ncu.txt"
for r in 1 2; do for pr in $presets; do for t in base p; do
  b=build/base-$pr/perf/shwa_bench; [ $t = p ] && b=$p/build/p-$pr/perf/shwa_bench
  "$b" --sizes 4096,16384 --variants decoupled --tiles 32x8 --steps 50 | grep -E "^ +[0-9]+ dec" | sed "s/^/$pr $t r$r /"
done; done; done | tee "$out/bench.txt"
