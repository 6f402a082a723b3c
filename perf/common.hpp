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

/// A tile shape "TXxTY" ("32x8"), optionally with the device column kernels' rows a team,
/// "TXxTY/R" ("32x8/128"; Tiling::rows; without it, chosen from the grid's size).
/// "auto": Tiling{}, the execution space's default tile (default_tile, which the Solver puts in).
inline Tiling parse_tile(const std::string& s) {
  if (s == "auto") return Tiling{};
  const auto tr = split(s, '/');
  const auto xy = tr.empty() ? tr : split(tr[0], 'x');
  if (xy.size() != 2 || tr.size() > 3)
    throw std::invalid_argument("tile '" + s + "' is not TXxTY, TXxTY/R or TXxTY/R/C");
  Tiling t{std::stoi(xy[0]), std::stoi(xy[1])};
  if (tr.size() >= 2) t.rows = std::stoi(tr[1]);
  if (tr.size() == 3) t.cfl_rows = std::stoi(tr[2]);
  if (t.tx < 1 || t.ty < 1 || (tr.size() >= 2 && t.rows < 0) || (tr.size() == 3 && t.cfl_rows < 0))
    throw std::invalid_argument("tile '" + s + "' has a zero or negative size");
  return t;
}

}  // namespace shwa::perf
