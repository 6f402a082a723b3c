#!/usr/bin/env bash
# Device calls of session 52, the form of session 51's call-next.sh: trees A and B built, B
# tested, both timed in one call (run from anywhere on the GPU machine, carrying .deps/src and
# .deps/debs; output in $OUT):
#
#   call-next.sh cflbound  A: the tree; B: the CFL pass bounded to 32 resident warps a
#                          multiprocessor (SHWA_DEVICE_CFL_MIN_TEAMS=32; double 65 -> 63
#                          registers, 28 -> 32 warps, no spills). Both precisions. ~6 min.
#
# Each call: test_core of B in each precision, Nsight Compute of the update and the CFL pass at
# 16384^2 in both trees, shwa_bench of both trees at 1024^2, 4096^2 and 16384^2, two rounds.
set -uo pipefail
name=${1:?usage: call-next.sh cflbound}
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
  /tmp/shwa-$t/build/$pr/perf/shwa_bench --sizes 1024,4096,16384 --variants decoupled --tiles 32x8 --steps 50 |
    grep -E "^ +[0-9]+ dec" | sed "s/^/$pr $t r$r /"
done; done; done | tee "$out/bench.txt"
