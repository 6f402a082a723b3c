#!/usr/bin/env bash
# Fuzzes the input parsers (deck TOML, ESRI ASCII grid, CSV time series) with libFuzzer under
# AddressSanitizer and UBSan, for a bounded time each. Exits non-zero if any target crashes,
# leaks, hits undefined behaviour or times out; the input that did it is left in the build folder.
#
#   scripts/fuzz-parsers.sh [SECONDS_PER_TARGET]     (default 30)
#
# Environment: SHWA_FUZZ_DIR (build folder, default build-fuzz), CLANGXX (compiler).
# Needs clang with libFuzzer: Debian's clang and libclang-rt-14-dev, installed here when missing
# and apt-get can run.
set -euo pipefail

seconds="${1:-30}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${SHWA_FUZZ_DIR:-$root/build-fuzz}"

find_clang() {
  for c in "${CLANGXX:-}" clang++-14 clang++; do
    if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1; then echo "$c"; return; fi
  done
}
# libFuzzer ships with clang's runtime libraries: try linking a trivial fuzzer.
has_libfuzzer() {
  local probe="$out/probe"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe.cpp"
  "$1" -fsanitize=fuzzer "$probe.cpp" -o "$probe" >/dev/null 2>&1
}

mkdir -p "$out"
cxx="$(find_clang)"
if [ -z "$cxx" ] || ! has_libfuzzer "$cxx"; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "fuzz-parsers: installing clang and libclang-rt-14-dev"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev
  cxx="$(find_clang)"
  has_libfuzzer "$cxx" || { echo "fuzz-parsers: $cxx cannot link libFuzzer" >&2; exit 2; }
fi

flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -I"$root/app" -I"$root/core")
sources=(text deck raster csv_series atomic_file)

echo "fuzz-parsers: building with $cxx in $out"
objects=()
for s in "${sources[@]}"; do
  "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$root/app/io/$s.cpp" -o "$out/$s.o"
  objects+=("$out/$s.o")
done

# Seeds: the test data of the matching kind. Dictionaries: the tokens each format is made of.
printf '%s\n' '"="' '"["' '"]"' '"[["' '"]]"' '"{"' '"}"' '"\""' '"\"\"\""' "\"'''\"" '"#"' '"."' '","' \
  '"true"' '"false"' '"inf"' '"nan"' '"1e3"' '"0x1F"' '"1979-05-27T07:32:00Z"' '"\\u00e9"' > "$out/deck.dict"
printf '%s\n' '"ncols"' '"nrows"' '"xllcorner"' '"xllcenter"' '"yllcorner"' '"yllcenter"' '"cellsize"' \
  '"dx"' '"dy"' '"NODATA_value"' '"-9999"' '"nan"' '"1e999"' '"\x0d\x0a"' > "$out/esri.dict"
printf '%s\n' '"time"' '","' '"#"' '"\x0a"' '"nan"' '"1e-300"' '"-0"' > "$out/csv.dict"

declare -A pattern=([deck]='*.toml' [esri]='*.asc' [csv]='*.csv')
failed=()
for target in deck esri csv; do
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$root/app/io/fuzz/fuzz_$target.cpp" "${objects[@]}" -o "$out/fuzz_$target"
  corpus="$out/corpus_$target"
  mkdir -p "$corpus"
  find "$root/tests/io/data" -name "${pattern[$target]}" -exec cp {} "$corpus/" \;
  echo "fuzz-parsers: $target for ${seconds}s"
  if ! "$out/fuzz_$target" "$corpus" -dict="$out/$target.dict" -max_total_time="$seconds" -max_len=4096 \
       -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/${target}-" \
       > "$out/$target.log" 2>&1; then
    failed+=("$target")
    tail -n 40 "$out/$target.log" >&2
  else
    grep -E '^stat::number_of_executed_units' "$out/$target.log" || true
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-parsers: FAILED: ${failed[*]} (logs and crashing inputs in $out)" >&2
  exit 1
fi
echo "fuzz-parsers: no crash in ${seconds}s per target"
