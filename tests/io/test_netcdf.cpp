#include "io/netcdf_writer.hpp"

#include <netcdf.h>

#include <filesystem>

#include <catch2/catch.hpp>
#include <cmath>

#include "io/error.hpp"
#include "io_test_util.hpp"

using shwa::io::describe_field;
using shwa::io::FieldRef;
using shwa::io::NetcdfLayout;
using shwa::io::NetcdfWriter;
using shwa::io::ScalarType;
using shwa::io::test::TempDir;

namespace {

// A NetCDF file open for reading, closed at the end of the scope.
struct NcFile {
  explicit NcFile(const std::string& path) { REQUIRE(nc_open(path.c_str(), NC_NOWRITE, &id) == NC_NOERR); }
  ~NcFile() { nc_close(id); }
  int var(const char* name) const {
    int v = -1;
    REQUIRE(nc_inq_varid(id, name, &v) == NC_NOERR);
    return v;
  }
  std::size_t dim(const char* name) const {
    int d = -1;
    std::size_t len = 0;
    REQUIRE(nc_inq_dimid(id, name, &d) == NC_NOERR);
    REQUIRE(nc_inq_dimlen(id, d, &len) == NC_NOERR);
    return len;
  }
  std::string text(int v, const char* att) const {
    std::size_t len = 0;
    if (nc_inq_attlen(id, v, att, &len) != NC_NOERR) return "(none)";
    std::string s(len, '\0');
    REQUIRE(nc_get_att_text(id, v, att, s.data()) == NC_NOERR);
    return s;
  }
  std::vector<double> record(const char* name, std::size_t r, std::size_t ny, std::size_t nx) const {
    std::vector<double> out(ny * nx);
    const std::size_t start[3] = {r, 0, 0}, count[3] = {1, ny, nx};
    REQUIRE(nc_get_vara_double(id, var(name), start, count, out.data()) == NC_NOERR);
    return out;
  }
  std::vector<double> all(const char* name, std::size_t n) const {
    std::vector<double> out(n);
    REQUIRE(nc_get_var_double(id, var(name), out.data()) == NC_NOERR);
    return out;
  }
  int id = -1;
};

NetcdfLayout layout(ScalarType type) {
  NetcdfLayout l;
  l.grid.nx = 3;
  l.grid.ny = 2;
  l.grid.dx = 10;
  l.grid.dy = 20;
  l.grid.x0 = 1000;
  l.grid.y0 = -40;
  l.type = type;
  l.fields = {{"h", "m", "water depth", "sea_floor_depth_below_sea_surface"},
              {"u", "m s-1", "depth-averaged velocity in x", "sea_water_x_velocity"}};
  l.static_fields = {describe_field("H")};
  l.attributes = {{"case", "unit test"}};
  return l;
}

}  // namespace

TEST_CASE("netcdf: CF metadata and records read back equal", "[io][netcdf]") {
  TempDir dir;
  const std::string path = dir / "run.nc";
  const std::vector<double> h0 = {1, 2, 3, 4, 5, 6}, u0 = {0.1, 0.2, 0.3, -1e-300, 1e300, 0};
  const std::vector<double> h1 = {6, 5, 4, 3, 2, 1}, bottom = {9, 8, 7, 6, 5, 4};
  {
    NetcdfWriter w(path, layout(ScalarType::float64));
    w.write_static({"H", bottom.data()});
    w.append(0, {{"h", h0.data()}, {"u", u0.data()}});
    w.append(1.0 / 3, {{"u", u0.data()}, {"h", h1.data()}});
    CHECK(w.records() == 2);
    CHECK_THROWS_AS(w.append(2, {{"h", h0.data()}}), std::invalid_argument);  // u missing
    CHECK_THROWS_AS(w.append(2, {{"h", h0.data()}, {"u", u0.data()}, {"zz", u0.data()}}), std::invalid_argument);
    w.close();
  }
  NcFile f(path);
  CHECK(f.dim("time") == 2);
  CHECK(f.dim("y") == 2);
  CHECK(f.dim("x") == 3);
  CHECK(f.text(NC_GLOBAL, "Conventions") == "CF-1.8");
  CHECK(f.text(NC_GLOBAL, "case") == "unit test");
  CHECK(f.text(f.var("x"), "axis") == "X");
  CHECK(f.text(f.var("x"), "units") == "m");
  CHECK(f.text(f.var("y"), "axis") == "Y");
  CHECK(f.text(f.var("time"), "axis") == "T");
  CHECK(f.text(f.var("time"), "units") == "s");
  CHECK(f.text(f.var("h"), "units") == "m");
  CHECK(f.text(f.var("h"), "long_name") == "water depth");
  CHECK(f.text(f.var("h"), "standard_name") == "sea_floor_depth_below_sea_surface");
  CHECK(f.text(f.var("u"), "units") == "m s-1");
  CHECK(f.all("x", 3) == std::vector<double>{1005, 1015, 1025});
  CHECK(f.all("y", 2) == std::vector<double>{-30, -10});
  CHECK(f.all("time", 2) == std::vector<double>{0, 1.0 / 3});
  CHECK(f.record("h", 0, 2, 3) == h0);
  CHECK(f.record("u", 0, 2, 3) == u0);
  CHECK(f.record("h", 1, 2, 3) == h1);
  CHECK(f.all("H", 6) == bottom);
  int dims[3] = {};
  int ndims = 0;
  REQUIRE(nc_inq_var(f.id, f.var("h"), nullptr, nullptr, &ndims, dims, nullptr) == NC_NOERR);
  REQUIRE(ndims == 3);
  char name[NC_MAX_NAME + 1];
  const char* expected[3] = {"time", "y", "x"};
  for (int k = 0; k < 3; ++k) {
    REQUIRE(nc_inq_dimname(f.id, dims[k], name) == NC_NOERR);
    CHECK(std::string(name) == expected[k]);
  }
}

