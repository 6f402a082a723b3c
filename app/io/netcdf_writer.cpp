#include "io/netcdf_writer.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "io/error.hpp"
#include "io/text.hpp"

namespace shwa::io {

VariableInfo describe_field(const std::string& name) {
  static const std::map<std::string, VariableInfo> kKnown = {
      {"qx", {"qx", "m2 s-1", "discharge per unit width in x", ""}},
      {"qy", {"qy", "m2 s-1", "discharge per unit width in y", ""}},
      {"H", {"H", "m", "bottom depth below the reference level", ""}},
      {"hmax", {"hmax", "m", "maximum water depth", ""}},
      {"cmax", {"cmax", "1", "maximum pollutant concentration", ""}},
      {"arrival", {"arrival", "s", "time of first arrival of the pollutant", ""}},
  };
  const auto it = kKnown.find(name);
  return it != kKnown.end() ? it->second : VariableInfo{name, "", name, ""};
}

namespace {

nc_type nc_type_of(ScalarType t) { return t == ScalarType::float64 ? NC_DOUBLE : NC_FLOAT; }

// Throws `E` "PATH: WHAT: netCDF's reason" unless rc is NC_NOERR.
template <class E = OutputError>
void check(int rc, const std::string& path, const std::string& what) {
  if (rc != NC_NOERR) throw E(path + ": " + what + ": " + nc_strerror(rc));
}

void put_text(int ncid, int var, const char* name, const std::string& value, const std::string& path) {
  if (!value.empty()) check(nc_put_att_text(ncid, var, name, value.size(), value.c_str()), path, "cannot write attributes");
}

void describe_variable(int ncid, int var, const VariableInfo& info, const std::string& path) {
  put_text(ncid, var, "standard_name", info.standard_name, path);
  put_text(ncid, var, "long_name", info.long_name, path);
  put_text(ncid, var, "units", info.units, path);
}

// Defines the dimensions and variables of `layout` in a new file and writes the coordinates.
void define(int ncid, const NetcdfLayout& layout, const std::string& path) {
  const Domain& g = layout.grid;
  int dim_t = 0, dim_y = 0, dim_x = 0;
  check(nc_def_dim(ncid, "time", NC_UNLIMITED, &dim_t), path, "cannot define dimensions");
  check(nc_def_dim(ncid, "y", static_cast<std::size_t>(g.ny), &dim_y), path, "cannot define dimensions");
  check(nc_def_dim(ncid, "x", static_cast<std::size_t>(g.nx), &dim_x), path, "cannot define dimensions");

  const auto def = [&](const VariableInfo& info, nc_type type, std::vector<int> dims) {
    int var = 0;
    check(nc_def_var(ncid, info.name.c_str(), type, static_cast<int>(dims.size()), dims.data(), &var), path,
          "cannot define variable " + info.name);
    describe_variable(ncid, var, info, path);
    return var;
  };
  const int time = def({"time", "s", "simulated time", "time"}, NC_DOUBLE, {dim_t});
  const int y = def({"y", "m", "y coordinate of the cell centres", "projection_y_coordinate"}, NC_DOUBLE, {dim_y});
  const int x = def({"x", "m", "x coordinate of the cell centres", "projection_x_coordinate"}, NC_DOUBLE, {dim_x});
  put_text(ncid, time, "axis", "T", path);
  put_text(ncid, y, "axis", "Y", path);
  put_text(ncid, x, "axis", "X", path);
  int crs = -1;
  if (!layout.projection.empty()) {
    check(nc_def_var(ncid, "crs", NC_INT, 0, nullptr, &crs), path, "cannot define variable crs");
    put_text(ncid, crs, "crs_wkt", layout.projection, path);
    put_text(ncid, crs, "spatial_ref", layout.projection, path);
  }
  const auto def_data = [&](const VariableInfo& info, std::vector<int> dims) {
    const int var = def(info, nc_type_of(layout.type), std::move(dims));
    if (crs >= 0) put_text(ncid, var, "grid_mapping", "crs", path);
  };
  for (const auto& f : layout.fields) def_data(f, {dim_t, dim_y, dim_x});
  for (const auto& f : layout.static_fields) def_data(f, {dim_y, dim_x});

  put_text(ncid, NC_GLOBAL, "Conventions", "CF-1.8", path);
  put_text(ncid, NC_GLOBAL, "title", "shwa shallow-water simulation", path);
  put_text(ncid, NC_GLOBAL, "source", "shwa", path);
  for (const auto& [name, value] : layout.attributes) put_text(ncid, NC_GLOBAL, name.c_str(), value, path);
  int old_fill = 0;
  check(nc_set_fill(ncid, NC_NOFILL, &old_fill), path, "cannot set fill mode");
  check(nc_enddef(ncid), path, "cannot write the header");

  std::vector<double> xs(static_cast<std::size_t>(g.nx)), ys(static_cast<std::size_t>(g.ny));
  for (int i = 0; i < g.nx; ++i) xs[static_cast<std::size_t>(i)] = g.xc(i);
  for (int j = 0; j < g.ny; ++j) ys[static_cast<std::size_t>(j)] = g.yc(j);
  check(nc_put_var_double(ncid, x, xs.data()), path, "cannot write x");
  check(nc_put_var_double(ncid, y, ys.data()), path, "cannot write y");
  if (crs >= 0) {
    const int zero = 0;  // a grid mapping's value means nothing (CF), but is written, not left unset
    check(nc_put_var_int(ncid, crs, &zero), path, "cannot write crs");
  }
}

int create(const std::string& path, const NetcdfLayout& layout) {
  const Domain& g = layout.grid;
  if (g.nx <= 0 || g.ny <= 0) throw std::invalid_argument("NetcdfWriter: " + path + ": empty grid");
  std::set<std::string> names = {"time", "x", "y"};
  if (!layout.projection.empty()) names.insert("crs");
  for (const auto* list : {&layout.fields, &layout.static_fields})
    for (const auto& f : *list)
      if (f.name.empty() || !names.insert(f.name).second)
        throw std::invalid_argument("NetcdfWriter: " + path + ": variable names must be non-empty and distinct ('" +
                                    f.name + "')");
  int ncid = -1;
  check(nc_create(path.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &ncid), path, "cannot create");
  try {
    define(ncid, layout, path);
    check(nc_sync(ncid), path, "cannot write");
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  return ncid;
}

}  // namespace

NetcdfWriter::NetcdfWriter(std::string path, const NetcdfLayout& layout, int ncid)
    : path_(std::move(path)), layout_(layout), ncid_(ncid) {
  const int rc = nc_inq_varid(ncid_, "time", &time_var_);
  if (rc != NC_NOERR) {
    nc_close(ncid_);
    check(rc, path_, "no time variable");
  }
}

NetcdfWriter::NetcdfWriter(const std::string& path, const NetcdfLayout& layout)
    : NetcdfWriter(path, layout, create(path, layout)) {}

NetcdfWriter::NetcdfWriter(NetcdfWriter&& other) noexcept
    : path_(std::move(other.path_)),
      layout_(std::move(other.layout_)),
      ncid_(std::exchange(other.ncid_, -1)),
      time_var_(other.time_var_),
      record_(other.record_) {}

NetcdfWriter::~NetcdfWriter() {
  if (ncid_ >= 0) nc_close(ncid_);
}

void NetcdfWriter::close() {
  if (ncid_ < 0) return;
  const int rc = nc_close(std::exchange(ncid_, -1));
  check(rc, path_, "cannot close");
}

int NetcdfWriter::variable(const FieldRef& field, bool time_dependent) const {
  const std::string& name = field.name;
  const auto& list = time_dependent ? layout_.fields : layout_.static_fields;
  const bool declared =
      std::any_of(list.begin(), list.end(), [&](const VariableInfo& v) { return v.name == name; });
  int var = -1;
  if (!declared || nc_inq_varid(ncid_, name.c_str(), &var) != NC_NOERR)
    throw std::invalid_argument("NetcdfWriter: " + path_ + ": '" + name + "' is not a " +
                                (time_dependent ? "time-dependent" : "static") + " variable of the layout");
  // Doubles narrow to a float variable (the library rounds each to the nearest float); floats do
  // not widen, where they would pretend to digits they lack.
  if (field.type != layout_.type && layout_.type != ScalarType::float32)
    throw std::invalid_argument("NetcdfWriter: " + path_ + ": field '" + name + "' has the wrong precision");
  return var;
}

void NetcdfWriter::put(int var, const FieldRef& field, bool record) {
  const std::size_t start[3] = {record_, 0, 0};
  const std::size_t count[3] = {1, static_cast<std::size_t>(layout_.grid.ny), static_cast<std::size_t>(layout_.grid.nx)};
  const std::size_t* s = record ? start : start + 1;
  const std::size_t* c = record ? count : count + 1;
  const int rc = field.type == ScalarType::float64
                     ? nc_put_vara_double(ncid_, var, s, c, static_cast<const double*>(field.data))
                     : nc_put_vara_float(ncid_, var, s, c, static_cast<const float*>(field.data));
  check(rc, path_, "cannot write " + field.name);
}

void NetcdfWriter::append(double time, const std::vector<FieldRef>& fields) {
  if (ncid_ < 0) throw std::logic_error("NetcdfWriter::append after close: " + path_);
  std::set<std::string> given;
  for (const auto& f : fields)
    if (!given.insert(f.name).second)
      throw std::invalid_argument("NetcdfWriter: " + path_ + ": field '" + f.name + "' given twice");
  for (const auto& v : layout_.fields)
    if (!given.count(v.name)) throw std::invalid_argument("NetcdfWriter: " + path_ + ": field '" + v.name + "' missing");
  // Check every field before writing any, so that a bad call leaves no partial record.
  std::vector<int> vars;
  for (const auto& f : fields) vars.push_back(variable(f, true));
  for (std::size_t k = 0; k < fields.size(); ++k) put(vars[k], fields[k], true);
  check(nc_put_var1_double(ncid_, time_var_, &record_, &time), path_, "cannot write time");
  // The record is complete on disk before the next one starts.
  check(nc_sync(ncid_), path_, "cannot write");
  ++record_;
}

void NetcdfWriter::write_static(const FieldRef& field) {
  if (ncid_ < 0) throw std::logic_error("NetcdfWriter::write_static after close: " + path_);
  put(variable(field, false), field, false);
  check(nc_sync(ncid_), path_, "cannot write");
}

namespace {

// Checks that the file open as `ncid` has the grid and variables of `layout`.
void check_layout(int ncid, const NetcdfLayout& layout, const std::string& path) {
  const auto dim_len = [&](const char* name) {
    int dim = 0;
    std::size_t len = 0;
    check<InputError>(nc_inq_dimid(ncid, name, &dim), path, std::string("cannot resume: no dimension ") + name);
    check<InputError>(nc_inq_dimlen(ncid, dim, &len), path, "cannot resume");
    return len;
  };
  const std::size_t nx = dim_len("x"), ny = dim_len("y");
  if (nx != static_cast<std::size_t>(layout.grid.nx) || ny != static_cast<std::size_t>(layout.grid.ny))
    throw InputError(path + ": cannot resume: the file's grid is " + std::to_string(nx) + " x " + std::to_string(ny) +
                     ", this run's " + std::to_string(layout.grid.nx) + " x " + std::to_string(layout.grid.ny));
  for (const auto* list : {&layout.fields, &layout.static_fields}) {
    for (const auto& f : *list) {
      int var = 0;
      nc_type type = NC_NAT;
      check<InputError>(nc_inq_varid(ncid, f.name.c_str(), &var), path, "cannot resume: no variable " + f.name);
      check<InputError>(nc_inq_vartype(ncid, var, &type), path, "cannot resume");
      if (type != nc_type_of(layout.type))
        throw InputError(path + ": cannot resume: variable " + f.name + " has another precision than this run");
    }
  }
}

std::vector<double> read_times(int ncid, const std::string& path) {
  int dim = 0, var = 0;
  std::size_t len = 0;
  check<InputError>(nc_inq_dimid(ncid, "time", &dim), path, "cannot resume: no time dimension");
  check<InputError>(nc_inq_dimlen(ncid, dim, &len), path, "cannot resume");
  check<InputError>(nc_inq_varid(ncid, "time", &var), path, "cannot resume: no time variable");
  std::vector<double> t(len);
  if (len > 0) check<InputError>(nc_get_var_double(ncid, var, t.data()), path, "cannot resume: unreadable times");
  return t;
}

// Copies records [0, keep) and the static fields of the open file `from` to a new writer.
void copy_records(int from, NetcdfWriter& to, const NetcdfLayout& layout, const std::vector<double>& times,
                  std::size_t keep, const std::string& path) {
  const std::size_t n = static_cast<std::size_t>(layout.grid.cells());
  std::vector<std::vector<double>> f64;
  std::vector<std::vector<float>> f32;
  const auto read = [&](const VariableInfo& info, const std::size_t* start, const std::size_t* count) {
    int var = 0;
    check<InputError>(nc_inq_varid(from, info.name.c_str(), &var), path, "cannot resume");
    if (layout.type == ScalarType::float64) {
      f64.emplace_back(n);
      check<InputError>(nc_get_vara_double(from, var, start, count, f64.back().data()), path, "cannot resume");
      return FieldRef(info.name, f64.back().data());
    }
    f32.emplace_back(n);
    check<InputError>(nc_get_vara_float(from, var, start, count, f32.back().data()), path, "cannot resume");
    return FieldRef(info.name, f32.back().data());
  };
  const std::size_t count[3] = {1, static_cast<std::size_t>(layout.grid.ny), static_cast<std::size_t>(layout.grid.nx)};
  for (const auto& info : layout.static_fields) {
    const std::size_t start[2] = {0, 0};
    to.write_static(read(info, start, count + 1));
  }
  for (std::size_t r = 0; r < keep; ++r) {
    f64.clear();
    f32.clear();
    f64.reserve(layout.fields.size());
    f32.reserve(layout.fields.size());
    std::vector<FieldRef> fields;
    const std::size_t start[3] = {r, 0, 0};
    for (const auto& info : layout.fields) fields.push_back(read(info, start, count));
    to.append(times[r], fields);
  }
}

// Where the records of a classic or 64-bit-offset file lie, from its header (the format's
// specification: magic, numrecs, dimensions, global attributes, variables with their sizes and
// begin offsets), so that the records a file lists can be compared with the bytes it holds.
struct RecordSpan {
  std::uint64_t listed = 0;  // numrecs of the header
  std::uint64_t begin = 0;   // offset of the first record
  std::uint64_t size = 0;    // bytes a record
};

RecordSpan record_span(const std::string& path, std::uint64_t file_size) {
  const auto bad = [&](const std::string& why) { return InputError(path + ": cannot resume: " + why); };
  std::ifstream in(path, std::ios::binary);
  if (!in) throw bad("cannot read the file");
  // The header lies at the start; shwa's headers are a few kilobytes.
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(file_size, std::uint64_t(1) << 24)), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::size_t at = 0;
  const auto take = [&](std::size_t n) {
    if (head.size() - at < n) throw bad("the header is cut short (" + std::to_string(file_size) + " bytes)");
    const std::size_t from = at;
    at += n;
    return from;
  };
  const auto u32 = [&] {
    const std::size_t p = take(4);
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v = v << 8 | static_cast<unsigned char>(head[p + std::size_t(k)]);
    return v;
  };
  const auto u64 = [&] { return std::uint64_t(u32()) << 32 | u32(); };
  const auto padded = [](std::uint64_t n) { return (n + 3) / 4 * 4; };
  const auto skip_name = [&] { take(static_cast<std::size_t>(padded(u32()))); };
  const auto type_size = [&](std::uint32_t t) -> std::uint64_t {
    switch (t) {
      case 1: case 2: return 1;  // byte, char
      case 3: return 2;          // short
      case 4: case 5: return 4;  // int, float
      case 6: return 8;          // double
      default: throw bad("the header names an unknown type " + std::to_string(t));
    }
  };
  const auto skip_attributes = [&] {
    const std::uint32_t tag = u32(), n = u32();
    if (tag == 0 && n == 0) return;
    if (tag != 0x0C) throw bad("the header's attribute list is corrupt");
    for (std::uint32_t k = 0; k < n; ++k) {
      skip_name();
      const std::uint64_t size = type_size(u32());
      take(static_cast<std::size_t>(padded(size * u32())));
    }
  };
  if (head.size() < 4 || head.compare(0, 3, "CDF") != 0 || (head[3] != 1 && head[3] != 2))
    throw bad("not a classic NetCDF file as shwa writes (no CDF-1 or CDF-2 magic at its start)");
  const bool offset64 = head[3] == 2;
  take(4);
  RecordSpan span;
  span.listed = u32();
  if (span.listed == 0xFFFFFFFFu) throw bad("the header's record count is unset (a file being streamed)");
  std::vector<std::uint64_t> dims;
  std::uint32_t tag = u32(), n = u32();
  if (!(tag == 0x0A || (tag == 0 && n == 0))) throw bad("the header's dimension list is corrupt");
  for (std::uint32_t k = 0; k < n; ++k) {
    skip_name();
    dims.push_back(u32());
  }
  skip_attributes();
  tag = u32();
  n = u32();
  if (!(tag == 0x0B || (tag == 0 && n == 0))) throw bad("the header's variable list is corrupt");
  std::vector<std::uint64_t> record_sizes;
  span.begin = std::numeric_limits<std::uint64_t>::max();
  for (std::uint32_t k = 0; k < n; ++k) {
    skip_name();
    const std::uint32_t ndims = u32();
    std::vector<std::uint32_t> ids(ndims);
    for (auto& id : ids) {
      id = u32();
      if (id >= dims.size()) throw bad("the header names a dimension it does not define");
    }
    skip_attributes();
    std::uint64_t size = type_size(u32());
    u32();  // vsize: recomputed below, as it saturates for large variables
    const std::uint64_t begin = offset64 ? u64() : u32();
    const bool record = ndims > 0 && dims[ids[0]] == 0;
    if (!record) continue;
    for (std::size_t d = 1; d < ids.size(); ++d) size *= dims[ids[d]];
    record_sizes.push_back(size);
    span.begin = std::min(span.begin, begin);
  }
  // Each record variable's part of a record is padded to 4 bytes, unless it is the only one.
  for (const std::uint64_t size : record_sizes) span.size += record_sizes.size() == 1 ? size : padded(size);
  if (record_sizes.empty()) span.begin = 0;
  return span;
}

// The records of `path` (open as `ncid`) that a restart at `up_to` keeps: those of time <= up_to,
// each whole on disk, their times finite and increasing. See NetcdfWriter::resumable_records.
std::size_t records_to_keep(int ncid, const std::string& path, double up_to) {
  std::error_code ec;
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path + ": cannot resume: " + ec.message());
  const RecordSpan span = record_span(path, file_size);
  // Records the header lists past the end of the file are not on disk (a file cut short).
  const std::uint64_t whole =
      span.size == 0 ? span.listed
                     : std::min(span.listed, file_size < span.begin ? 0 : (file_size - span.begin) / span.size);
  int var = 0;
  check<InputError>(nc_inq_varid(ncid, "time", &var), path, "cannot resume: no time variable");
  std::vector<double> times(static_cast<std::size_t>(whole));
  const std::size_t start = 0, count = times.size();
  if (count > 0)
    check<InputError>(nc_get_vara_double(ncid, var, &start, &count, times.data()), path,
                      "cannot resume: unreadable times");
  std::size_t keep = 0;
  for (std::size_t r = 0; r < times.size(); ++r) {
    if (!std::isfinite(times[r]) || (r > 0 && !(times[r] > times[r - 1])))
      throw InputError(path + ": cannot resume: record " + std::to_string(r) + " has time " + format_double(times[r]) +
                       (r > 0 ? " after " + format_double(times[r - 1]) + " in record " + std::to_string(r - 1) : "") +
                       "; the times of a file shwa wrote increase (the file is corrupt)");
    if (times[r] <= up_to) keep = r + 1;
  }
  // A record past the whole ones may be one the restart needs.
  if (whole < span.listed && keep == whole)
    throw InputError(path + ": cannot resume: the file is cut short: its header lists " + std::to_string(span.listed) +
                     " records, " + std::to_string(whole) + " of which are whole in its " + std::to_string(file_size) +
                     " bytes (" + std::to_string(span.begin + span.listed * span.size) + " bytes whole)");
  return keep;
}

}  // namespace

