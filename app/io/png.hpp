#pragma once
// PNG quicklooks of a field: one pixel (or a square of `scale` pixels) per cell, north up, with
// a viridis-like perceptual colour map from vmin (dark blue) to vmax (yellow). NaN cells (dry or
// NODATA; the caller sets them) are transparent or grey. Optionally a legend below the map: colour
// bar, time stamp, scale bar (PngLegend).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/field.hpp"
#include "io/threads.hpp"

namespace shwa::io {

// What a quicklook shows in a white band below the map, in a small built-in bitmap font (digits,
// lower-case letters, ". , - + = ( ) : / < > ?"; any other character is drawn as "?"):
//   line 1: the title, then vmin, a colour bar from vmin to vmax (viridis, left to right), vmax;
//   line 2: the stamp (the time of the frame), then a scale bar: a black bar whose length is a
//           round distance (1, 2 or 5 times a power of ten metres, at most a quarter of the
//           image's width) and its length as text ("10 km", "500 m").
// The text is drawn twice as large on images 800 pixels wide or more. An image narrower than the
// legend needs is widened (transparent to the right of the map).
struct PngLegend {
  std::string title;      // "depth (m)"
  std::string stamp;      // "t = 600 s (0:10:00)"
  double cell_size = 0;   // metres a cell spans along x; 0: no scale bar
  // Room for a stamp of at least this many characters: the frames of a run, whose stamps differ
  // in length, then have one width (an animation's frames share one canvas).
  std::size_t stamp_room = 0;
};

struct PngStyle {
  double vmin = 0, vmax = 1;  // values at the ends of the colour map; others are clamped
  bool nan_transparent = true;  // NaN cells transparent, else opaque grey
  int scale = 1;                // pixels per cell along each axis
  bool legend = false;          // draw legend_text below the map
  PngLegend legend_text;
};

// The scale bar's length in metres for at most `max_metres`: the largest 1, 2 or 5 times a power
// of ten not above it (0 if max_metres is not a positive finite number).
double scale_bar_metres(double max_metres);

// A time stamp: "t = 600 s (0:10:00)", the time in seconds (6 significant digits, so that a run
// of hours shows whole seconds) and, from a minute on, as hours, minutes and seconds.
std::string legend_time(double t);

// The number as the legend writes it: at most 4 significant digits, no trailing zeros
// ("12", "0.05", "3600", "1.235e+05").
std::string legend_number(double v);

// The colour of t in [0, 1] (clamped): linear interpolation between nine samples of
// matplotlib's viridis (van der Walt and Smith, 2015; the table as published in the R package
// viridisLite, viridis(9)).
std::array<std::uint8_t, 3> viridis(double t);

// The width and height in pixels of the image write_png draws of an nx x ny field at `scale`
// pixels a cell with a legend whose title and time stamp take at most `text_chars` characters
// each (for the run's memory estimate: a narrow map is widened to its legend's width).
struct PngSize {
  std::size_t width = 0, height = 0;
};
PngSize png_image_size(std::int64_t nx, std::int64_t ny, int scale, std::size_t text_chars = 40);

// Writes the nx x ny field (index j * nx + i, j = 0 the southern row) atomically, colouring and
// compressing it on `workers` (the file's bytes do not depend on how many). The image is drawn in
// `pixels` (resized), which a caller writing many images keeps: its pages are then not fresh ones
// for the kernel to zero at every image.
void write_png(const std::string& path, int nx, int ny, const FieldRef& field, const PngStyle& style,
               const Workers& workers, std::vector<std::uint8_t>& pixels);
inline void write_png(const std::string& path, int nx, int ny, const FieldRef& field, const PngStyle& style,
                      const Workers& workers = {}) {
  std::vector<std::uint8_t> pixels;
  write_png(path, nx, ny, field, style, workers, pixels);
}

}  // namespace shwa::io
