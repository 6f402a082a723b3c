#!/usr/bin/env bash
# Device calls for the next session: each builds two trees, A and B, the tree as it is with the
# patches beside this script listed below, tests B and times both in one call (run from anywhere
# on the GPU machine, carrying .deps/src and .deps/debs; output in $OUT):
#
#   call-next.sh micro   A: the tree; B: + sqrt-normal.patch + clamp-loads.patch, two changes that
#                        keep every bit: the CFL pass's edge speed takes its root without
#                        sqrt_nonneg's test of the operand and its branch (the "reciprocals and
#                        roots" test compares the two), and the column kernels' lanes beyond the
#                        box's ghost column read that column instead of a guarded zero, the CFL
#                        pass's next row unguarded. Both precisions. ~9 min.
#   call-next.sh unroll  A: the tree + both micro patches; B: + cfl-unroll.patch, the CFL pass two
#                        rows an iteration (its row-to-row register moves gone; float 39 -> 48
#                        registers, 48 -> 40 warps a multiprocessor). Both precisions. ~9 min.
#   call-next.sh fuse    A: the tree; B: + fuse-z.patch built with SHWA_EXPERIMENT_FUSE_Z=1, float
#                        only: issue 16's item 1. The decoupled update also sums Z_i of W^{n+1} for
#                        the cells its strips complete; where a step takes its dt from the host
#                        (blocks above 4096^2, one block, k = 1, one tracer, no watcher) the next
#                        step takes it from those sums and a border pass over the rest, after the
#                        boundary fill, instead of the CFL pass. test_core's "[fused]" first (dt
#                        and fields bit for bit against the CFL pass, the fused path taken). At
#                        16384^2 B's step is the fused one; below, its update does the fused work
#                        for nothing. ~5 min.
#   call-next.sh cflbound A: the tree; B: the CFL pass bounded to 32 resident warps a
#                        multiprocessor (SHWA_DEVICE_CFL_MIN_TEAMS=32; session 52, on 9fbeba9's
#                        code: double 65 -> 63 registers, 28 -> 32 warps). Both precisions, ~6 min.
#
# (The patches apply to 9153f62; micro's two are in 9fbeba9.) SIZES: shwa_bench's sizes (default
# 4096,16384; cflbound ran 1024,4096,16384).
#
# Each call: test_core of B in each precision, Nsight Compute of the update and the CFL pass (and
# the border pass) at 16384^2 in both trees (which kernel gained), shwa_bench of both trees at
# 4096^2 and 16384^2, two rounds, A and B in turn.
set -uo pipefail
name=${1:?usage: call-next.sh micro|unroll|fuse|cflbound}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=${OUT:-$PWD/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
sr=$PWD/.deps/sysroot
cfg=(-DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_APP=OFF -DCatch2_DIR="$sr/usr/lib/cmake/Catch2"
     -DCLI11_DIR="$sr/usr/share/cmake/CLI11" -Dtoml11_DIR="$sr/usr/share/cmake/toml11")
flags="" presets="cuda-float cuda" kernels="Decoupled|Cfl"
case $name in
  micro)  patches_a="" patches_b="sqrt-normal.patch clamp-loads.patch" ;;
  unroll) patches_a="sqrt-normal.patch clamp-loads.patch" patches_b="$patches_a cfl-unroll.patch" ;;
  fuse)   patches_a="" patches_b="fuse-z.patch" flags="-DSHWA_EXPERIMENT_FUSE_Z=1" presets="cuda-float"
          kernels="Decoupled|Cfl|FusedZ" ;;
  cflbound) patches_a="" patches_b="" flags="-DSHWA_DEVICE_CFL_MIN_TEAMS=32" ;;
  *) echo "call-next.sh: unknown call '$name'"; exit 2 ;;