TEST_CASE("netcdf: a coordinate system is a CF grid mapping that every data variable names", "[io][netcdf]") {
  TempDir dir;
  const std::string wkt = "PROJCS[\"WGS 84 / UTM zone 31N\",GEOGCS[\"WGS 84\"],UNIT[\"metre\",1]]\n";
  const std::vector<double> values = {1, 2, 3, 4, 5, 6};
  for (const bool with : {true, false}) {
    CAPTURE(with);
    NetcdfLayout l = layout(ScalarType::float64);
    if (with) l.projection = wkt;
    {
      NetcdfWriter w(dir / "run.nc", l);
      w.write_static({"H", values.data()});
      w.append(0, {{"h", values.data()}, {"u", values.data()}});
      w.close();
    }
    NcFile f(dir / "run.nc");
    int crs = -1;
    const int found = nc_inq_varid(f.id, "crs", &crs);
    if (!with) {
      CHECK(found == NC_ENOTVAR);
      for (const char* v : {"h", "u", "H"}) CHECK(f.text(f.var(v), "grid_mapping") == "(none)");
      continue;
    }
    REQUIRE(found == NC_NOERR);
    CHECK(f.text(crs, "crs_wkt") == wkt);
    CHECK(f.text(crs, "spatial_ref") == wkt);
    int ndims = -1, value = -1;
    REQUIRE(nc_inq_varndims(f.id, crs, &ndims) == NC_NOERR);
    CHECK(ndims == 0);
    REQUIRE(nc_get_var_int(f.id, crs, &value) == NC_NOERR);
    CHECK(value == 0);
    for (const char* v : {"h", "u", "H"}) CHECK(f.text(f.var(v), "grid_mapping") == "crs");
    for (const char* v : {"x", "y", "time"}) CHECK(f.text(f.var(v), "grid_mapping") == "(none)");
    // A field of that name would clash with the grid mapping.
    l.static_fields.push_back({"crs", "", "", ""});
    CHECK_THROWS_AS(NetcdfWriter(dir / "clash.nc", l), std::invalid_argument);
  }
}

TEST_CASE("netcdf: float fields are stored as float", "[io][netcdf]") {
  TempDir dir;
  const std::vector<float> h = {1.5f, 2, 3, 4, 5, 6.25f}, u(6, 0.1f), bottom(6, 1);
  NetcdfWriter w(dir / "f.nc", layout(ScalarType::float32));
  w.write_static({"H", bottom.data()});
  w.append(0, {{"h", h.data()}, {"u", u.data()}});
  // Doubles are stored as the nearest floats (output.precision = "single" in a double build).
  const std::vector<double> wide = {0.1, 1.0 / 3, std::nan(""), -2.5e-7, 1e30, 6.25};
  w.append(1, {{"h", wide.data()}, {"u", u.data()}});
  w.close();
  NcFile f(dir / "f.nc");
  nc_type type = NC_NAT;
  REQUIRE(nc_inq_vartype(f.id, f.var("h"), &type) == NC_NOERR);
  CHECK(type == NC_FLOAT);
  std::vector<float> back(6), narrowed(6);
  const std::size_t first[3] = {0, 0, 0}, second[3] = {1, 0, 0}, count[3] = {1, 2, 3};
  REQUIRE(nc_get_vara_float(f.id, f.var("u"), first, count, back.data()) == NC_NOERR);
  CHECK(back == u);
  CHECK(f.record("h", 0, 2, 3) == std::vector<double>{1.5, 2, 3, 4, 5, 6.25});
  REQUIRE(nc_get_vara_float(f.id, f.var("h"), second, count, narrowed.data()) == NC_NOERR);
  for (std::size_t k = 0; k < wide.size(); ++k) {
    INFO(k);
    if (std::isnan(wide[k])) CHECK(std::isnan(narrowed[k]));
    else CHECK(narrowed[k] == static_cast<float>(wide[k]));
  }

  // Floats do not widen into a double variable.
  NetcdfWriter d(dir / "d.nc", layout(ScalarType::float64));
  CHECK_THROWS_AS(d.append(0, {{"h", h.data()}, {"u", u.data()}}), std::invalid_argument);
}

