#!/usr/bin/env bash
# Session 36: the maxima folded in the CFL pass, on the GPU: the default estuary (to its end) and
# the fine one (25.5 M cells, to t = $FINE_END s), each with skipping on and off, for the working
# tree (new: build/cuda, made by `perf/gpu_session.sh build` first in the same call) and _base/ (a
# git archive of the commit before, built here; TREES=new leaves it out), $ROUNDS alternated rounds
# of time loops; then each kernel's time a step of the new tree (perf/cuda_timeline.cpp, perf/timeline.py --kernels). The
# fine raster is scripts/make_estuary.py's (--nx 6000 --ny 4250), carried gzipped as
# .deps/fine/bathymetry.asc.gz.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps
cfg=(-DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11" -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
command -v mpicxx > /dev/null || cfg+=(-DSHWA_ENABLE_MPI=OFF)
trees=${TREES:-base new}
if [ "$trees" != new ]; then
  { cmake -S _base -B build/ab-base --preset cuda "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF -DCMAKE_PREFIX_PATH="$SHWA_DEPS/install/cuda" &&
    cmake --build build/ab-base -j "$(nproc)" --target shwa shwa_cuda_timeline; } > "$out/build-base.log" 2>&1 ||
    { tail -20 "$out/build-base.log"; exit 1; }
fi
[ -f inputs/estuary_fine/bathymetry.asc ] || gunzip -c .deps/fine/bathymetry.asc.gz > inputs/estuary_fine/bathymetry.asc
exe() { [ "$1" = new ] && echo build/cuda || echo build/ab-base; }
run() {  # run TREE DECK END SKIP [environment]: the summary's steps, loop time, skipped fraction
  local tree=$1 deck=$2 end=$3 skip=$4; shift 4
  env "$@" "$(exe "$tree")/app/shwa" run inputs/$deck.toml --set 'output.formats=["vtk"]' --set 'output.fields=["h"]' \
    --set output.dir=/tmp/s36-$deck --overwrite --set time.end=$end --set time.output_interval=$end \
    --set numerics.skip_dry=$skip > /tmp/s36-run.log 2>&1 || { tail -3 /tmp/s36-run.log; return 1; }
  python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
print(f'{sys.argv[2]} {sys.argv[3]} skip_dry={sys.argv[4]}: {d[\"steps\"]} steps, loop {d[\"time_loop_s\"]:.4f} s, dry land skipped {d[\"dry_land_skipped\"]:.3f}')" \
    /tmp/s36-$deck/summary.json "$tree" "$deck" "$skip"
}
for r in $(seq "${ROUNDS:-2}"); do
  for deck in estuary estuary_fine; do
    end=5400; [ $deck = estuary_fine ] && end=${FINE_END:-600}
    for skip in true false; do
      for tree in $trees; do echo -n "r$r "; run $tree $deck $end $skip; done
    done
  done
done | tee "$out/ab-loops.txt"
for deck in estuary estuary_fine; do
  end=5400; [ $deck = estuary_fine ] && end=${FINE_END:-600}
  for skip in true false; do
    echo "-- new $deck skip_dry=$skip"
    run new $deck $end $skip KOKKOS_PROFILE_LIBRARY=$PWD/build/cuda/perf/libshwa_cuda_timeline.so SHWA_TIMELINE=/tmp/s36-tl &&
      python3 perf/timeline.py /tmp/s36-tl.rank0.csv --kernels
  done
done | tee "$out/ab-kernels.txt"
