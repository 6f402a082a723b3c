// libFuzzer harness for the ESRI ASCII grid reader: any input must parse or throw InputError,
// and a grid that parses must hold exactly ncols * nrows values.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/raster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const shwa::io::Raster r =
        shwa::io::parse_esri_ascii(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.asc");
    if (r.v.size() != r.index(0, r.ny)) __builtin_trap();
  } catch (const shwa::io::InputError&) {
  }
  return 0;
}
