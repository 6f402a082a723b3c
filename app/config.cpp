// shwa/app/config.cpp — the deck schema: every key shwa reads, its default and its range.
// inputs/README.md documents the same schema for users; keep the two in step.
#include "config.hpp"

#include "affinity.hpp"
#include "outputs.hpp"
#include "problems.hpp"

#include "kernels.hpp"

#include "io/csv_series.hpp"
#include "io/raster.hpp"
#include "io/text.hpp"
#include "io/threads.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <utility>
#include <vector>

namespace shwa::app {

namespace fs = std::filesystem;
using io::Deck;
using io::InputError;
using io::Range;
using io::require_in;
using io::require_nonnegative;
using io::require_positive;

namespace {

const char* const kSides[kNumSides] = {"west", "east", "south", "north"};

std::string fmt(double x) { return io::format_double(x); }

/// The deck's [grid]; where `raster` is given (the bathymetry raster's header), the keys the deck
/// leaves out are the raster's, and the deck need set none. Its keys are declared first, so that a
/// missing grid.nx is not blamed on grid.dx (Deck's typo hint) and a raster deck's typo of one gets
/// a suggestion.
Domain read_grid(Deck& d, const Domain* raster = nullptr) {
  for (const char* k : {"grid.nx", "grid.ny", "grid.dx", "grid.dy", "grid.x0", "grid.y0"}) d.declare(k);
  const auto given = [&](const char* key) { return !raster || d.has(key); };
  Domain g = raster ? *raster : Domain{};
  if (given("grid.nx")) g.nx = d.get_int("grid.nx", require_in(1, 1 << 20));
  if (given("grid.ny")) g.ny = d.get_int("grid.ny", require_in(1, 1 << 20));
  const Range spacing = require_in(kMinSpacing, kMaxSpacing);
  if (given("grid.dx")) g.dx = d.get_double("grid.dx", spacing);
  // dy is dx where the deck does not set it (the raster's where the deck sets neither).
  if (given("grid.dy"))
    g.dy = d.get_double("grid.dy", g.dx, spacing);
  else if (d.has("grid.dx"))
    g.dy = g.dx;
  // A raster's cell size where the deck sets none: the same range.
  for (const double h : {g.dx, g.dy})
    if (!spacing.contains(h))
      throw d.error("initial.bathymetry", "cell size " + fmt(h) + " m is out of range: must be " + spacing.describe());
  if (given("grid.x0")) g.x0 = d.get_double("grid.x0", 0.0);
  if (given("grid.y0")) g.y0 = d.get_double("grid.y0", 0.0);
  if (g.cells() > (std::int64_t(1) << 31))
    throw d.error(raster && !d.has("grid.ny") ? "initial.bathymetry" : "grid.ny", "more than 2^31 cells");
  return g;
}

/// The raster a deck key names; an error in the file is reported with the key that named it.
io::Raster load_raster(Deck& d, const std::string& key) {
  const std::string path = d.get_path(key);
  try {
    return io::read_esri_ascii(path, io::Workers{process_cpu_count(), use_process_cpus});
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the file of " + key + ", " + d.where(key) + ")");
  }
}

/// A raster that must cover the deck's grid cell for cell.
io::Raster load_matching_raster(Deck& d, const std::string& key, const Domain& grid,
                                const std::string& grid_source) {
  io::Raster r = load_raster(d, key);
  try {
    io::check_same_grid(grid, r, grid_source, d.get_path(key));
  } catch (const InputError& e) {
    throw d.error(key, e.what());
  }
  return r;
}

/// Where value k of a grid `nx` cells wide lies (row by row from the south): " in cell (i, j)
/// counted from the south-west corner".
std::string in_cell(std::size_t k, int nx) {
  return " in cell (" + std::to_string(k % std::size_t(nx)) + ", " + std::to_string(k / std::size_t(nx)) +
         ") counted from the south-west corner";
}

/// "FILE:LINE" of a series' row k (FILE alone where the series kept no lines).
std::string row_at(const io::TimeSeries& ts, const std::string& file, std::size_t k) {
  return file + (ts.lines().empty() ? "" : ":" + std::to_string(ts.lines()[k]));
}

/// Refuses a series value below zero where the constant form of `key` must be >= 0 (a discharge,
/// a concentration): names the file and the row's line, its time and value, the key and where it is
/// set.
void check_nonnegative_series(const io::TimeSeries& ts, const std::string& file, const std::string& what,
                              const std::string& key, const std::string& where) {
  for (std::size_t k = 0; k < ts.values().size(); ++k)
    if (ts.values()[k] < 0)
      throw InputError(row_at(ts, file, k) + ": negative " +
                       what + " " + fmt(ts.values()[k]) + " at t = " + fmt(ts.times()[k]) +
                       " s; a " + what + " is >= 0 (" + key + ", " + where + ")");
}

/// Refuses a series value beyond `most` in magnitude (a stage or a discharge beyond the plausible,
/// kMaxStage, kMaxDischarge), as check_nonnegative_series names it.
void check_series_magnitude(const io::TimeSeries& ts, const std::string& file, const std::string& what,
                            double most, const std::string& unit, const std::string& key,
                            const std::string& where) {
  for (std::size_t k = 0; k < ts.values().size(); ++k)
    if (std::fabs(ts.values()[k]) > most)
      throw InputError(row_at(ts, file, k) + ": " + what + " " +
                       fmt(ts.values()[k]) + " at t = " + fmt(ts.times()[k]) + " s is not plausible: at most " +
                       fmt(most) + " " + unit + " in magnitude (" + key + ", " + where + ")");
}

/// Refuses a series that does not cover the run, t = 0 to `t_end`: beyond its first and last
/// samples a series holds their values, which would silently stand in for missing data.
void check_series_covers_run(const io::TimeSeries& ts, const std::string& file, double t_end, const std::string& key,
                             const std::string& where) {
  const double first = ts.times().front(), last = ts.times().back();
  const std::string at = " (" + key + ", " + where + ")";
  if (first > 0)
    throw InputError(file + ": the series starts at t = " + fmt(first) +
                     " s, after the run's start at t = 0; give a value at t = 0 or before" + at);
  if (last < t_end)
    throw InputError(file + ": the series ends at t = " + fmt(last) + " s, before time.end = " + fmt(t_end) +
                     " s; give values up to the run's end" + at);
}

/// Reads "boundary.SIDE[.segments.NAME]" (`p`): a constant `value` or a CSV `series` + `column`
/// covering the run to `t_end`.
Series read_series(Deck& d, const std::string& p, const std::string& what, double t_end) {
  d.declare(p + ".value");
  d.declare(p + ".series");
  d.declare(p + ".column");
  if (!d.has(p + ".series")) {
    if (!d.has(p + ".value"))
      throw d.error(p + ".type", "a " + what + " boundary needs " + p + ".value or " + p + ".series");
    return Series(d.get_double(p + ".value", what == "discharge" ? require_in(0, kMaxDischarge)
                                                                  : require_in(-kMaxStage, kMaxStage)));
  }
  const std::string file = d.get_path(p + ".series");
  const std::string column = d.get_string(p + ".column", "");
  io::TimeSeries ts = [&] {
    try {
      return io::read_time_series(file, column);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (" + p + ".series, " + d.where(p + ".series") + ")");
    }
  }();
  if (what == "discharge") {
    check_nonnegative_series(ts, file, what, p + ".series", d.where(p + ".series"));
    check_series_magnitude(ts, file, what, kMaxDischarge, "m^3/s", p + ".series", d.where(p + ".series"));
  } else {
    check_series_magnitude(ts, file, what, kMaxStage, "m", p + ".series", d.where(p + ".series"));
  }
  check_series_covers_run(ts, file, t_end, p + ".series", d.where(p + ".series"));
  return Series(ts.times(), ts.values());
}

/// The inflow concentration `key` of a discharge boundary "boundary.SIDE[.segments.NAME]" (`p`):
/// a number, or the column `column_key` names in the boundary's CSV file (whose times
/// read_series checked).
Series read_concentration(Deck& d, const std::string& p, const std::string& key, const std::string& column_key) {
  d.declare(key);
  d.declare(column_key);
  if (d.has(column_key)) {
    if (!d.has(p + ".series")) throw d.error(column_key, "needs " + p + ".series, the file of the column");
    const std::string file = d.get_path(p + ".series");
    const std::string where = d.where(column_key);
    io::TimeSeries ts = [&] {
      try {
        return io::read_time_series(file, d.get_string(column_key));
      } catch (const InputError& e) {
        throw InputError(std::string(e.what()) + " (" + column_key + ", " + where + ")");
      }
    }();
    check_nonnegative_series(ts, file, "concentration", column_key, where);
    return Series(ts.times(), ts.values());
  }
  return Series(d.get_double(key, 0.0, require_nonnegative()));
}

/// The inflow concentration of each pollutant at a discharge boundary `p`: `concentration` (a
/// number) or `concentration_column` for the unnamed pollutant; `concentration.NAME` or
/// `concentration_column.NAME` for the named ones (0 where not given). A name that is no
/// pollutant of the run is refused.
std::vector<Series> read_concentrations(Deck& d, const std::string& p, const std::vector<std::string>& pollutants) {
  if (pollutants.size() == 1 && pollutants[0].empty())
    return {read_concentration(d, p, p + ".concentration", p + ".concentration_column")};
  for (const char* table : {".concentration", ".concentration_column"})
    for (const std::string& name : d.children(p + table))
      if (std::find(pollutants.begin(), pollutants.end(), name) == pollutants.end()) {
        const std::string close = io::closest_match(name, pollutants);
        throw d.error(p + table + "." + name, "no pollutant " + io::quote(name) + "; the run's pollutants are " +
                                                  io::join(pollutants) +
                                                  (close.empty() ? "" : "; did you mean '" + close + "'?"));
      }
  for (const char* table : {".concentration", ".concentration_column"})
    if (d.has(p + table))
      throw d.error(p + table, "the run names its pollutants ([pollutants.NAME]): give " + p + table +
                                   ".NAME, one a pollutant");
  std::vector<Series> out;
  for (const std::string& name : pollutants)
    out.push_back(read_concentration(d, p, p + ".concentration." + name, p + ".concentration_column." + name));
  return out;
}

}  // namespace