std::size_t NetcdfWriter::resumable_records(const std::string& path, const NetcdfLayout& layout, double up_to) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path + ": cannot resume: the file is missing");
  int ncid = -1;
  check<InputError>(nc_open(path.c_str(), NC_NOWRITE, &ncid), path, "cannot resume");
  try {
    check_layout(ncid, layout, path);
    const std::size_t keep = records_to_keep(ncid, path, up_to);
    nc_close(ncid);
    return keep;
  } catch (...) {
    nc_close(ncid);
    throw;
  }
}

NetcdfWriter NetcdfWriter::resume(const std::string& path, const NetcdfLayout& layout, double up_to) {
  int ncid = -1;
  check<InputError>(nc_open(path.c_str(), NC_NOWRITE, &ncid), path, "cannot resume");
  std::vector<double> times;
  std::size_t keep = 0;
  try {
    check_layout(ncid, layout, path);
    keep = records_to_keep(ncid, path, up_to);
    times = read_times(ncid, path);
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  if (keep < times.size()) {
    // Records after the restart time would linger past the new ones: a classic file cannot
    // shrink, so copy the records to keep into a new file that replaces the old one.
    const std::string tmp = path + ".resume.tmp";
    try {
      NetcdfWriter copy(tmp, layout);
      copy_records(ncid, copy, layout, times, keep, path);
      copy.close();
    } catch (...) {
      nc_close(ncid);
      std::remove(tmp.c_str());
      throw;
    }
    nc_close(ncid);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw OutputError(path + ": cannot resume: cannot replace the file");
    }
  } else {
    nc_close(ncid);
  }
  check<InputError>(nc_open(path.c_str(), NC_WRITE, &ncid), path, "cannot resume");
  NetcdfWriter w(path, layout, ncid);
  w.record_ = keep;
  return w;
}

}  // namespace shwa::io
