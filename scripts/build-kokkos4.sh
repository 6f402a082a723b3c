#!/usr/bin/env bash
# Build and install Kokkos and Kokkos Kernels 4.x (OpenMP + Serial, Release) to check shwa against
# a newer Kokkos than the 3.4.01 that scripts/build-kokkos.sh builds for CI. Same options as there;
# the sources are build inputs only, cloned outside the repository.
#
#   scripts/build-kokkos4.sh [VARIANT] [DEPS_DIR]
#     VARIANT  openmp        Kokkos' defaults (code deprecated in 4 still there, with warnings)
#              openmp-nodep  Kokkos_ENABLE_DEPRECATED_CODE_4=OFF: without what Kokkos 5 removes
#     DEPS_DIR defaults to $SHWA_DEPS4 or ~/.cache/shwa-k4; installs into K=DEPS_DIR/install/VARIANT:
#              cmake --preset openmp -B build/k4 -DKokkos_ROOT=$K -DKokkosKernels_ROOT=$K
#   KOKKOS4_VERSION (4.6.01), KOKKOS4_KERNELS_VERSION (same): the git tags to build;
#   KOKKOS4_GIT, KOKKOS4_KERNELS_GIT: where to clone them from (default: GitHub; a local mirror works).
set -euo pipefail
# shellcheck source=scripts/kokkos-kernels-options.sh
source "$(dirname "$0")/kokkos-kernels-options.sh"
variant=${1:-openmp}
deps=${2:-${SHWA_DEPS4:-$HOME/.cache/shwa-k4}}
ver=${KOKKOS4_VERSION:-4.6.01}
kver=${KOKKOS4_KERNELS_VERSION:-$ver}
jobs=${SHWA_JOBS:-$(nproc)}
case $variant in
  openmp)       extra=() ;;
  openmp-nodep) extra=(-DKokkos_ENABLE_DEPRECATED_CODE_4=OFF) ;;
  *) echo "shwa: unknown variant '$variant' (openmp, openmp-nodep)" >&2; exit 2 ;;
esac
src=$deps/src; prefix=$deps/install/$variant; build=$deps/build/$variant
key="kokkos-$ver kernels-$kver ${extra[*]+${extra[*]}} ${kokkos_kernels_options[*]}"
if [ "$(cat "$prefix/.shwa-stamp" 2>/dev/null)" = "$key" ]; then echo "shwa: Kokkos $ver ($variant) ready in $prefix"; exit 0; fi

for pair in "kokkos $ver ${KOKKOS4_GIT:-https://github.com/kokkos/kokkos.git}" \
            "kokkos-kernels $kver ${KOKKOS4_KERNELS_GIT:-https://github.com/kokkos/kokkos-kernels.git}"; do
  read -r name tag url <<< "$pair"
  if [ "$(cat "$src/$name-$tag/.shwa-tag" 2>/dev/null)" != "$tag" ]; then
    rm -rf "$src/$name-$tag"; mkdir -p "$src"
    git -c advice.detachedHead=false clone -q --depth 1 --branch "$tag" "$url" "$src/$name-$tag"
    echo "$tag" > "$src/$name-$tag/.shwa-tag"
  fi
done

common=(-DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=Release)
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
rm -rf "$build" "$prefix"; mkdir -p "$build"
echo "shwa: building Kokkos $ver ($variant) with $jobs jobs"
cmake -S "$src/kokkos-$ver" -B "$build/kokkos" "${gen[@]}" "${common[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" \
      -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
      ${extra[@]+"${extra[@]}"} > "$build/kokkos-configure.log" 2>&1 || { cat "$build/kokkos-configure.log"; exit 1; }
cmake --build "$build/kokkos" -j "$jobs" > "$build/kokkos-build.log" 2>&1 || { tail -50 "$build/kokkos-build.log"; exit 1; }
cmake --install "$build/kokkos" > /dev/null

echo "shwa: building Kokkos Kernels $kver ($variant), explicit instantiation off"
kk=(-DKokkos_ROOT="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" "${kokkos_kernels_options[@]}")
cmake -S "$src/kokkos-kernels-$kver" -B "$build/kokkos-kernels" "${gen[@]}" "${common[@]}" "${kk[@]}" \
      > "$build/kk-configure.log" 2>&1 || { cat "$build/kk-configure.log"; exit 1; }
cmake --build "$build/kokkos-kernels" -j "$jobs" > "$build/kk-build.log" 2>&1 || { tail -50 "$build/kk-build.log"; exit 1; }
cmake --install "$build/kokkos-kernels" > /dev/null
rm -rf "$build/kokkos" "$build/kokkos-kernels"
echo "$key" > "$prefix/.shwa-stamp"
echo "shwa: Kokkos $ver ($variant) ready in $prefix"
