#!/usr/bin/env bash
# Step 1 of 2 (needs the network, Debian's archive only): get Kokkos and Kokkos Kernels 3.4.01
# from Debian 12's Trilinos 13.2 SOURCE package (the binary package is Serial-only and its CMake
# package is broken), unpack the two sub-trees and apply shwa's patches (scripts/patches/).
#
#   scripts/fetch-kokkos.sh [DEPS_DIR]      DEPS_DIR defaults to $SHWA_DEPS or ~/.cache/shwa
#
# Result: DEPS_DIR/src/kokkos and DEPS_DIR/src/kokkos-kernels, ready for scripts/build-kokkos.sh,
# which needs no network (the GPU machine has none: carry DEPS_DIR/src there).
# The system's apt configuration is not touched: a private sources list adds the deb-src line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
deps=${1:-${SHWA_DEPS:-$HOME/.cache/shwa}}
src=$deps/src
stamp=$src/.shwa-patched-$(find "$here/patches" -name "*.patch" -print0 | sort -z | xargs -0r cat | sha256sum | cut -c1-16)
if [ -f "$stamp" ]; then echo "shwa: Kokkos sources ready in $src"; exit 0; fi

mkdir -p "$deps/download"
tarball=$(ls "$deps"/download/trilinos_13.2.0*.orig.tar.* 2>/dev/null | head -n1 || true)
if [ -z "$tarball" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    > "$tmp/src.sources"
  aptopts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$tmp/parts"
           -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
  mkdir -p "$tmp/parts" "$tmp/cache" && cp "$tmp/src.sources" "$tmp/parts/"
  echo "shwa: downloading Debian's trilinos source package (about 170 MB)"
  apt-get "${aptopts[@]}" -qq update
  (cd "$deps/download" && apt-get "${aptopts[@]}" -qq source --download-only trilinos)
  tarball=$(ls "$deps"/download/trilinos_13.2.0*.orig.tar.* | head -n1)
fi

rm -rf "$src" && mkdir -p "$src"
echo "shwa: unpacking Kokkos and Kokkos Kernels from $(basename "$tarball")"
tar -xf "$tarball" -C "$src" --strip-components=2 --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
for p in "$here"/patches/*.patch; do
  [ -e "$p" ] || continue
  echo "shwa: applying $(basename "$p")"
  patch -d "$src" -p1 --forward --quiet < "$p"
done
touch "$stamp"
echo "shwa: Kokkos sources ready in $src"
