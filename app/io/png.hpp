#pragma once
// PNG quicklooks of a field: one pixel (or a square of `scale` pixels) per cell, north up, with
// a viridis-like perceptual colour map from vmin (dark blue) to vmax (yellow). NaN cells (dry or
// NODATA; the caller sets them) are transparent or grey.

#include <array>
#include <cstdint>
#include <string>

#include "io/field.hpp"

namespace shwa::io {

struct PngStyle {
  double vmin = 0, vmax = 1;  // values at the ends of the colour map; others are clamped
  bool nan_transparent = true;  // NaN cells transparent, else opaque grey
  int scale = 1;                // pixels per cell along each axis
};

// The colour of t in [0, 1] (clamped): linear interpolation between nine samples of
// matplotlib's viridis (van der Walt and Smith, 2015; the table as published in the R package
// viridisLite, viridis(9)).
std::array<std::uint8_t, 3> viridis(double t);

// Writes the nx x ny field (index j * nx + i, j = 0 the southern row) atomically.
void write_png(const std::string& path, int nx, int ny, const FieldRef& field, const PngStyle& style);

}  // namespace shwa::io