const std::vector<BoundaryTypeInfo>& boundary_types() {
  static const std::vector<BoundaryTypeInfo> table = {
      {"wall", BcType::Wall,
       "a wall (the default): the interior mirrored, the normal discharge reversed; the bottom mirrored too",
       nullptr},
      {"open", BcType::Open, "zero gradient: the first interior cells copied outwards", nullptr},
      {"stage", BcType::Stage,
       "a free-surface level eta [m] (value or series): depth max(0, eta + H), the interior's velocity and "
       "concentration",
       [](Deck& d, const std::string& p, const std::vector<std::string>&, double t_end, BcSegment& seg) {
         seg.stage = read_series(d, p, "stage", t_end);
       }},
      {"discharge", BcType::Discharge,
       "an inflow [m^3/s] (value or series) spread evenly over the side or segment, of a concentration; the "
       "interior's depth, at least the critical depth",
       [](Deck& d, const std::string& p, const std::vector<std::string>& pollutants, double t_end, BcSegment& seg) {
         seg.discharge = read_series(d, p, "discharge", t_end);
         seg.concentration = read_concentrations(d, p, pollutants);
       }},
  };
  return table;
}

const BoundaryTypeInfo& boundary_type(BcType type) {
  for (const BoundaryTypeInfo& b : boundary_types())
    if (b.type == type) return b;
  throw std::logic_error("boundary type " + std::to_string(int(type)) + " has no entry in boundary_types()");
}

DecimalMultiples::DecimalMultiples(double interval) : interval_(interval) {
  // The decimal fraction of the fewest digits whose double is the interval.
  for (int d = 0; d <= 15 && num_ == 0; ++d) {
    const double den = std::pow(10.0, d), num = std::round(interval * den);
    if (num > 0 && num < 1e7 && num / den == interval) num_ = (long long)num, den_ = den;
  }
  if (num_ > 0) max_k_ = (1LL << 53) / num_;
}

long long DecimalMultiples::first_after(double t) const {
  // floor(t / interval) is the answer or off by one either way (the division rounds).
  long long k = (long long)std::floor(t / interval_);
  while ((*this)(k) <= t) ++k;
  while (k > 0 && (*this)(k - 1) > t) --k;
  return k;
}

double DecimalMultiples::next_after(double t) const {
  return t / interval_ < 1e15 ? (*this)(first_after(t)) : (std::floor(t / interval_) + 1) * interval_;
}

