#!/usr/bin/env bash
# Session 36: dry-land skipping on the GPU, the fine estuary (inputs/estuary_fine.toml, 25.5 M
# cells, to t = $FINE_END s) beside the default deck (1.02 M cells, to its end): each deck's time
# loop with skipping on and off in $ROUNDS alternated rounds, then each kernel's time a step with
# skipping on and off (perf/cuda_timeline.cpp, perf/timeline.py --kernels). Run after
# `perf/gpu_session.sh build` in the same call. The fine raster is scripts/make_estuary.py's
# (--nx 6000 --ny 4250), carried gzipped as .deps/fine/bathymetry.asc.gz.
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
[ -f inputs/estuary_fine/bathymetry.asc ] || gunzip -c .deps/fine/bathymetry.asc.gz > inputs/estuary_fine/bathymetry.asc
exe=build/cuda/app/shwa
run() {  # run DECK END SKIP [more shwa arguments]: the summary's steps, loop time, skipped fraction
  local deck=$1 end=$2 skip=$3; shift 3
  "$@" $exe run inputs/$deck.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/s36-$deck --overwrite \
    --set time.end=$end --set time.output_interval=$end --set numerics.skip_dry=$skip > /tmp/s36-run.log 2>&1 ||
    { tail -3 /tmp/s36-run.log; return 1; }
  python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
print(f'{sys.argv[2]} skip_dry={sys.argv[3]}: {d[\"steps\"]} steps, loop {d[\"time_loop_s\"]:.4f} s, dry land skipped {d[\"dry_land_skipped\"]:.3f}')" \
    /tmp/s36-$deck/summary.json "$deck" "$skip"
}
for r in $(seq "${ROUNDS:-2}"); do
  for deck in estuary estuary_fine; do
    end=5400; [ $deck = estuary_fine ] && end=${FINE_END:-600}
    for skip in true false; do echo -n "r$r "; run $deck $end $skip env; done
  done
done | tee "$out/fine-loops.txt"
tl_lib=$PWD/build/cuda/perf/libshwa_cuda_timeline.so
[ -f "$tl_lib" ] || { echo "no $tl_lib (CUPTI?)"; exit 0; }
for deck in estuary estuary_fine; do
  end=5400; [ $deck = estuary_fine ] && end=${FINE_END:-600}
  for skip in true false; do
    echo "-- $deck skip_dry=$skip"
    run $deck $end $skip env KOKKOS_PROFILE_LIBRARY=$tl_lib SHWA_TIMELINE=/tmp/s36-tl-$deck-$skip &&
      python3 perf/timeline.py /tmp/s36-tl-$deck-$skip.rank0.csv --kernels
  done
done | tee "$out/fine-kernels.txt"