TEST_CASE("netcdf: resuming drops the records after the restart time", "[io][netcdf]") {
  TempDir dir;
  const std::string path = dir / "run.nc";
  const NetcdfLayout l = layout(ScalarType::float64);
  std::vector<double> h(6), u(6, 0), bottom(6, 3);
  {
    NetcdfWriter w(path, l);
    w.write_static({"H", bottom.data()});
    for (int r = 0; r < 4; ++r) {
      std::fill(h.begin(), h.end(), r);
      w.append(r * 10.0, {{"h", h.data()}, {"u", u.data()}});
    }
  }
  {
    NetcdfWriter w = NetcdfWriter::resume(path, l, 10);
    CHECK(w.records() == 2);
    std::fill(h.begin(), h.end(), 42);
    w.append(15, {{"h", h.data()}, {"u", u.data()}});
  }
  {
    NcFile f(path);
    CHECK(f.all("time", 3) == std::vector<double>{0, 10, 15});
    CHECK(f.dim("time") == 3);
    CHECK(f.record("h", 1, 2, 3) == std::vector<double>(6, 1));
    CHECK(f.record("h", 2, 2, 3) == std::vector<double>(6, 42));
    CHECK(f.all("H", 6) == bottom);
  }
  // Nothing to drop: append in place.
  NetcdfWriter w = NetcdfWriter::resume(path, l, 100);
  CHECK(w.records() == 3);
  w.close();
  CHECK(dir.files() == std::vector<std::string>{"run.nc"});

  NetcdfLayout other = l;
  other.grid.nx = 4;
  CHECK_THROWS_MATCHES(NetcdfWriter::resume(path, other, 10), shwa::io::InputError,
                       Catch::Message(path + ": cannot resume: the file's grid is 3 x 2, this run's 4 x 2"));
  other = l;
  other.fields.push_back({"c", "1", "pollutant concentration", ""});
  CHECK_THROWS_WITH(NetcdfWriter::resume(path, other, 10),
                    path + ": cannot resume: no variable c: NetCDF: Variable not found");
}

TEST_CASE("netcdf: the records a restart keeps are counted from the bytes on disk; a cut or corrupt file is refused",
          "[io][netcdf]") {
  TempDir dir;
  const std::string path = dir / "run.nc";
  const NetcdfLayout l = layout(ScalarType::float64);
  std::vector<double> h(6, 1), u(6, 0), bottom(6, 3);
  auto write_file = [&](const std::vector<double>& times) {
    NetcdfWriter w(path, l);
    w.write_static({"H", bottom.data()});
    for (double t : times) w.append(t, {{"h", h.data()}, {"u", u.data()}});
  };
  write_file({0, 10, 20, 30});
  CHECK(NetcdfWriter::resumable_records(path, l, 20) == 3);
  CHECK(NetcdfWriter::resumable_records(path, l, 100) == 4);
  CHECK(NetcdfWriter::resumable_records(path, l, -1) == 0);
  // Bytes past the records the header lists (a kill in the middle of the next record's write,
  // before the header counted it) are no record: the listed ones are kept.
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size + 50);
  CHECK(NetcdfWriter::resumable_records(path, l, 100) == 4);
  // A record is 8 bytes of time and two fields of 6 doubles: cut 50 bytes, the last record is
  // not whole, and whether a restart needs it cannot be told.
  std::filesystem::resize_file(path, size - 50);
  for (double up_to : {20.0, 30.0})
    CHECK_THROWS_WITH(NetcdfWriter::resumable_records(path, l, up_to),
                      path + ": cannot resume: the file is cut short: its header lists 4 records, 3 of which are "
                             "whole in its " + std::to_string(size - 50) + " bytes (" + std::to_string(size) +
                             " bytes whole)");
  // Cut in the middle of the records: the same.
  std::filesystem::resize_file(path, size / 2 + 10);
  CHECK_THROWS_AS(NetcdfWriter::resume(path, l, 10), shwa::io::InputError);
  // Cut in the header, or empty, or missing.
  std::filesystem::resize_file(path, 40);
  CHECK_THROWS_AS(NetcdfWriter::resumable_records(path, l, 20), shwa::io::InputError);
  std::filesystem::resize_file(path, 0);
  CHECK_THROWS_AS(NetcdfWriter::resumable_records(path, l, 20), shwa::io::InputError);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(NetcdfWriter::resumable_records(path, l, 20), path + ": cannot resume: the file is missing");
  // Times that do not increase: the file is corrupt.
  write_file({0, 10, 5});
  CHECK_THROWS_WITH(NetcdfWriter::resumable_records(path, l, 20),
                    path + ": cannot resume: record 2 has time 5 after 10 in record 1; the times of a file shwa "
                           "wrote increase (the file is corrupt)");
}

TEST_CASE("netcdf: an unwritable place is an OutputError", "[io][netcdf]") {
  TempDir dir;
  CHECK_THROWS_AS(NetcdfWriter(dir / "missing/run.nc", layout(ScalarType::float64)), shwa::io::OutputError);
}