namespace {

/// The boundary type `key` names; wall where it is not set.
const BoundaryTypeInfo& read_bc_type(Deck& d, const std::string& key) {
  std::vector<std::string> names;
  for (const BoundaryTypeInfo& b : boundary_types()) names.push_back(b.name);
  const std::string t = d.get_choice(key, boundary_type(BcType::Wall).name, names);
  return *std::find_if(boundary_types().begin(), boundary_types().end(),
                       [&](const BoundaryTypeInfo& b) { return b.name == t; });
}

/// The keys of the boundary types other than `type` at the side or segment `p`, which a deck sets
/// by mistake where it forgets p.type (a wall by default): named as such when they are not read.
/// Where the type comes from is said too: a --set that changes a deck's type leaves the deck's
/// keys of the old type behind, and the error is at their line.
void declare_other_types(Deck& d, const std::string& p, const BoundaryTypeInfo& type) {
  const std::string from = d.where(p + ".type");
  const std::string is = " (" + p + ".type is " + io::quote(type.name) +
                         (from == "default" ? ", the default" : from.empty() ? "" : ", " + from) + ")";
  if (!type.read_values)
    for (const char* k : {".value", ".series", ".column"})
      d.declare_unused(p + k, "used only with " + p + ".type = \"stage\" or \"discharge\"" + is);
  if (type.type != BcType::Discharge)
    for (const char* k : {".concentration", ".concentration_column"})
      d.declare_unused(p + k, "used only with " + p + ".type = \"discharge\"" + is);
}

/// Boundary conditions of a run to `t_end`. Segments are given in metres along the side (x for
/// south and north, y for west and east): a segment holds the cells whose centres lie in
/// [begin, end).
Boundaries read_boundaries(Deck& d, const Domain& g, const std::vector<std::string>& pollutants, double t_end) {
  Boundaries bc;
  for (const std::string& child : d.children("boundary"))
    if (std::find(std::begin(kSides), std::end(kSides), child) == std::end(kSides)) {
      const std::string close = io::closest_match(child, {kSides, kSides + kNumSides});
      throw d.error("boundary." + child, "unknown side" + (close.empty() ? std::string("; sides are west, east, south, north")
                                                                          : "; did you mean '" + close + "'?"));
    }
  for (int s = 0; s < kNumSides; ++s) {
    const std::string p = std::string("boundary.") + kSides[s];
    const Side side = Side(s);
    const bool xside = side == West || side == East;
    const int len = xside ? g.ny : g.nx;
    const double origin = xside ? g.y0 : g.x0, cell = xside ? g.dy : g.dx;
    const BoundaryTypeInfo& type = read_bc_type(d, p + ".type");
    declare_other_types(d, p, type);
    if (!type.read_values) {
      bc.side_default[s] = type.type;
    } else {  // a type with values over the whole side: one segment of its full length
      bc.side_default[s] = BcType::Wall;
      BcSegment seg;
      seg.side = side;
      seg.type = type.type;
      type.read_values(d, p, pollutants, t_end, seg);
      bc.segments.push_back(seg);
    }
    for (const std::string& name : d.children(p + ".segments")) {
      const std::string q = p + ".segments." + name;
      BcSegment seg;
      seg.side = side;
      const BoundaryTypeInfo& seg_type = read_bc_type(d, q + ".type");
      declare_other_types(d, q, seg_type);
      seg.type = seg_type.type;
      const double lo = origin, hi = origin + len * cell;
      const double begin = d.get_double(q + ".begin", require_in(lo, hi));
      const double end = d.get_double(q + ".end", require_in(lo, hi));
      // Cells whose centre origin + (k + 0.5) cell lies in [begin, end).
      seg.begin = std::clamp(int(std::ceil((begin - origin) / cell - 0.5)), 0, len);
      seg.end = std::clamp(int(std::ceil((end - origin) / cell - 0.5)), 0, len);
      if (seg.end <= seg.begin)
        throw d.error(q + ".end", "the segment [" + fmt(begin) + ", " + fmt(end) +
                                      ") m holds no cell centre (cells are " + fmt(cell) + " m)");
      if (seg_type.read_values) seg_type.read_values(d, q, pollutants, t_end, seg);
      bc.segments.push_back(seg);
    }
  }
  return bc;
}

/// The most output times a run may have.
constexpr double kMaxOutputs = 100000;

/// The error for `key` and `other`, which exclude each other, both set: at `key`, naming where
/// `other` is set, so that a --set that clashes with the deck names both places.
InputError not_both(const Deck& d, const std::string& key, const std::string& other) {
  return d.error(key, "set " + key + " or " + other + " (" + d.where(other) + "), not both");
}

/// Output times: the start, then every `output_interval` or the listed `output_times`, and the end.
std::vector<double> read_output_times(Deck& d, double t_end) {
  d.declare("time.output_interval");
  d.declare("time.output_times");
  std::vector<double> t{0.0};
  if (d.has("time.output_times")) {
    if (d.has("time.output_interval"))
      throw not_both(d, "time.output_times", "time.output_interval");
    std::vector<double> listed = d.get_double_list("time.output_times", require_in(0, t_end, Range::Ends::open_closed));
    if (listed.size() > kMaxOutputs)
      throw d.error("time.output_times", std::to_string(listed.size()) + " output times; at most " +
                                             std::to_string(long(kMaxOutputs)));
    for (std::size_t k = 1; k < listed.size(); ++k)
      if (!(listed[k] > listed[k - 1])) throw d.error("time.output_times", "times must increase");
    t.insert(t.end(), listed.begin(), listed.end());
  } else {
    const double every = d.get_double("time.output_interval", t_end, require_positive());
    // The count first: a tiny interval would otherwise build a list of billions of times.
    const double count = std::ceil(t_end / every);
    if (!(count <= kMaxOutputs))
      throw d.error("time.output_interval", fmt(every) + " s up to time.end = " + fmt(t_end) + " s makes " +
                                                fmt(count) + " output times; at most " +
                                                std::to_string(long(kMaxOutputs)) + " (a larger interval)");
    // Each a multiple of its own, not a running sum, so that the times carry no accumulated
    // round-off.
    const DecimalMultiples multiple(every);
    for (long k = 1; multiple(k) < t_end * (1 - 1e-12); ++k) t.push_back(multiple(k));
  }
  if (t.back() < t_end) t.push_back(t_end);
  return t;
}

std::vector<io::GaugePoint> read_gauges(Deck& d, const Domain& g) {
  std::vector<io::GaugePoint> gauges;
  for (const std::string& name : d.children("gauges")) {
    io::GaugePoint p;
    p.name = name;
    // The rule io::GaugeWriter applies when it writes gauges.csv, checked before any file is.
    const bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
    if (!valid)
      throw d.error("gauges." + name + ".x", "gauge name " + io::quote(name) +
                                                 ": use letters, digits, '_', '-' and '.' only (it names CSV columns)");
    p.x = d.get_double("gauges." + name + ".x", require_in(g.x0, g.x0 + g.nx * g.dx, Range::Ends::closed_open));
    p.y = d.get_double("gauges." + name + ".y", require_in(g.y0, g.y0 + g.ny * g.dy, Range::Ends::closed_open));
    gauges.push_back(p);
  }
  return gauges;
}

/// output.projection: a .prj (WKT) naming the grid's coordinate system; by default the .prj beside
/// the bathymetry raster where there is one (bathy.prj for bathy.asc), as GIS tools pair them.
void read_projection(Deck& d, OutputConfig& o) {
  const std::string key = "output.projection";
  std::string beside;
  if (d.has("initial.bathymetry")) {
    const std::string bathy = d.get_path("initial.bathymetry"), prj = io::projection_path(bathy);
    std::error_code ec;
    // Absolute, as the resolved deck gives the paths set in a deck, so that it reads the same file.
    if (fs::is_regular_file(bathy, ec) && fs::exists(prj, ec)) beside = fs::absolute(prj, ec).string();
  }
  o.projection_file = d.get_path(key, beside);
  if (o.projection_file.empty()) return;
  try {
    o.projection = io::read_projection(o.projection_file);
    // shwa's cells are metres: a raster in degrees would make cells of a few millimetres.
    if (io::projection_is_geographic(o.projection))
      throw InputError(o.projection_file + ": the grid's coordinate system " + io::quote(io::projection_name(o.projection)) +
                       " is geographic (degrees of longitude and latitude), but shwa's cell sizes are metres: "
                       "reproject the rasters to a projected system (UTM, for example) first");
  } catch (const InputError& e) {
    if (d.has(key)) throw d.error(key, e.what());
    throw d.error("initial.bathymetry", std::string(e.what()) +
                                            " (the .prj beside the bathymetry, the default of output.projection; "
                                            "output.projection = \"\" leaves it out)");
  }
}

OutputConfig read_output(Deck& d, const std::string& deck_path, const Domain& g, double t_end) {
  OutputConfig o;
  const std::string stem = fs::path(deck_path).stem().string();
  o.dir = d.get_string("output.dir", "out/" + (stem.empty() ? std::string("shwa") : stem));
  o.formats = read_output_formats(d);
  const std::vector<std::string> fields = output_field_names();
  o.fields = d.get_string_list("output.fields", fields);
  for (std::size_t k = 0; k < o.fields.size(); ++k)
    if (std::find(o.fields.begin(), o.fields.begin() + long(k), o.fields[k]) != o.fields.begin() + long(k))
      throw d.error("output.fields", "field " + io::quote(o.fields[k]) + " is listed twice");
  for (const auto& f : o.fields)
    if (std::find(fields.begin(), fields.end(), f) == fields.end()) {
      const std::string close = io::closest_match(f, fields);
      throw d.error("output.fields", "unknown field " + io::quote(f) +
                                         (close.empty() ? "; fields are " + io::join(fields)
                                                        : "; did you mean '" + close + "'?"));
    }
  o.times = read_output_times(d, t_end);
  o.maxima = d.get_bool("output.maxima", true);
  o.arrival_threshold = d.get_double("output.arrival_threshold", 1e-3, require_positive());
  o.gauge_interval = d.get_double("output.gauge_interval", 0.0, require_nonnegative());
  // A sample at each multiple, several a step where the interval is shorter than the step.
  constexpr double kMaxGaugeSamples = 1e8;
  if (o.gauge_interval > 0 && t_end / o.gauge_interval > kMaxGaugeSamples)
    throw d.error("output.gauge_interval", fmt(o.gauge_interval) + " s up to time.end = " + fmt(t_end) + " s makes " +
                                               fmt(std::floor(t_end / o.gauge_interval)) + " gauge samples; at most " +
                                               fmt(kMaxGaugeSamples));
  o.png_depth_max = d.get_double("output.png_depth_max", 0.0, require_nonnegative());
  o.png_c_max = d.get_double("output.png_c_max", 0.0, require_nonnegative());
  o.png_scale = d.get_int("output.png_scale", 1, require_in(1, 16));
  o.png_animation = d.get_bool("output.png_animation", true);
  // By default the solver's own precision: a single-precision build writes no digits it lacks.
  o.single_precision = d.get_choice("output.precision", sizeof(Real) == 4 ? "single" : "double",
                                    {"double", "single"}) == "single";
  o.vtk_zlib = d.get_choice("output.vtk_compression", "none", {"none", "zlib"}) == "zlib";
  o.checkpoint_zlib = d.get_choice("output.checkpoint_compression", "none", {"none", "zlib"}) == "zlib";
  o.progress_interval = d.get_double("output.progress_interval", 10.0, require_positive());
  o.gauges = read_gauges(d, g);
  read_projection(d, o);
  return o;
}

SolverParams read_solver_params(Deck& d) {
  SolverParams p;
  p.g = d.get_double("physics.g", 9.81, require_in(kMinGravity, kMaxGravity));
  p.eps_h = d.get_double("physics.eps_h", 1e-3, require_in(kMinEpsH, 1));
  p.manning = d.get_double("physics.manning", 0.0, require_in(0, 1));
  p.cfl = d.get_double("numerics.cfl", 0.9, require_in(0, 1, Range::Ends::open_closed));
  p.variant = d.get_choice("numerics.kernel", "decoupled", {"decoupled", "recompute"}) == "recompute"
                  ? Variant::Recompute
                  : Variant::Decoupled;
  // [0, 0]: the build's tile (default_tile, core/kernels.hpp), so that a resolved deck runs on
  // CPU and GPU builds alike.
  const int max_cells = max_tile_cells<DefaultExec>();
  const std::vector<double> tile = d.get_double_list("numerics.tile", {0, 0}, require_in(0, 4096));
  if (tile.size() != 2 || tile[0] != std::floor(tile[0]) || tile[1] != std::floor(tile[1]) ||
      (tile[0] == 0) != (tile[1] == 0) || tile[0] * tile[1] > max_cells)
    throw d.error("numerics.tile", "expected two whole numbers [tx, ty] with tx * ty <= " +
                                       std::to_string(max_cells) + " on this build (" +
                                       DefaultExec::name() + "), or [0, 0] for the build's default");
  p.tiling = Tiling{int(tile[0]), int(tile[1])};
  // 0: the device column kernels (the update, the CFL pass) choose their rows a team from the
  // block's size (core/kernels.hpp).
  p.tiling.rows = d.get_int("numerics.rows", p.tiling.rows, require_in(0, 1 << 20));
  p.tiling.cfl_rows = d.get_int("numerics.cfl_rows", p.tiling.cfl_rows, require_in(0, 1 << 20));
  // Dry land that cannot change is skipped (docs/kernels.md); false computes it, for comparison.
  p.skip_dry = d.get_bool("numerics.skip_dry", true);
  return p;
}

/// The grid of a run from rasters: the bathymetry raster's header (its values are not read yet),
/// which the deck's [grid], if given, must match. `rasters` gets the rasters the initial state
/// will read. A bathymetry that is not a regular file (a pipe, /dev/stdin) can be read only once:
/// it is read whole now, into `bathy`, for setup_from_files.
Domain grid_from_files(Deck& d, std::vector<std::string>& rasters, std::optional<io::Raster>& bathy) {
  const std::string key = "initial.bathymetry", bathy_path = d.get_path(key);
  Domain header;
  std::error_code ec;
  if (!fs::is_regular_file(bathy_path, ec)) {
    bathy = load_raster(d, key);
    header = *bathy;
  } else {
    try {
      header = io::read_esri_ascii_grid(bathy_path);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (the file of " + key + ", " + d.where(key) + ")");
    }
  }
  // The raster's header gives the grid; [grid] keys the deck sets must agree with it.
  const Domain g = read_grid(d, &header);
  try {
    io::check_same_grid(g, header, "the deck's [grid]", bathy_path);
  } catch (const InputError& e) {
    throw d.error(key, e.what());
  }
  rasters = {bathy_path};
  for (const char* k : {"initial.depth_file", "initial.surface_file", "physics.manning_file"})
    if (d.has(k)) rasters.push_back(d.get_path(k));
  return g;
}

/// The initial state from rasters: bottom, then depth or free surface, velocity (the pollutants'
/// concentrations come from apply_pollutants). NODATA (NaN) in the bathymetry is land: 10 m above
/// the highest valid point, so it stays dry and acts as a wall. NODATA in the surface raster is
/// dry; in the Manning raster the constant physics.manning. The field keeps each raster's values (checked,
/// whole grid) for load_config to evaluate.
InitialField setup_from_files(Deck& d, RunConfig& cfg, std::optional<io::Raster> read) {
  using Values = std::shared_ptr<const std::vector<double>>;
  // cfg.grid is the raster's (grid_from_files), which the values read now fill; `read`: the
  // bathymetry where grid_from_files read it whole.
  io::Raster bathy = read ? std::move(*read) : load_matching_raster(d, "initial.bathymetry", cfg.grid, "the deck's [grid]");
  const std::string bathy_path = d.get_path("initial.bathymetry");
  const bool elevation = d.get_choice("initial.bathymetry_is", "elevation", {"elevation", "depth"}) == "elevation";
  const Domain& g = cfg.grid;
  const std::size_t n = std::size_t(g.cells());
  double top = -std::numeric_limits<double>::infinity();
  for (double z : bathy.v)
    if (!std::isnan(z)) top = std::max(top, elevation ? z : -z);
  if (!std::isfinite(top)) throw d.error("initial.bathymetry", bathy_path + ": every cell is NODATA");
  // A NODATA cell is a wall the run never floods: a gauge there would record nothing.
  for (const io::GaugePoint& p : cfg.out.gauges) {
    const int i = cfg.grid.column_of(p.x), j = cfg.grid.row_of(p.y);
    if (std::isnan(bathy.v[std::size_t(j) * std::size_t(cfg.grid.nx) + std::size_t(i)]))
      throw d.error("gauges." + p.name + ".x",
                    "the gauge at (" + fmt(p.x) + ", " + fmt(p.y) + ") lies in cell (" + std::to_string(i) + ", " +
                        std::to_string(j) + "), NODATA in " + bathy_path + ": land the run never floods");
  }
  std::vector<double> bottom = std::move(bathy.v);  // the bottom depth H, in place of the raster's values
  for (double& z : bottom) z = std::isnan(z) ? -(top + 10) : (elevation ? -z : z);
  const Values H = std::make_shared<const std::vector<double>>(std::move(bottom));

  d.declare("initial.surface");
  d.declare("initial.surface_file");
  d.declare("initial.depth_file");
  const int given = int(d.has("initial.surface")) + d.has("initial.surface_file") + d.has("initial.depth_file");
  if (given > 1)
    throw d.error("initial.surface", "set one of initial.surface, initial.surface_file, initial.depth_file");
  // The depth of cell k from H[k]: a depth raster's value, or the free surface's over the bottom.
  std::function<double(std::size_t k, double H)> depth;
  if (d.has("initial.depth_file")) {
    io::Raster r = load_matching_raster(d, "initial.depth_file", g, bathy_path);
    for (std::size_t k = 0; k < n; ++k) {
      if (r.v[k] < 0)
        throw d.error("initial.depth_file", "negative depth " + fmt(r.v[k]) + in_cell(k, g.nx));
      if (std::isnan(r.v[k])) r.v[k] = 0.0;
    }
    const Values h = std::make_shared<const std::vector<double>>(std::move(r.v));
    depth = [h](std::size_t k, double) { return (*h)[k]; };
  } else if (d.has("initial.surface_file")) {
    io::Raster r = load_matching_raster(d, "initial.surface_file", g, bathy_path);
    const Values eta = std::make_shared<const std::vector<double>>(std::move(r.v));
    depth = [eta](std::size_t k, double H) { return std::isnan((*eta)[k]) ? 0.0 : std::max(0.0, (*eta)[k] + H); };
  } else {
    const double eta = d.get_double("initial.surface", 0.0);
    depth = [eta](std::size_t, double H) { return std::max(0.0, eta + H); };
  }
  const double u = d.get_double("initial.u", 0.0);
  const double v = d.get_double("initial.v", 0.0);
  d.declare("physics.manning_file");
  Values manning;
  if (d.has("physics.manning_file")) {
    io::Raster r = load_matching_raster(d, "physics.manning_file", g, bathy_path);
    for (std::size_t k = 0; k < n; ++k) {
      if (r.v[k] < 0 || r.v[k] > 1)
        throw d.error("physics.manning_file", "Manning's n " + fmt(r.v[k]) + " outside [0, 1]" + in_cell(k, g.nx));
      if (std::isnan(r.v[k])) r.v[k] = cfg.params.manning;
    }
    manning = std::make_shared<const std::vector<double>>(std::move(r.v));
  }
  InitialField field;
  field.manning = bool(manning);
  const std::size_t nx = std::size_t(g.nx);
  field.at = [=](int i, int j, InitialCell& cell) {
    const std::size_t k = std::size_t(j) * nx + std::size_t(i);
    cell = InitialCell{};
    cell.H = (*H)[k];
    cell.h = depth(k, cell.H);
    cell.u = u;
    cell.v = v;
    if (manning) cell.n = (*manning)[k];
  };
  return field;
}

/// The keys of a pollutant's initial state: for the unnamed pollutant of a deck without
/// [pollutants], initial.concentration, initial.concentration_file and [pollutant]; for a named
/// one those of its table [pollutants.NAME]: concentration, concentration_file and [.spill].
struct PollutantKeys {
  std::string background, file, spill;
};

PollutantKeys pollutant_keys(const std::string& name) {
  if (name.empty()) return {"initial.concentration", "initial.concentration_file", "pollutant"};
  const std::string p = "pollutants." + name;
  return {p + ".concentration", p + ".concentration_file", p + ".spill"};
}

/// A key the deck sets at or below `prefix` (the first in order at each level), for messages
/// about a whole table.
std::string key_in(const Deck& d, std::string prefix) {
  for (std::vector<std::string> c = d.children(prefix); !d.has(prefix) && !c.empty(); c = d.children(prefix))
    prefix += "." + c.front();
  return prefix;
}

/// The run's pollutants (RunConfig::pollutants): the names of the deck's [pollutants.NAME]
/// tables, sorted, at most kMaxTracers; without such tables, one unnamed pollutant. A deck that
/// names its pollutants may not also use the unnamed one's keys.
std::vector<std::string> read_pollutants(Deck& d) {
  const std::vector<std::string> names = d.children("pollutants");
  if (names.empty()) return {""};
  const PollutantKeys unnamed = pollutant_keys("");
  for (const std::string& k : {unnamed.background, unnamed.file})
    if (d.has(k))
      throw d.error(k, "the deck names its pollutants ([pollutants.NAME]): give each its own " +
                           k.substr(k.find('.') + 1) + " as pollutants.NAME." + k.substr(k.find('.') + 1));
  if (!d.children(unnamed.spill).empty())
    throw d.error(key_in(d, unnamed.spill),
                  "the deck names its pollutants ([pollutants.NAME]): give a pollutant's spill as [pollutants.NAME.spill]");
  if (names.size() > std::size_t(kMaxTracers))
    throw d.error(key_in(d, "pollutants." + names[kMaxTracers]),
                  std::to_string(names.size()) + " pollutants; a run carries at most " + std::to_string(kMaxTracers) +
                      " (kMaxTracers, core/params.hpp)");
  static const std::regex identifier("[A-Za-z][A-Za-z0-9_]{0,31}");
  for (const std::string& name : names)
    if (!std::regex_match(name, identifier))
      throw d.error(key_in(d, "pollutants." + name),
                    "the pollutant name " + io::quote(name) +
                        " cannot name files and columns: a letter, then letters, digits or _, at most 32");
  return names;
}

/// Pollutant t's spill from the table `p` (x, y, radius, concentration): that concentration in
/// the disk of `radius` around (x, y), where there is water.
InitialField apply_spill(Deck& d, const RunConfig& cfg, InitialField field, int t, const std::string& p) {
  for (const char* k : {".x", ".y", ".radius", ".concentration"}) d.declare(p + k);
  if (d.children(p).empty()) return field;
  const Domain& g = cfg.grid;
  const double x = d.get_double(p + ".x", require_in(g.x0, g.x0 + g.nx * g.dx));
  const double y = d.get_double(p + ".y", require_in(g.y0, g.y0 + g.ny * g.dy));
  const double r = d.get_double(p + ".radius", require_positive());
  const double c = d.get_double(p + ".concentration", require_nonnegative());
  const double eps_h = cfg.params.eps_h;
  // Whether cell (i, j)'s centre lies in the disk; the square around it first (hypot is never
  // below either distance, so that answer is hypot's) and hypot, which is slow, only inside it.
  const auto in_disk = [g, x, y, r](int i, int j) {
    const double dx = g.xc(i) - x, dy = g.yc(j) - y;
    return std::abs(dx) <= r && std::abs(dy) <= r && std::hypot(dx, dy) <= r;
  };
  field.at = [in_disk, c, eps_h, t, at = field.at](int i, int j, InitialCell& cell) {
    at(i, j, cell);
    if (in_disk(i, j) && cell.h >= eps_h) cell.c[std::size_t(t)] = c;
  };
  bool any = false;
  InitialCell cell;
  for (int j = 0; j < g.ny && !any; ++j)
    for (int i = 0; i < g.nx && !any; ++i) {
      field.at(i, j, cell);
      any = in_disk(i, j) && cell.h >= eps_h;
    }
  if (!any) throw d.error(p + ".radius", "the spill covers no wet cell centre");
  return field;
}

/// Each pollutant's initial concentration over the problem's water: its background, uniform
/// (default 0) or a raster (NODATA 0) that must match the grid `grid_source` gives, then its
/// spill.
InitialField apply_pollutants(Deck& d, const RunConfig& cfg, InitialField field, const std::string& grid_source) {
  for (std::size_t t = 0; t < cfg.pollutants.size(); ++t) {
    const PollutantKeys keys = pollutant_keys(cfg.pollutants[t]);
    d.declare(keys.background);
    d.declare(keys.file);
    if (d.has(keys.file)) {
      if (d.has(keys.background)) throw not_both(d, keys.background, keys.file);
      io::Raster r = load_matching_raster(d, keys.file, cfg.grid, grid_source);
      for (std::size_t k = 0; k < r.v.size(); ++k) {
        if (r.v[k] < 0) throw d.error(keys.file, "negative concentration " + fmt(r.v[k]) + in_cell(k, cfg.grid.nx));
        if (std::isnan(r.v[k])) r.v[k] = 0.0;
      }
      const auto c = std::make_shared<const std::vector<double>>(std::move(r.v));
      const std::size_t nx = std::size_t(cfg.grid.nx);
      field.at = [c, nx, t, at = field.at](int i, int j, InitialCell& cell) {
        at(i, j, cell);
        cell.c[t] = (*c)[std::size_t(j) * nx + std::size_t(i)];
      };
    } else {
      const double c0 = d.get_double(keys.background, 0.0, require_nonnegative());
      field.at = [c0, t, at = field.at](int i, int j, InitialCell& cell) {
        at(i, j, cell);
        cell.c[t] = c0;
      };
    }
    field = apply_spill(d, cfg, std::move(field), int(t), keys.spill);
  }
  return field;
}

/// [parallel]: decomposition = "auto" | "strips" | [px, py], halo_width, overlap, transport. Whether
/// a forced decomposition matches the number of ranks is checked when the run starts (every rank
/// reaches the same verdict; see comm::choose_dims).
ParallelConfig read_parallel(Deck& d) {
  ParallelConfig p;
  const std::string key = "parallel.decomposition";
  const std::string expected = "expected \"auto\", \"strips\" or [px, py] (blocks along x and y)";
  if (d.has(key)) {
    std::string s;
    bool is_string = true;
    try {
      s = d.get_string(key);
    } catch (const InputError&) {
      is_string = false;
    }
    if (is_string && !s.empty() && s.front() == '[') is_string = false;  // a list typed on the command line
    if (is_string) {
      if (s != "auto" && s != "strips") throw d.error(key, expected + ", got " + io::quote(s));
      p.decomposition = s;
    } else {
      std::vector<double> v;
      try {
        v = d.get_double_list(key, require_in(1, 1 << 20));
      } catch (const InputError& e) {
        throw d.error(key, expected + " (" + e.what() + ")");
      }
      if (v.size() != 2 || v[0] != std::floor(v[0]) || v[1] != std::floor(v[1]))
        throw d.error(key, expected + ": two whole numbers >= 1");
      p.decomposition = "forced";
      p.px = int(v[0]);
      p.py = int(v[1]);
    }
  } else {
    p.decomposition = d.get_string(key, "auto");
  }
  p.halo_width = d.get_int("parallel.halo_width", 1, require_in(1, 64));
  p.overlap = d.get_bool("parallel.overlap", true);
  p.transport = d.get_choice("parallel.transport", "auto", {"auto", "direct", "staged"});
  return p;
}

}  // namespace

