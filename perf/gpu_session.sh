#!/usr/bin/env bash
# On the GPU machine (no network): build Kokkos + shwa from the sources carried in .deps/src, test,
# benchmark. Results and logs go to $OUT (or ./out). Steps, in the order given:
#   build    Kokkos CUDA + shwa, the app included (BUILD_TARGETS: only those targets; cuda preset,
#            MPI on when mpicxx exists; NetCDF and PNG output where their libraries are; this
#            machine has libpng, not NetCDF: the configure log and shwa-info.txt say so); in the
#            background, where a later step runs on the host (app, openmp, estuary-host) or
#            HOST_BUILD=1, the OpenMP Kokkos + shwa_bench and shwa for the host comparison (it
#            competes with the CUDA build for the cores)
#   test     the whole ctest suite of the CUDA build: core, I/O, app (decks, restart, gauges,
#            blow-ups; `mpirun shwa` at 2 and 4 ranks), comm (one GPU a rank, round robin), perf
#   app      perf/app_vs_bench.sh: `shwa run` on the fully wet inputs/bench/wet_4096.toml against
#            shwa_bench's steps alone, same grid, kernel and steps (CUDA at $APP_N, default 4096;
#            then OpenMP on $APP_THREADS host threads, default 16, at $APP_CPU_N, default 1024, tile
#            $APP_CPU_TILE, default 128x8, the host's)
#   bench    shwa_bench, CUDA double, $SIZES x both variants x $TILES; appended to the history
#            (perf/history.py) when SHWA_COMMIT is set
#   scale    shwa_scale on 1 and $NP GPUs: strong at $SCALE_SIZES, weak at 8192^2 a GPU, k and overlap
#   float    CUDA single precision: build shwa_bench, run it (history as for bench)
#   bounds   shwa_bench built with each launch bound $BOUND_VAR = $BOUNDS (default: the large blocks'
#            update, SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS = 12 16 20 24; the other column kernels:
#            SHWA_DEVICE_COLUMN_MIN_TEAMS), at $BOUND_SIZES (8192); BOUND_MACRO=1: the
#            variable is a preprocessor macro (e.g. SHWA_DEVICE_COLUMN_UNROLL), not a CMake one;
#            BOUND_PRESET=cuda-float builds them in single precision; BENCH_ARGS: more shwa_bench
#            arguments (e.g. --velocity 0)
#   trees    the same benchmark for several commits, timed one after the other on one machine:
#            each .deps/trees/NAME.tgz (`git archive --format=tar.gz -o .deps/trees/NAME.tgz COMMIT`)
#            built side by side ($TREE_PRESET, default cuda: shwa_bench only), then shwa_bench
#            --sizes $TREE_SIZES (default 8192,16384) $BENCH_ARGS of each, $TREE_ROUNDS rounds
#            (default 2) (trees.txt, written as it goes): a bisect of a performance change
#   openmp   shwa_bench of the OpenMP build (double, then float) on each of $OMP_THREADS host
#            thread counts (default: 16, the cores of a one-GPU machine, and all cores), then the
#            GPU-over-CPU speedup table (run bench and float first); OMP_BIND (spread) and
#            OMP_PLACES_ (threads) set the binding
#   lanes64  the core and comm suites of a CUDA build whose column teams have 64 lanes, two warps
#            (SHWA_DEVICE_LANES=64, the width AMD GPUs get): the AMD teams' code tested on CUDA
#   noshuffle the same suites with the CFL pass's one-warp teams through team scratch and barriers
#            (SHWA_DEVICE_CFL_SHUFFLE=0), the path the default build replaces by warp shuffles
#   ncu      Nsight Compute on the step kernels at 4096^2 (occupancy, warp stalls, instruction mix);
#            with NCU_SOURCE=1 also the instructions and stall samples of each SASS instruction
#            (ncu-sass.csv) and their opcode mix a cell (perf/ncu_sass.py); LINEINFO=1 at the build
#            step adds the source lines to the report
#   estuary  the default deck's time loop (inputs/estuary.toml, one frame at the end) for each of
#            $ESTUARY_RUNS, '|'-separated "skip_dry rows cfl_rows" (0: automatic), GPU build:
#            time_loop_s from summary.json (dry-land skipping on and off, the column kernels' rows);
#            then, where CUPTI was built, each kernel's time a step with skipping on and off
#            (perf/timeline.py --kernels)
#   estuary-host  the same loop on the OpenMP build (built in the background by build: wait for it)
#            at each of $HOST_THREADS (default 16 8 4 2) with skipping on and off, to t = $HOST_END s
#            (default 1200), each kernel's time from perf/kernel_timer.cpp (host threads spread);
#            HOST_SET: one more deck setting, e.g. 'numerics.tile=[64,8]'
#   ncu-app  Nsight Compute on the app's kernels: steps of the default deck (launches $NCU_APP_SKIP
#            to + $NCU_APP_COUNT, of a run to $NCU_APP_END s) with skipping on and off, unmodified
#            clocks; each kernel's launches, mean duration, instructions, grid, and how evenly its
#            multiprocessors worked (the least and most busy one's active cycles against the mean,
#            issue and warp occupancy while active) (perf/ncu_table.py); NCU_APP_SET: one more
#            deck setting, e.g. 'numerics.rows=4'
#   timeline the overlapped halo exchange on a GPU timeline: shwa_scale on $NP ranks, k = 1, overlap
#            on, at $TL_SIZES (default 8192 4096), recorded by perf/cuda_timeline.cpp (CUPTI) and
#            summarised by perf/timeline.py (timeline-N.txt: how much of each step's halo ran inside
#            its interior update, and the median step's events); MPS=1 runs the ranks under an MPS
#            daemon, so that ranks sharing one GPU run their kernels side by side (without it they
#            take turns, and one rank's step stretches over the other's)
#   pack     everything under $OUT into $OUT/session.tgz, alone there (the device tool returns the
#            first 8 files of $OUT and no more; until then $OUT/00-all.tgz holds what every finished
#            step wrote, for a call cut off by its time limit)
#   SHWA_COMMIT=<the commit of the tree copied there> perf/gpu_session.sh build test bench
# Building the whole suite (CUDA, 16 cores) takes most of a 600 s device call: run `build` in one
# call and `test ...` in the next while the machine is warm (its build/ stays; .deps, if carried
# again, is replaced, which the built programs do not need).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH SHWA_DEPS=$PWD/.deps SHWA_JOBS=$(nproc)
# Kokkos is built into .deps/build and .deps/install here; links there from the machine that staged
# .deps (to its own cache) point nowhere on this one, and the install would fail.
for d in .deps/build .deps/install; do [ -L "$d" ] && { echo "gpu_session: removing the link $d"; rm "$d"; }; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SIZES=${SIZES:-8192,16384} TILES=${TILES:-32x8,32x4,64x4,16x16} NP=${NP:-2}
cfg=()
command -v mpicxx > /dev/null || cfg+=(-DSHWA_ENABLE_MPI=OFF)
# Header-only Debian packages staged by scripts/stage-offline-debs.sh (this machine has no registry):
# Catch2 for the tests, CLI11 and toml11 for the app and the benchmarks.
if ls .deps/debs/*.deb > /dev/null 2>&1; then
  for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/sysroot; done
  cfg+=(-DCatch2_DIR="$PWD/.deps/sysroot/usr/lib/cmake/Catch2" -DCLI11_DIR="$PWD/.deps/sysroot/usr/share/cmake/CLI11"
        -Dtoml11_DIR="$PWD/.deps/sysroot/usr/share/cmake/toml11")
fi
bench() { "$@" --variants recompute,decoupled --steps 50; }
# The GPU performance history: each bench/float run's JSON appended to a copy of
# perf/results/gpu-history.csv in $out (perf/history.py; copy it back and commit it). SHWA_COMMIT
# names the commit measured (this machine's copy of the tree may carry no usable git history);
# SHWA_MACHINE the machine (default: nvidia-h100 or nvidia-h200, from the GPU's name: a call for
# one kind may be given the other); HISTORY_NOTE a note.
gpu_kind() {
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)" in
    *H100*) echo nvidia-h100 ;; *H200*) echo nvidia-h200 ;; *) echo unknown-gpu ;;
  esac
}
history() {
  if [ -z "${SHWA_COMMIT:-}" ]; then echo "history: SHWA_COMMIT not set, run not recorded"; return; fi
  [ -f "$out/gpu-history.csv" ] || cp perf/results/gpu-history.csv "$out/"
  python3 perf/history.py --history "$out/gpu-history.csv" append "$1" --commit "$SHWA_COMMIT" \
    --machine "${SHWA_MACHINE:-$(gpu_kind)}" --note "${HISTORY_NOTE:-}"
}

host_build=${HOST_BUILD:-0}
for step in "$@"; do case $step in app|openmp|estuary-host) host_build=1 ;; esac; done
for step in "$@"; do
  echo "== $step ($(date +%T))"
  case $step in
  build)
    { nvidia-smi -L; nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1; nproc
      grep -m1 "model name" /proc/cpuinfo; grep -m1 -o -w -E "avx2|avx512f|fma" /proc/cpuinfo | sort -u | tr '\n' ' '; echo; } > "$out/machine.txt" 2>&1
    cat "$out/machine.txt"
    [ "$host_build" = 1 ] && ( scripts/build-kokkos.sh openmp > "$out/openmp-build.log" 2>&1 &&
      cmake --preset openmp "${cfg[@]}" -DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF >> "$out/openmp-build.log" 2>&1 &&
      cmake --build --preset openmp -j 8 --target shwa_bench shwa shwa_kernel_timer >> "$out/openmp-build.log" 2>&1 ||
      echo "OpenMP build FAILED" >> "$out/openmp-build.log" ) &
    scripts/build-kokkos.sh cuda || exit 1
    li=(); [ "${LINEINFO:-0}" = 1 ] && li=(-DCMAKE_CXX_FLAGS=-lineinfo)  # debug info only, same code
    cmake --preset cuda "${cfg[@]}" "${li[@]}" > "$out/configure-cuda.log" 2>&1 || { tail -30 "$out/configure-cuda.log"; exit 1; }
    # BUILD_TARGETS: only these targets (e.g. "shwa test_app"), for a short call.
    cmake --build --preset cuda -j "$SHWA_JOBS" ${BUILD_TARGETS:+--target $BUILD_TARGETS} > "$out/build-cuda.log" 2>&1 ||
      { grep -m20 -A3 error "$out/build-cuda.log"; exit 1; }
    grep "shwa: .* output:" "$out/configure-cuda.log"
    build/cuda/app/shwa info > "$out/shwa-info.txt" 2>&1; grep "output formats" "$out/shwa-info.txt"
    wait
    if [ "$host_build" = 1 ]; then grep -h "host ISA" "$out/openmp-build.log"; tail -1 "$out/openmp-build.log"; fi ;;
  test)
    ctest --preset cuda --timeout 300 ${CTEST_ARGS:-} 2>&1 | tee "$out/ctest-cuda.log" | grep -E "tests passed|Failed|\*\*\*|Total Test" ;;
  app)
    N=${APP_N:-4096} BUILD=build/cuda perf/app_vs_bench.sh 2>&1 | tee "$out/app-vs-bench-cuda.log"
    if [ -x build/openmp/app/shwa ]; then
      OMP_NUM_THREADS=${APP_THREADS:-16} OMP_PROC_BIND=${OMP_BIND:-spread} OMP_PLACES=${OMP_PLACES_:-threads} \
        N=${APP_CPU_N:-1024} TILE=${APP_CPU_TILE:-128x8} BUILD=build/openmp perf/app_vs_bench.sh 2>&1 | tee "$out/app-vs-bench-openmp.log"
    fi ;;
  bench)
    bench build/cuda/perf/shwa_bench --sizes "$SIZES" --tiles "$TILES" --json "$out/bench-cuda-double.json" | tee "$out/bench-cuda-double.log"
    history "$out/bench-cuda-double.json" ;;
  scale)
    s=build/cuda/perf/shwa_scale; log=$out/scale-cuda-double.log; : > "$log"
    for n in ${SCALE_SIZES:-4096 8192 16384}; do
      for np in 1 "$NP"; do
        mpirun -np "$np" --bind-to none $s --n "$n" --k 1 --overlap off,on --steps 50 --json "$out/scale-s$n-np$np.json" | tee -a "$log"
      done
    done
    mpirun -np "$NP" --bind-to none $s --n 8192 --k 2,4 --overlap off,on --steps 50 | tee -a "$log"
    mpirun -np "$NP" --bind-to none $s --n 8192 --weak --k 1 --overlap off,on --steps 50 | tee -a "$log" ;;
  float)
    # Kokkos as the build step makes it (reused where built), so that this step also runs alone.
    { scripts/build-kokkos.sh cuda > "$out/float-kokkos.log" 2>&1 || { echo "float: Kokkos build FAILED"; tail "$out/float-kokkos.log"; false; }; } &&
    { cmake --preset cuda-float "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF > "$out/configure-cuda-float.log" 2>&1 ||
        { echo "float: configure FAILED"; tail -20 "$out/configure-cuda-float.log"; false; }; } &&
    { cmake --build --preset cuda-float -j "$SHWA_JOBS" --target shwa_bench > "$out/build-cuda-float.log" 2>&1 ||
        { echo "float: build FAILED"; grep -m20 -A3 error "$out/build-cuda-float.log"; false; }; } &&
      bench build/cuda-float/perf/shwa_bench --sizes "$SIZES" --tiles "$TILES" --json "$out/bench-cuda-float.json" | tee "$out/bench-cuda-float.log" &&
      history "$out/bench-cuda-float.json" ;;
  bounds)
    bv=${BOUND_VAR:-SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS}; bp=${BOUND_PRESET:-cuda}
    scripts/build-kokkos.sh "${bp%-float}" > "$out/bounds-kokkos.log" 2>&1 || { tail "$out/bounds-kokkos.log"; continue; }
    for b in ${BOUNDS:-12 16 20 24}; do
      def=(-D$bv=$b); [ "${BOUND_MACRO:-0}" = 1 ] && def=(-DCMAKE_CXX_FLAGS=-D$bv=$b)
      { cmake --preset "$bp" -B "build/$bp-mt$b" "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF "${def[@]}" &&
        cmake --build "build/$bp-mt$b" -j "$SHWA_JOBS" --target shwa_bench; } > "$out/build-$bp-mt$b.log" 2>&1 ||
        echo "bounds: $bp with $bv=$b did not build ($out/build-$bp-mt$b.log)" &
    done; wait
    for b in ${BOUNDS:-12 16 20 24}; do
      echo "-- $bp: $bv=$b"; bench "build/$bp-mt$b/perf/shwa_bench" --sizes ${BOUND_SIZES:-8192} --tiles "$TILES" ${BENCH_ARGS:-}
    done 2>&1 | tee "$out/bench-bounds-$bp.log" ;;
  trees)
    tp=${TREE_PRESET:-cuda}; names=()
    scripts/build-kokkos.sh "${tp%-float}" > "$out/trees-kokkos.log" 2>&1 || { tail "$out/trees-kokkos.log"; continue; }
    for t in .deps/trees/*.tgz; do
      [ -e "$t" ] || { echo "trees: no .deps/trees/*.tgz"; break; }
      n=$(basename "$t" .tgz); names+=("$n"); d=/tmp/shwa-trees/$n
      ( rm -rf "$d" && mkdir -p "$d" && tar xzf "$t" -C "$d" && cd "$d" &&
        cmake --preset "$tp" "${cfg[@]}" -DSHWA_ENABLE_TESTS=OFF -DSHWA_ENABLE_APP=OFF > "$out/trees-configure-$n.log" 2>&1 &&
        cmake --build --preset "$tp" -j 4 --target shwa_bench > "$out/trees-build-$n.log" 2>&1 || echo "trees: $n build FAILED" ) &
    done; wait
    for r in $(seq "${TREE_ROUNDS:-2}"); do
      for n in "${names[@]}"; do
        b=/tmp/shwa-trees/$n/build/$tp/perf/shwa_bench; [ -x "$b" ] || continue
        bench "$b" --sizes "${TREE_SIZES:-8192,16384}" --tiles 32x8 ${BENCH_ARGS:-} | grep --line-buffered -E "^ +[0-9]+ (rec|dec)" | sed -u "s/^/$n r$r /"
      done
    done | tee "$out/trees.txt" ;;
  openmp)
    ( cmake --preset openmp-float "${cfg[@]}" -DSHWA_ENABLE_MPI=OFF -DSHWA_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
      cmake --build --preset openmp-float -j "$SHWA_JOBS" --target shwa_bench > "$out/build-openmp-float.log" 2>&1 ) || echo "openmp-float build FAILED"
    lscpu > "$out/lscpu.txt" 2>&1; grep -E "^(Model name|Thread|Core|Socket|NUMA node\(s\)|CPU max MHz|L3)" "$out/lscpu.txt"
    c++ --version | head -1  # whether the host loops vectorize depends on it (docs/kernels.md)
    for p in openmp openmp-float; do python3 perf/host_simd.py build/$p/perf/shwa_bench > "$out/host-simd-$p.txt" ||
      { echo "$p: a hot host loop is scalar, the figures below are not the code's"; cat "$out/host-simd-$p.txt"; }; done
    for nt in ${OMP_THREADS:-16 $(nproc)}; do
      for prec in double float; do
        b=build/openmp/perf/shwa_bench; [ $prec = float ] && b=build/openmp-float/perf/shwa_bench
        OMP_NUM_THREADS=$nt OMP_PROC_BIND=${OMP_BIND:-spread} OMP_PLACES=${OMP_PLACES_:-threads} $b --sizes ${CPU_SIZES:-1024,2048,4096} \
          --variants recompute,decoupled --tiles ${CPU_TILES:-128x8,256x8} --steps 10 --warmup 2 \
          --json "$out/bench-openmp-$prec-t$nt.json" | tee "$out/bench-openmp-$prec-t$nt.log"
      done
    done
    python3 perf/plot.py --speedup "$out" | tee "$out/speedup.txt" ;;  # with the bench/float steps' JSON
  ncu)
    NCU_KERNELS="DecoupledUpdate|RecomputeUpdate|CflMaxZAtomic"  # the step's kernels (their functors)
    ncu --clock-control none --kernel-name-base demangled --kernel-name regex:"$NCU_KERNELS" --launch-skip 2 --launch-count 2 \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis \
      build/cuda/perf/shwa_bench --sizes 4096 --variants ${VARIANTS:-decoupled} --tiles ${NCU_TILE:-32x4} --steps 3 --warmup 1 > "$out/ncu.txt" 2>&1
    grep -E "^  [a-z].*cuda_parallel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Compute \(SM\)|Block Size|Stall|Issue Slots|Executed Ipc" "$out/ncu.txt" | cut -c1-140 | head -60
    if [ "${NCU_SOURCE:-0}" = 1 ]; then
      ncu --clock-control none --kernel-name-base demangled --kernel-name regex:"$NCU_KERNELS" --launch-skip 2 --launch-count 2 \
        --section SourceCounters --section WarpStateStats --import-source yes -o "$out/ncu-source" -f \
        build/cuda/perf/shwa_bench --sizes 4096 --variants ${VARIANTS:-decoupled} --steps 3 --warmup 1 > /dev/null 2>&1
      ncu -i "$out/ncu-source.ncu-rep" --page source --csv --print-source sass > "$out/ncu-sass.csv" 2>&1
      python3 perf/ncu_sass.py "$out/ncu-sass.csv" --cells $((4096 * 4096)) | tee "$out/ncu-sass.txt"
    fi ;;
  estuary)
    IFS='|' read -r -a runs <<< "${ESTUARY_RUNS:-true 0 0|false 0 0}"
    for r in "${runs[@]}"; do
      read -r skip rows cfl_rows <<< "$r"
      build/cuda/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/shwa-estuary \
        --overwrite --set time.output_interval=5400 --set numerics.skip_dry="$skip" --set numerics.rows="$rows" \
        --set numerics.cfl_rows="$cfl_rows" > "$out/estuary-run.log" 2>&1 || { tail -3 "$out/estuary-run.log"; continue; }
      python3 -c "import json, sys; d = json.load(open('/tmp/shwa-estuary/summary.json'))
print(f'skip_dry={sys.argv[1]} rows={sys.argv[2]} cfl_rows={sys.argv[3]}: {d[\"steps\"]} steps, loop {d[\"time_loop_s\"]:.4f} s, dry land skipped {d[\"dry_land_skipped\"]:.3f}')" \
        "$skip" "$rows" "$cfl_rows"
    done | tee "$out/estuary.txt"
    # Each kernel's time a step, skipping on and off (perf/cuda_timeline.cpp, perf/timeline.py --kernels;
    # the tool's records slow the host, not the GPU's kernels).
    tl_lib=$PWD/build/cuda/perf/libshwa_cuda_timeline.so
    [ -f "$tl_lib" ] || { echo "estuary: $tl_lib not built (no CUPTI?)"; continue; }
    for skip in true false; do
      KOKKOS_PROFILE_LIBRARY=$tl_lib SHWA_TIMELINE=/tmp/shwa-etl-$skip build/cuda/app/shwa run inputs/estuary.toml \
        --set 'output.formats=["vtk"]' --set output.dir=/tmp/shwa-estuary --overwrite --set time.output_interval=5400 \
        --set numerics.skip_dry=$skip > "$out/estuary-run.log" 2>&1 || { tail -3 "$out/estuary-run.log"; continue; }
      echo "-- skip_dry=$skip"; python3 perf/timeline.py /tmp/shwa-etl-$skip.rank0.csv --kernels
    done | tee "$out/estuary-kernels.txt" ;;
  lanes64|noshuffle)
    # lanes64: teams of 64 lanes; noshuffle: the CFL pass's 32-lane teams through team scratch.
    flags=-DSHWA_DEVICE_LANES=64; [ "$step" = noshuffle ] && flags=-DSHWA_DEVICE_CFL_SHUFFLE=0
    cmake --preset cuda -B "build/cuda-$step" "${cfg[@]}" -DCMAKE_CXX_FLAGS=$flags > "$out/configure-$step.log" 2>&1 &&
      cmake --build "build/cuda-$step" -j "$SHWA_JOBS" --target test_core test_comm > "$out/build-$step.log" 2>&1 ||
      { grep -m20 -A3 error "$out/build-$step.log"; exit 1; }
    ctest --test-dir "build/cuda-$step" -R "^test_core|^test_comm" --timeout 300 -j3 > "$out/ctest-$step.txt" 2>&1
    grep -E "tests passed|Failed|\*\*\*" "$out/ctest-$step.txt" ;;
  estuary-host)
    for th in ${HOST_THREADS:-16 8 4 2}; do
      for skip in true false; do
        OMP_NUM_THREADS=$th OMP_PROC_BIND=spread OMP_PLACES=threads \
          KOKKOS_PROFILE_LIBRARY=$PWD/build/openmp/perf/libshwa_kernel_timer.so SHWA_KERNEL_TIMES="$out/kernels-$th-$skip.txt" \
          build/openmp/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/shwa-estuary-host \
          --overwrite --set time.end="${HOST_END:-1200}" --set time.output_interval="${HOST_END:-1200}" \
          --set numerics.skip_dry=$skip ${HOST_SET:+--set "$HOST_SET"} > "$out/estuary-host-run.log" 2>&1 || { tail -3 "$out/estuary-host-run.log"; continue; }
        python3 -c "import json, sys; d = json.load(open('/tmp/shwa-estuary-host/summary.json'))
print(f'threads={sys.argv[1]} skip_dry={sys.argv[2]}: {d[\"steps\"]} steps, loop {d[\"time_loop_s\"]:.3f} s')" "$th" "$skip"
        sed -n 2,6p "$out/kernels-$th-$skip.txt"
      done
    done | tee "$out/estuary-host.txt" ;;
  timeline)
    tl_lib=$PWD/build/cuda/perf/libshwa_cuda_timeline.so
    [ -f "$tl_lib" ] || { echo "timeline: $tl_lib not built (no CUPTI?)"; continue; }
    if [ "${MPS:-0}" = 1 ]; then
      export CUDA_MPS_PIPE_DIRECTORY=/tmp/shwa-mps CUDA_MPS_LOG_DIRECTORY=/tmp/shwa-mps-log
      mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"; nvidia-cuda-mps-control -d
    fi
    for n in ${TL_SIZES:-8192 4096}; do
      KOKKOS_PROFILE_LIBRARY=$tl_lib SHWA_TIMELINE=/tmp/shwa-tl$n mpirun -np "$NP" --bind-to none \
        -x KOKKOS_PROFILE_LIBRARY -x SHWA_TIMELINE build/cuda/perf/shwa_scale --n "$n" --k 1 --overlap on \
        --steps 20 --warmup 2 > "$out/timeline-run-$n.log" 2>&1 || { tail -3 "$out/timeline-run-$n.log"; continue; }
      python3 perf/timeline.py /tmp/shwa-tl$n.rank*.csv > "$out/timeline-$n.txt"; grep -B1 "inside" "$out/timeline-$n.txt"
    done
    [ "${MPS:-0}" = 1 ] && echo quit | nvidia-cuda-mps-control ;;
  ncu-app)
    for skip in true false; do
      ncu --clock-control none --kernel-name-base demangled --launch-skip "${NCU_APP_SKIP:-100}" \
        --launch-count "${NCU_APP_COUNT:-100}" --csv --page raw \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__waves_per_multiprocessor \
        build/cuda/app/shwa run inputs/estuary.toml --set 'output.formats=["vtk"]' --set output.dir=/tmp/shwa-ncu-app \
        --overwrite --set time.end="${NCU_APP_END:-150}" --set numerics.skip_dry=$skip ${NCU_APP_SET:+--set "$NCU_APP_SET"} \
        > "$out/ncu-app-$skip.csv" 2> "$out/ncu-app-$skip.err"
      echo "-- skip_dry=$skip"; python3 perf/ncu_table.py "$out/ncu-app-$skip.csv" --width 50
    done | tee "$out/ncu-app.txt" ;;
  pack)
    # Only session.tgz stays: the device tool returns the first 8 files of $OUT and no more.
    tar czf /tmp/session.tgz -C "$out" --exclude=00-all.tgz . && rm -rf "${out:?}"/* && mv /tmp/session.tgz "$out/" ;;
  *) echo "unknown step $step"; exit 2 ;;
  esac
  # After every step, everything in $OUT so far is also in $OUT/00-all.tgz, which sorts first: the
  # device tool returns the first 8 files, and a call cut off by its time limit still returns
  # what the finished steps wrote.
  if [ "$step" != pack ] && tar czf /tmp/shwa-all.tgz -C "$out" --exclude=00-all.tgz . 2> /dev/null; then
    mv /tmp/shwa-all.tgz "$out/00-all.tgz"
  fi
done
