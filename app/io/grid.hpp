#pragma once
// The geometry of a uniform Cartesian grid of cells, shared by rasters and the writers.

namespace shwa::io {

struct Grid {
  int nx = 0, ny = 0;    // cells in x (west to east) and y (south to north)
  double dx = 0, dy = 0; // cell size
  double x0 = 0, y0 = 0; // lower-left (south-west) corner of the grid

  // Centre of cell (i, j); j = 0 is the southern row.
  double xc(int i) const { return x0 + (i + 0.5) * dx; }
  double yc(int j) const { return y0 + (j + 0.5) * dy; }
  long long cells() const { return static_cast<long long>(nx) * ny; }
};

}  // namespace shwa::io