std::string ParallelConfig::describe() const {
  if (decomposition == "forced") return std::to_string(px) + " x " + std::to_string(py);
  return decomposition;
}

bool OutputConfig::has_format(const std::string& f) const {
  return std::find(formats.begin(), formats.end(), f) != formats.end();
}

void check_output_dir(const std::string& dir, const io::Deck& deck, const std::string& key) {
  auto fail = [&](const std::string& why) {
    throw io::OutputError((deck.where(key).empty() ? "" : deck.where(key) + ": ") + key + ": " +
                          io::quote(dir) + ": " + why);
  };
  if (dir.empty()) fail("empty directory name");
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) fail(ec.message());
  // The nearest existing ancestor (or the directory itself) must be a writable directory.
  while (!fs::exists(p, ec)) {
    if (!p.has_parent_path() || p.parent_path() == p) fail("no existing parent directory");
    p = p.parent_path();
  }
  if (!fs::is_directory(p, ec)) fail(p.string() + " is not a directory");
  if (::access(p.c_str(), W_OK | X_OK) != 0) fail("cannot write in " + p.string() + ": " + std::strerror(errno));
}

namespace {

/// What load_config's checks need of the initial state of the whole grid, cells counted in
/// row-major order (j * nx + i, from the south-west corner).
struct InitialScan {
  std::optional<std::pair<std::size_t, double>> bottom_out;  // the first cell beyond kMaxElevation, its H
  std::optional<std::pair<std::size_t, double>> depth_out;   // the first cell beyond kMaxDepth, its h
  /// The greatest sum of wave speeds times edge lengths of a wet cell, 2 (dy (|u| + sqrt(g h)) +
  /// dx (|v| + sqrt(g h))) (docs/method.md): the first time step is 2 CFL dx dy over it.
  double z_max = 0;
  double h_max = 0;
  std::array<double, kMaxTracers> c_max{};
};

InitialScan scan_initial(const InitialField& field, const RunConfig& cfg) {
  const Domain& g = cfg.grid;
  // Each run of rows scanned apart; the first cells beyond the limits are the first run's that
  // has one, the maxima the runs' (NaN cells leave every maximum as it is).
  std::vector<InitialScan> part(std::size_t(row_runs(g.ny)));
  for_row_runs(g.ny, [&](int w, int j0, int j1) {
    InitialScan& s = part[std::size_t(w)];
    InitialCell c;
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t k = std::size_t(j) * std::size_t(g.nx) + std::size_t(i);
        field.at(i, j, c);
        if (!s.bottom_out && !(std::fabs(c.H) <= kMaxElevation)) s.bottom_out = std::make_pair(k, c.H);
        if (!s.depth_out && !(c.h <= kMaxDepth)) s.depth_out = std::make_pair(k, c.h);
        if (c.h >= cfg.params.eps_h) {
          const double a = std::sqrt(cfg.params.g * c.h);
          s.z_max = std::max(s.z_max, 2 * (g.dy * (std::fabs(c.u) + a) + g.dx * (std::fabs(c.v) + a)));
        }
        s.h_max = std::max(s.h_max, c.h);
        for (std::size_t t = 0; t < c.c.size(); ++t) s.c_max[t] = std::max(s.c_max[t], c.c[t]);
      }
  });
  InitialScan s;
  for (const InitialScan& p : part) {
    if (!s.bottom_out) s.bottom_out = p.bottom_out;
    if (!s.depth_out) s.depth_out = p.depth_out;
    s.z_max = std::max(s.z_max, p.z_max);
    s.h_max = std::max(s.h_max, p.h_max);
    for (std::size_t t = 0; t < s.c_max.size(); ++t) s.c_max[t] = std::max(s.c_max[t], p.c_max[t]);
  }
  return s;
}

