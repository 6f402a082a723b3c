#!/usr/bin/env bash
# Step 2 of 2 (no network): build and install Kokkos and Kokkos Kernels 3.4.01 from the sources that
# scripts/fetch-kokkos.sh prepared, for one shwa backend.
#
#   scripts/build-kokkos.sh BACKEND [DEPS_DIR]
#     BACKEND  openmp  Kokkos OpenMP + Serial, Release
#              debug   Kokkos OpenMP + Serial, Debug, with View bounds checking
#              cuda    Kokkos CUDA (Hopper, sm_90) + Serial, Release, through nvcc_wrapper
#     DEPS_DIR defaults to $SHWA_DEPS or ~/.cache/shwa; installs into DEPS_DIR/install/BACKEND
#
# A finished install is reused (a stamp records the sources and options it was built from).
set -euo pipefail
# shellcheck source=scripts/kokkos-kernels-options.sh
source "$(dirname "$0")/kokkos-kernels-options.sh"
backend=${1:?usage: build-kokkos.sh openmp|debug|cuda [DEPS_DIR]}
deps=${2:-${SHWA_DEPS:-$HOME/.cache/shwa}}
src=$deps/src
prefix=$deps/install/$backend
jobs=${SHWA_JOBS:-$(nproc)}
[ -d "$src/kokkos" ] || { echo "shwa: no Kokkos sources in $src: run scripts/fetch-kokkos.sh first" >&2; exit 1; }

common=(-DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5
        -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF)
case $backend in
  openmp) opts=(-DCMAKE_BUILD_TYPE=Release -DKokkos_ENABLE_OPENMP=ON) ;;
  debug)  opts=(-DCMAKE_BUILD_TYPE=Debug -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_DEBUG=ON
                -DKokkos_ENABLE_DEBUG_BOUNDS_CHECK=ON) ;;
  cuda)   opts=(-DCMAKE_BUILD_TYPE=Release -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
                -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_COMPILER="$src/kokkos/bin/nvcc_wrapper") ;;
  *) echo "shwa: unknown backend '$backend' (openmp, debug, cuda)" >&2; exit 2 ;;
esac

key=$( (cat "$src"/.shwa-patched-* 2>/dev/null; ls "$src"/.shwa-patched-*; echo "${common[*]} ${opts[*]} ${kokkos_kernels_options[*]}") | sha256sum | cut -c1-16)
if [ -f "$prefix/.shwa-$key" ]; then echo "shwa: Kokkos ($backend) ready in $prefix"; exit 0; fi

gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
build=$deps/build/$backend
rm -rf "$build" "$prefix"; mkdir -p "$build"
echo "shwa: building Kokkos 3.4.01 ($backend) with $jobs jobs"
cmake -S "$src/kokkos" -B "$build/kokkos" "${gen[@]}" "${common[@]}" "${opts[@]}" \
      -DCMAKE_INSTALL_PREFIX="$prefix" > "$build/kokkos-configure.log" 2>&1 \
  || { cat "$build/kokkos-configure.log"; exit 1; }
cmake --build "$build/kokkos" -j "$jobs" > "$build/kokkos-build.log" 2>&1 || { tail -50 "$build/kokkos-build.log"; exit 1; }
cmake --install "$build/kokkos" > /dev/null

echo "shwa: installing Kokkos Kernels 3.4.01 ($backend), explicit instantiation off"
kk=(-DKokkos_ROOT="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release
    "${kokkos_kernels_options[@]}")
[ "$backend" = cuda ] && kk+=(-DCMAKE_CXX_COMPILER="$src/kokkos/bin/nvcc_wrapper"
                              -DCMAKE_PROJECT_INCLUDE="$(cd "$(dirname "$0")/.." && pwd)/cmake/cuda-toolkit-first.cmake")
cmake -S "$src/kokkos-kernels" -B "$build/kokkos-kernels" "${gen[@]}" "${common[@]}" "${kk[@]}" \
      > "$build/kk-configure.log" 2>&1 || { cat "$build/kk-configure.log"; exit 1; }
cmake --build "$build/kokkos-kernels" -j "$jobs" > "$build/kk-build.log" 2>&1 || { tail -50 "$build/kk-build.log"; exit 1; }
cmake --install "$build/kokkos-kernels" > /dev/null
rm -rf "$build/kokkos" "$build/kokkos-kernels"
touch "$prefix/.shwa-$key"
echo "shwa: Kokkos ($backend) ready in $prefix"
