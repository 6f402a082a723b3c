#include "io/netcdf_writer.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "io/error.hpp"

namespace shwa::io {

VariableInfo describe_field(const std::string& name) {
  static const std::map<std::string, VariableInfo> kKnown = {
      {"h", {"h", "m", "water depth", "sea_floor_depth_below_sea_surface"}},
      {"eta", {"eta", "m", "free-surface elevation above the reference level", ""}},
      {"u", {"u", "m s-1", "depth-averaged velocity in x", "sea_water_x_velocity"}},
      {"v", {"v", "m s-1", "depth-averaged velocity in y", "sea_water_y_velocity"}},
      {"qx", {"qx", "m2 s-1", "discharge per unit width in x", ""}},
      {"qy", {"qy", "m2 s-1", "discharge per unit width in y", ""}},
      {"c", {"c", "1", "pollutant concentration", ""}},
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
  const Grid& g = layout.grid;
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
  for (const auto& f : layout.fields) def(f, nc_type_of(layout.type), {dim_t, dim_y, dim_x});
  for (const auto& f : layout.static_fields) def(f, nc_type_of(layout.type), {dim_y, dim_x});

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
}

int create(const std::string& path, const NetcdfLayout& layout) {
  const Grid& g = layout.grid;
  if (g.nx <= 0 || g.ny <= 0) throw std::invalid_argument("NetcdfWriter: " + path + ": empty grid");
  std::set<std::string> names = {"time", "x", "y"};
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
  if (field.type != layout_.type)
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

}  // namespace

NetcdfWriter NetcdfWriter::resume(const std::string& path, const NetcdfLayout& layout, double up_to) {
  int ncid = -1;
  check<InputError>(nc_open(path.c_str(), NC_NOWRITE, &ncid), path, "cannot resume");
  std::vector<double> times;
  try {
    check_layout(ncid, layout, path);
    times = read_times(ncid, path);
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  const auto keep = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), up_to) - times.begin());
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