/// Refuses an initial state beyond the plausible magnitudes (kMaxElevation, kMaxDepth), naming the
/// key that gave it and the first such cell, counted from the south-west corner.
void check_initial_magnitudes(const RunConfig& cfg, Deck& d, const InitialScan& s) {
  const bool files = cfg.problem == "files";
  std::string depth_key = "initial.problem";
  if (files) {
    depth_key = "initial.bathymetry";
    for (const char* k : {"initial.depth_file", "initial.surface_file", "initial.surface"})
      if (d.has(k)) depth_key = k;
  }
  if (s.bottom_out)
    throw d.error(files ? "initial.bathymetry" : "initial.problem",
                  "bottom " + fmt(-s.bottom_out->second) + " m" + in_cell(s.bottom_out->first, cfg.grid.nx) +
                      "; the bottom must lie within " + fmt(kMaxElevation) + " m of the reference level");
  if (s.depth_out)
    throw d.error(depth_key, "initial depth " + fmt(s.depth_out->second) + " m" + in_cell(s.depth_out->first, cfg.grid.nx) +
                                 "; at most " + fmt(kMaxDepth) + " m");
}

/// Refuses a run that would compute nothing: no cell holds water at the start (every depth below
/// physics.eps_h) and no stage or discharge boundary lets any in. That is a bathymetry of the other
/// sign (initial.bathymetry_is), a surface below the whole bottom, or depths in other units, not a
/// flow to simulate.
void check_some_water(const RunConfig& cfg, const InitialScan& s) {
  if (s.h_max >= cfg.params.eps_h) return;
  for (const BcSegment& seg : cfg.bc.segments)
    if (seg.type == BcType::Stage || seg.type == BcType::Discharge) return;
  throw InputError(cfg.deck_path + ": [initial]: no cell holds water (the deepest is " + fmt(s.h_max) +
                   " m, below physics.eps_h = " + fmt(cfg.params.eps_h) +
                   " m) and no stage or discharge boundary lets any in: the run would compute nothing "
                   "(check the surface or depths, and whether the bathymetry gives elevations or depths: "
                   "initial.bathymetry_is)");
}

