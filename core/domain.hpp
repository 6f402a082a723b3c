// shwa/core/domain.hpp — the whole grid of a run and ranges of its cells, in global indices: the
// geometry that decks, rasters, outputs and the decomposition share. Plain C++ (no Kokkos), so
// that the I/O library uses it too; a block's storage (ghost layers, padded indices) is Grid's
// (grid.hpp), which gives its Domain and Extent.
#pragma once

#include <algorithm>
#include <cmath>

namespace shwa {

/// A uniform Cartesian grid of nx x ny cells of dx x dy, its south-west corner at (x0, y0);
/// cell (i, j), j = 0 the southern row.
struct Domain {
  int nx = 0, ny = 0;
  double dx = 0, dy = 0;
  double x0 = 0, y0 = 0;

  /// Centre of cell (i, j).
  double xc(int i) const { return x0 + (i + 0.5) * dx; }
  double yc(int j) const { return y0 + (j + 0.5) * dy; }
  /// Column and row of the cell holding the point (x, y) of the grid: a cell holds its west and
  /// south edges. A point just inside the east or north side whose quotient rounds up to nx or ny
  /// is in the last cell.
  int column_of(double x) const { return std::min(nx - 1, std::max(0, int(std::floor((x - x0) / dx)))); }
  int row_of(double y) const { return std::min(ny - 1, std::max(0, int(std::floor((y - y0) / dy)))); }
  long long cells() const { return static_cast<long long>(nx) * ny; }
};

/// The cells [i0, i1) x [j0, j1) of a Domain: a rank's block, a piece of an output.
struct Extent {
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;
  int nx() const { return i1 - i0; }
  int ny() const { return j1 - j0; }
};

}  // namespace shwa