esac
scripts/build-kokkos.sh cuda > "$out/kokkos.log" 2>&1 || { tail "$out/kokkos.log"; exit 1; }
for t in a b; do
  d=/tmp/shwa-$t; rm -rf "$d" && mkdir -p "$d"
  tar --exclude=./.git --exclude=./.deps --exclude=./build --exclude=./out -cf - . | tar -xf - -C "$d"
  list=$patches_a; [ $t = b ] && list=$patches_b
  for p in $list; do
    (cd "$d" && patch -p1 < "$here/$p") >> "$out/patch-$t.log" 2>&1 || { echo "$p does not apply to $t"; cat "$out/patch-$t.log"; exit 1; }
  done
done
for pr in $presets; do
  ( cd /tmp/shwa-a && cmake --preset $pr -B build/$pr "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF -DCMAKE_CXX_FLAGS=-Xptxas=-v \
      > "$out/cfg-a-$pr.log" 2>&1 &&
    cmake --build build/$pr -j 4 --target shwa_bench > "$out/build-a-$pr.log" 2>&1 || echo "A $pr build FAILED" ) &
  ( cd /tmp/shwa-b && cmake --preset $pr -B build/$pr "${cfg[@]}" -DSHWA_ENABLE_TESTS=ON "-DCMAKE_CXX_FLAGS=$flags -Xptxas=-v" \
      > "$out/cfg-b-$pr.log" 2>&1 &&
    cmake --build build/$pr -j 4 --target shwa_bench test_core > "$out/build-b-$pr.log" 2>&1 || echo "B $pr build FAILED" ) &
done
wait
echo "built at ${SECONDS}s"; nvidia-smi -L
for pr in $presets; do
  for t in a b; do  # registers and spills of the step kernels, A then B
    grep -A4 "Compiling entry.*\(CflMaxZAtomic.*NoObserver\|DecoupledUpdateBody.*ELi1ELb0ELi64\|FusedZBorder\)" \
      "$out/build-$t-$pr.log" | grep -E "Compiling|registers|spill" |
      sed -E 's/.*(CflMaxZAtomic|DecoupledUpdateBody|FusedZBorder)INS_4Cuda(ENS[0-9]_[0-9]*|E)([A-Za-z]*[0-9]*).*/\1 \3/; s/.*Used ([0-9]+) registers.*/\1 registers/; s/ *[0-9]+ bytes stack frame, ([0-9]+) bytes spill stores.*/spill \1/' |
      paste - - - | sed "s/^/$pr $t: /"
  done
  if [ $name = fuse ]; then timeout 150 /tmp/shwa-b/build/$pr/tests/test_core "[fused]" 2>&1 | tail -4; fi
  timeout 250 /tmp/shwa-b/build/$pr/tests/test_core > "$out/test-$pr.log" 2>&1; echo "$pr test_core of B: rc=$?"; tail -2 "$out/test-$pr.log"
done
for pr in $presets; do for t in a b; do
  timeout 120 ncu --kernel-name-base demangled --kernel-name regex:"$kernels" --launch-skip 6 --launch-count 6 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
    --csv /tmp/shwa-$t/build/$pr/perf/shwa_bench --sizes 16384 --variants decoupled --tiles 32x8 --steps 4 --warmup 1 \
    > "$out/ncu-$pr-$t.csv" 2> "$out/ncu-$pr-$t.err"
  python3 - "$out/ncu-$pr-$t.csv" "$pr $t" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k, m, v = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value')
for r in rows[1:]:
    name = 'update' if 'Decoupled' in r[k] else 'cfl' if 'Cfl' in r[k] else 'border' if 'FusedZ' in r[k] else r[k][:40]
    print(sys.argv[2], name, r[m], r[v])
PY
done; done | sort | uniq | tee "$out/ncu.txt"
for r in 1 2; do for pr in $presets; do for t in a b; do
  /tmp/shwa-$t/build/$pr/perf/shwa_bench --sizes ${SIZES:-4096,16384} --variants decoupled --tiles 32x8 --steps 50 |
    grep -E "^ +[0-9]+ dec" | sed "s/^/$pr $t r$r /"
done; done; done | tee "$out/bench.txt"