/// Refuses a run whose first time step implies more than numerics.max_steps steps: the step the
/// initial state allows, 2 CFL dx dy / Z with Z = 2 (dy (|u| + sqrt(g h)) + dx (|v| + sqrt(g h)))
/// its fastest cell's sum over its edges (docs/method.md), estimates the run's steps as
/// time.end / dt. A state at rest without water has no such bound and passes. The time loop holds
/// the run to the limit too (cfg.max_steps).
void check_step_count(RunConfig& cfg, Deck& d, const InitialScan& s) {
  // A count, given as a number so that 1e8 may be written so.
  const double max_steps = d.get_double("numerics.max_steps", 1e8,
                                        Range(1, std::numeric_limits<double>::infinity(), Range::Ends::closed_open));
  if (max_steps != std::floor(max_steps))
    throw d.error("numerics.max_steps", "expected a whole number of steps, got " + fmt(max_steps));
  cfg.max_steps = max_steps;
  const Domain& g = cfg.grid;
  const double z_max = s.z_max;
  // No water moves, or wave speeds that overflow: the first step is zero, which the time loop
  // reports as a blow-up at step 0.
  if (z_max == 0 || !std::isfinite(z_max)) return;
  const double dt = 2 * cfg.params.cfl * g.dx * g.dy / z_max;
  const double steps = cfg.t_end / dt;
  if (!(steps <= max_steps)) {
    // Named where the deck would set it, the deck itself when the default applies.
    const std::string where = d.where("numerics.max_steps");
    throw InputError((where.empty() || where == "default" ? cfg.deck_path : where) +
                     ": numerics.max_steps: the first time step, " + fmt(dt) + " s, implies about " + fmt(std::ceil(steps)) +
                     " steps to time.end = " + fmt(cfg.t_end) + " s, more than " + fmt(max_steps) +
                     " (raise numerics.max_steps, or check the grid, physics.g and the initial depths)");
  }
}

