// shwa/perf/common.hpp — small helpers the benchmark programs share.
#pragma once

#include "kernels.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace shwa::perf {

/// The non-empty fields of s between separators: "32x8,7x5" by ',' gives {"32x8", "7x5"}.
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// A tile shape "TXxTY" ("32x8").
inline Tiling parse_tile(const std::string& s) {
  const auto xy = split(s, 'x');
  if (xy.size() != 2) throw std::invalid_argument("tile '" + s + "' is not TXxTY");
  return Tiling{std::stoi(xy[0]), std::stoi(xy[1])};
}

}  // namespace shwa::perf
