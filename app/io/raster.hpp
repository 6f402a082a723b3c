#pragma once
// Rasters on a uniform grid and the ESRI ASCII grid format (.asc) used by GIS tools.
//
// The ESRI header gives ncols, nrows, xllcorner or xllcenter, yllcorner or yllcenter, cellsize
// (or dx and dy) and optionally NODATA_value (keys in any case and order); the values follow,
// rows from north to south, separated by blanks. Each row starts on a new line and holds ncols
// values (a long row may go on over the next lines, never into the next row's line), so rows of
// the wrong length and a truncated file are errors naming the line. A UTF-8 byte order mark
// before the header is skipped.
//
// NODATA: a cell equal to NODATA_value is returned as NaN. A NaN or infinite value in the file
// itself is an error, so after reading, std::isnan(v[k]) means exactly "NODATA" (shwa treats it
// as land / a wall). The writer writes NaN cells as NODATA_value.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.hpp"
#include "io/threads.hpp"
#include "domain.hpp"

namespace shwa::io {

struct Raster : Domain {
  // Row-major, index j * nx + i, j = 0 the southern row: cell (i, j) is centred at
  // (x0 + (i + 0.5) dx, y0 + (j + 0.5) dy).
  std::vector<double> v;

  double& at(int i, int j) { return v[index(i, j)]; }
  double at(int i, int j) const { return v[index(i, j)]; }
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + static_cast<std::size_t>(i);
  }
};

// Reads an .asc file. Throws InputError naming the file and, where it applies, the line:
// unreadable file, malformed header, a row of the wrong length, a file that ends early or goes on
// after the last row, non-numeric or non-finite values (the first in the file's order). The
// values are read by `workers` at once, each taking pieces of whole lines.
Raster read_esri_ascii(const std::string& path, const Workers& workers = {});
// The grid of an .asc file from its header alone, without reading its values (to size a run
// before allocating it). Throws the InputError that read_esri_ascii gives for a bad header.
Domain read_esri_ascii_grid(const std::string& path);
// The same from text in memory; `name` stands for the file name in messages. The body is cut into
// pieces of about `piece_bytes` (whole lines; at most 64 a worker).
Raster parse_esri_ascii(std::string_view text, const std::string& name, const Workers& workers = {},
                        std::size_t piece_bytes = std::size_t(1) << 20);

// Writes an .asc file atomically, values in shortest round-trip form (reading it back gives the
// same doubles). NaN cells are written as NODATA_value, -9999 unless a real value equals it.
// `values` holds grid.nx * grid.ny doubles in Raster's order. `workers` format bands of whole
// rows at once, each band at most `band_bytes` of text or one row, and the bands are written in
// order: the file is the same byte for byte whatever the workers and the band size.
inline constexpr std::size_t kAscBandBytes = std::size_t(1) << 22;
void write_esri_ascii(const std::string& path, const Domain& grid, const double* values, const Workers& workers = {},
                      std::size_t band_bytes = kAscBandBytes);
void write_esri_ascii(const std::string& path, const Raster& r);
// How write_esri_ascii shares out an nx x ny grid's rows: rounds of `bands` bands (at most one a
// worker), each of `rows` rows, as many as fit in band_bytes of text (at least one) and no more
// than an equal share of the grid, so that a small grid's rows are shared too.
struct AscBands {
  long rows = 1, bands = 1;
};
AscBands esri_ascii_bands(std::int64_t nx, std::int64_t ny, int workers, std::size_t band_bytes = kAscBandBytes);
// The most text write_esri_ascii holds at once for an nx x ny grid and `workers` workers, with the
// default band size (for the run's memory estimate): a round's bands, each reserved at its rows'
// longest text.
std::uint64_t esri_ascii_text_bytes(std::int64_t nx, std::int64_t ny, int workers);

// The grid's coordinate reference system, as GIS tools keep it beside an .asc: a ".prj" file of
// the same name holding the system as WKT text (ESRI's or OGC's, e.g. PROJCS["WGS 84 / UTM zone
// 31N", ...]). shwa does not interpret it; it checks that it is WKT and copies it to its outputs.
//
// The .prj beside a raster: `dir/bathy.asc` -> `dir/bathy.prj` (the last extension replaced).
std::string projection_path(const std::string& raster_path);
// Reads a .prj: its bytes as they are. Throws InputError naming the file unless it holds WKT: an
// unreadable or empty file, one over 64 KiB, one with control characters other than line ends
// and tabs (a binary file), or one whose text does not start with a WKT keyword and "[" or "(".
std::string read_projection(const std::string& path);
// The name a WKT gives its system (the first quoted text: "WGS 84 / UTM zone 31N"), or "".
std::string projection_name(const std::string& wkt);
// Whether a WKT (as read_projection accepts) is a geographic system, in degrees of longitude and
// latitude (its first keyword GEOGCS, GEOGCRS, GEODCRS, GEOGRAPHICCRS or GEODETICCRS).
bool projection_is_geographic(const std::string& wkt);
// Writes `wkt` to projection_path(raster_path), atomically.
void write_projection(const std::string& raster_path, const std::string& wkt);

// Throws InputError unless a and b have the same cells: "grid mismatch: bathy.asc has 100 x 80
// cells, manning.asc has 100 x 81". Spacings must agree to 1e-6 relative, corners to 1e-3 cells.
void check_same_grid(const Domain& a, const Domain& b, const std::string& name_a, const std::string& name_b);

}  // namespace shwa::io