/// The initial state of the cells of `block` for `pollutants` pollutants, and the whole grid's
/// figures of `scan`.
InitialState initial_state(const InitialField& field, const Extent& block, std::size_t pollutants,
                           const InitialScan& scan) {
  InitialState s;
  s.block = block;
  const std::size_t n = std::size_t(block.nx()) * std::size_t(block.ny());
  // Storage left unset, each value first written by the run of rows that holds it, so that the
  // pages of a large grid are faulted in by every CPU at once.
  for (HostValues* v : {&s.H, &s.h, &s.u, &s.v}) v->resize(n);
  s.c.resize(pollutants);
  for (HostValues& c : s.c) c.resize(n);
  if (field.manning) s.n.resize(n);
  // Each run of the block's rows on a thread of its own, into cells of its own.
  for_row_runs(block.ny(), [&](int, int r0, int r1) {
    InitialCell c;
    for (int j = block.j0 + r0; j < block.j0 + r1; ++j)
      for (int i = block.i0; i < block.i1; ++i) {
        field.at(i, j, c);
        const std::size_t k = s.index(i, j);
        s.H[k] = c.H;
        s.h[k] = c.h;
        s.u[k] = c.u;
        s.v[k] = c.v;
        for (std::size_t t = 0; t < pollutants; ++t) s.c[t][k] = c.c[t];
        if (field.manning) s.n[k] = c.n;
      }
  });
  s.h_max = scan.h_max;
  s.c_max.assign(scan.c_max.begin(), scan.c_max.begin() + std::ptrdiff_t(pollutants));
  return s;
}

/// A path as two absolute forms: its directory entry (the folders resolved, the last name kept,
/// which a write by rename replaces) and its target (every link resolved, which a write in place
/// changes).
std::pair<fs::path, fs::path> entry_and_target(const fs::path& p) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec).lexically_normal();
  fs::path entry = fs::weakly_canonical(abs.parent_path(), ec) / abs.filename();
  if (ec) entry = abs;
  fs::path target = fs::weakly_canonical(abs, ec);
  if (ec) target = abs;
  return {entry, target};
}

bool within(const fs::path& p, const fs::path& folder) {
  const auto [a, b] = std::mismatch(folder.begin(), folder.end(), p.begin(), p.end());
  return a == folder.end() && b != p.end();
}

/// Refuses an output directory in which the run would write over its deck or an input file: the
/// files shwa writes there and the folders it fills (outputs.hpp, checkpointing.hpp, the lock).
void check_outputs_spare_inputs(const RunConfig& cfg, const Deck& d) {
  static const char* const kFiles[] = {"deck.toml", "summary.json", "shwa.pvd", "shwa.nc", "shwa.nc.resume.tmp",
                                       "gauges.csv", "shwa.lock", "shwa.run"};
  static const char* const kFolders[] = {"vtk", "asc", "png", "maxima", "checkpoints"};
  std::vector<std::pair<std::string, std::string>> inputs;  // (what, path)
  if (!cfg.deck_path.empty()) inputs.emplace_back("the deck", cfg.deck_path);
  for (const auto& [key, path] : cfg.definition.files) inputs.emplace_back("the file of " + key, path);
  const fs::path dir(cfg.out.dir);
  for (const auto& input : inputs) {
    // Named references, not structured bindings: C++17 lambdas may not capture those (nvcc warns).
    const std::string& what = input.first;
    const std::string& path = input.second;
    const auto in = entry_and_target(path);
    auto refuse = [&](const fs::path& written) {
      const std::string where = d.where("output.dir");
      throw io::OutputError((where.empty() || where == "default" ? cfg.deck_path : where) + ": output.dir: " +
                            io::quote(cfg.out.dir) + ": the run would write " + written.string() + " over " +
                            what + ", " + path + "; choose another output.dir");
    };
    for (const char* name : kFiles) {
      const auto out = entry_and_target(dir / name);
      if (in.first == out.first || in.first == out.second || in.second == out.first || in.second == out.second)
        refuse(dir / name);
    }
    for (const char* name : kFolders) {
      const auto out = entry_and_target(dir / name);
      for (const fs::path& p : {in.first, in.second})
        if (within(p, out.first) || within(p, out.second)) refuse(dir / name / p.filename());
    }
  }
}

}  // namespace

