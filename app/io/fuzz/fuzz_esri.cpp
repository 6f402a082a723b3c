// libFuzzer harness for the ESRI ASCII grid reader: any input must parse or throw InputError, a
// grid that parses must hold exactly ncols * nrows values, and the input cut into pieces of a
// few bytes read by three workers must give the same values bit for bit, or the same error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "io/raster.hpp"

namespace {
std::string outcome(std::string_view text, const shwa::io::Workers& workers, std::size_t piece_bytes) {
  try {
    const shwa::io::Raster r = shwa::io::parse_esri_ascii(text, "fuzz.asc", workers, piece_bytes);
    if (r.v.size() != r.index(0, r.ny)) __builtin_trap();
    std::string bytes(r.v.size() * sizeof(double), '\0');
    if (!r.v.empty()) std::memcpy(bytes.data(), r.v.data(), bytes.size());
    return "values " + bytes;
  } catch (const shwa::io::InputError& e) {
    return std::string("error ") + e.what();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (outcome(text, {}, std::size_t(1) << 20) != outcome(text, {3, nullptr}, 1 + size % 7)) __builtin_trap();
  return 0;
}
