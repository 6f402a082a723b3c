// libFuzzer harness for the CSV time-series reader: any input must parse or throw InputError,
// and every column of a table that parses must interpolate.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/csv_series.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto table =
        shwa::io::SeriesTable::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    for (const auto& name : table.names()) {
      const auto s = table.column(name);
      s.interpolate(s.times().front() - 1);
      s.interpolate((s.times().front() + s.times().back()) / 2);
    }
  } catch (const shwa::io::InputError&) {
  }
  return 0;
}