MemoryEstimate estimate_run_memory(const RunConfig& cfg, const std::vector<std::string>& rasters, bool manning_field,
                                   int px, int py, bool root, bool restart) {
  MemoryModel m;
  m.nx = cfg.grid.nx;
  m.ny = cfg.grid.ny;
  m.halo_width = cfg.parallel.halo_width;
  m.px = px;
  m.py = py;
  m.root = root;
  m.real_bytes = int(sizeof(Real));
  m.device_is_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, DefaultExec::memory_space>::accessible;
  m.rasters = int(rasters.size());
  for (const std::string& r : rasters) {
    std::error_code ec;
    const auto bytes = fs::file_size(r, ec);
    if (!ec) m.largest_raster_bytes = std::max<std::uint64_t>(m.largest_raster_bytes, bytes);
  }
  m.manning_field = manning_field;
  m.tracers = cfg.params.tracers;
  m.maxima = cfg.out.maxima;
  m.frames = !cfg.out.formats.empty();
  m.asc = cfg.out.has_format("asc");
  m.png = cfg.out.has_format("png");
  m.png_scale = cfg.out.png_scale;
  m.vtk_zlib = cfg.out.has_format("vtk") && cfg.out.vtk_zlib;
  m.writer_threads = process_cpu_count();
  m.checkpoint_zlib = cfg.out.checkpoint_zlib;
  m.output_bytes = cfg.out.single_precision ? 4 : 8;
  m.gauges = int(cfg.out.gauges.size());
  m.restart = restart;
  return estimate_memory(m);
}

namespace {

/// Refuses a run whose memory estimate exceeds what the machine has (resources.hpp), naming the
/// grid's key; called before the initial state is built.
void check_run_memory(RunConfig& cfg, Deck& d, const std::vector<std::string>& rasters, const LoadOptions& opt) {
  const bool on = d.get_bool("numerics.memory_check", true);
  if (!on || !opt.check_memory) return;
  const auto [px, py] = opt.dims ? opt.dims(cfg) : std::pair<int, int>{1, 1};
  const bool manning = d.has("physics.manning_file");
  const MemoryEstimate root = estimate_run_memory(cfg, rasters, manning, px, py, true, opt.restart);
  const MemoryEstimate other = estimate_run_memory(cfg, rasters, manning, px, py, false, opt.restart);
  const MemoryAvailable avail = opt.available ? opt.available() : available_memory();
  const std::string grid = "the " + std::to_string(cfg.grid.nx) + " x " + std::to_string(cfg.grid.ny) + " grid (" +
                           std::to_string(cfg.grid.cells()) + " cells" +
                           (px * py > 1 ? ", in " + std::to_string(px) + " x " + std::to_string(py) + " blocks" : "") +
                           ")";
  if (const auto why = memory_shortfall(grid, root, other, opt.node, opt.root, avail))
    throw d.error(cfg.problem == "files" && !d.has("grid.nx") ? "initial.bathymetry" : "grid.nx", *why);
  cfg.memory = opt.root ? root : other;
  cfg.memory_available = avail;
}

}  // namespace

RunConfig load_config(Deck& d, const std::string& deck_path, const LoadOptions& opt) {
  RunConfig cfg;
  cfg.deck_path = deck_path;
  cfg.params = read_solver_params(d);
  cfg.pollutants = read_pollutants(d);
  cfg.params.tracers = int(cfg.pollutants.size());
  d.declare("initial.problem");
  d.declare("initial.bathymetry");
  // First what sizes the run (the grid, the outputs, the decomposition), to check that it fits
  // the machine before the initial state, the first allocation in proportion to the grid, is
  // built.
  std::vector<std::string> rasters;
  std::optional<io::Raster> bathy;
  if (d.has("initial.problem")) {
    if (d.has("initial.bathymetry"))
      throw not_both(d, "initial.bathymetry", "initial.problem");
    cfg.problem = d.get_choice("initial.problem", problem_names());
    cfg.grid = read_grid(d);
  } else if (d.has("initial.bathymetry")) {
    cfg.problem = "files";
    cfg.grid = grid_from_files(d, rasters, bathy);
  } else {
    throw d.error("initial.problem", "the deck must set initial.problem (one of " + io::join(problem_names()) +
                                         ") or initial.bathymetry (a raster)");
  }
  cfg.t_end = d.get_double("time.end", require_positive());
  cfg.checkpoint_interval = d.get_double("time.checkpoint_interval", 0.0, require_nonnegative());
  cfg.health_interval = d.get_int("numerics.health_interval", 10, require_in(1, 1000000));
  cfg.max_clipped_fraction = d.get_double("numerics.max_clipped_fraction", 1e-3, require_nonnegative());
  cfg.out = read_output(d, deck_path, cfg.grid, cfg.t_end);
  cfg.parallel = read_parallel(d);
  for (const std::string& name : cfg.pollutants) {
    const std::string key = pollutant_keys(name).file;
    if (d.has(key)) rasters.push_back(d.get_path(key));
  }
  check_run_memory(cfg, d, rasters, opt);

  // The initial state of any cell: every cell is checked, this rank's block kept.
  InitialField field = cfg.problem == "files" ? setup_from_files(d, cfg, std::move(bathy)) : setup_problem(cfg.problem, d, cfg);
  field = apply_pollutants(d, cfg, std::move(field),
                           cfg.problem == "files" ? d.get_path("initial.bathymetry") : "the deck's [grid]");
  cfg.bc = read_boundaries(d, cfg.grid, cfg.pollutants, cfg.t_end);
  const InitialScan scan = scan_initial(field, cfg);
  check_initial_magnitudes(cfg, d, scan);
  check_some_water(cfg, scan);
  check_step_count(cfg, d, scan);
  cfg.init = initial_state(field, opt.block ? opt.block(cfg) : Extent{0, cfg.grid.nx, 0, cfg.grid.ny},
                           cfg.pollutants.size(), scan);
  d.check_unused();
  check_output_dir(cfg.out.dir, d, "output.dir");
  // The folders the run fills inside it, where one already exists: a file of that name, or a
  // folder it cannot write in, is found now rather than after the first frame.
  std::vector<std::string> folders;
  for (const char* f : {"vtk", "asc", "png"})
    if (cfg.out.has_format(f)) folders.push_back(f);
  if (cfg.out.maxima) folders.push_back("maxima");
  if (cfg.checkpoint_interval > 0) folders.push_back("checkpoints");
  for (const std::string& f : folders) check_output_dir(cfg.out.dir + "/" + f, d, "output.dir");
  cfg.resolved_deck = d.resolved_toml();
  cfg.definition.values = d.values();
  for (const auto& kv : cfg.definition.values) cfg.definition.where[kv.first] = d.where(kv.first);
  cfg.definition.files = d.paths();
  check_outputs_spare_inputs(cfg, d);
  return cfg;
}

}  // namespace shwa::app
