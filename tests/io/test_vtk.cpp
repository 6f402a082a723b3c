#include "io/vtk.hpp"

#include <catch2/catch.hpp>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>

#include "io/error.hpp"
#include "io/threads.hpp"
#include "io_test_util.hpp"
#include "vti_reader.hpp"

using shwa::Extent;
using shwa::io::FieldRef;
using shwa::Domain;
using shwa::io::PvdCollection;
using shwa::io::test::slurp;
using shwa::io::test::spit;
using shwa::io::test::TempDir;
using vti_test::read_vti;
using shwa::io::test::xml_problem;

namespace {

Domain grid() {
  Domain g;
  g.nx = 4;
  g.ny = 3;
  g.dx = 2.5;
  g.dy = 0.5;
  g.x0 = -10;
  g.y0 = 100;
  return g;
}

// The raw bytes of the appended array whose DataArray element has offset="offset".
std::string appended_array(const std::string& file, std::uint64_t offset) {
  const auto start = file.find("<AppendedData encoding=\"raw\">");
  REQUIRE(start != std::string::npos);
  const auto base = file.find('_', start) + 1;
  std::uint64_t bytes = 0;
  std::memcpy(&bytes, file.data() + base + offset, sizeof bytes);
  REQUIRE(base + offset + 8 + bytes <= file.size());
  return file.substr(base + offset + 8, bytes);
}

// The file with its binary section left out: what must be well-formed XML.
std::string xml_part(const std::string& file) {
  const auto a = file.find("<AppendedData encoding=\"raw\">");
  const auto b = file.find("</AppendedData>");
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  return file.substr(0, a) + "<AppendedData encoding=\"raw\">" + file.substr(b);
}

}  // namespace

TEST_CASE("vtk: a .vti holds the fields' exact bytes", "[io][vtk]") {
  TempDir dir;
  const Domain g = grid();
  std::vector<double> h(12), u(12);
  std::vector<float> c(12);
  for (int k = 0; k < 12; ++k) {
    h[k] = 0.1 * k + 1e-17;
    u[k] = -k / 3.0;
    c[k] = static_cast<float>(k) / 7.0f;
  }
  shwa::io::write_vti(dir / "out.vti", g, {0, 4, 0, 3}, {{"h", h.data()}, {"u", u.data()}, {"c", c.data()}}, 12.5);
  const std::string file = slurp(dir / "out.vti");
  CHECK(xml_problem(xml_part(file)) == "");
  CHECK_THAT(file, Catch::Contains("<ImageData WholeExtent=\"0 4 0 3 0 0\" Origin=\"-10 100 0\" Spacing=\"2.5 0.5 1\">"));
  CHECK_THAT(file, Catch::Contains("<Piece Extent=\"0 4 0 3 0 0\">"));
  CHECK_THAT(file, Catch::Contains("Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">12.5</DataArray>"));
  CHECK_THAT(file, Catch::Contains("<DataArray type=\"Float64\" Name=\"h\" format=\"appended\" offset=\"0\"/>"));
  CHECK_THAT(file, Catch::Contains("<DataArray type=\"Float64\" Name=\"u\" format=\"appended\" offset=\"104\"/>"));
  CHECK_THAT(file, Catch::Contains("<DataArray type=\"Float32\" Name=\"c\" format=\"appended\" offset=\"208\"/>"));
  CHECK(appended_array(file, 0) == std::string(reinterpret_cast<const char*>(h.data()), 96));
  CHECK(appended_array(file, 104) == std::string(reinterpret_cast<const char*>(u.data()), 96));
  CHECK(appended_array(file, 208) == std::string(reinterpret_cast<const char*>(c.data()), 48));
  CHECK(dir.files() == std::vector<std::string>{"out.vti"});
}

TEST_CASE("vtk: pieces and the .pvti joining them", "[io][vtk]") {
  TempDir dir;
  const Domain g = grid();
  const std::vector<Extent> pieces = {{0, 2, 0, 3}, {2, 4, 0, 3}};
  std::vector<float> west(6, 1.0f), east(6, 2.0f);
  shwa::io::write_vti(dir / "p0.vti", g, pieces[0], {{"h", west.data()}}, 0);
  shwa::io::write_vti(dir / "p1.vti", g, pieces[1], {{"h", east.data()}}, 0);
  shwa::io::write_pvti(dir / "all.pvti", g, pieces, {"p0.vti", "p1.vti"}, {{"h", west.data()}});
  const std::string p1 = slurp(dir / "p1.vti");
  CHECK_THAT(p1, Catch::Contains("<Piece Extent=\"2 4 0 3 0 0\">"));
  CHECK(appended_array(p1, 0) == std::string(reinterpret_cast<const char*>(east.data()), 24));
  const std::string pvti = slurp(dir / "all.pvti");
  CHECK(xml_problem(pvti) == "");
  CHECK_THAT(pvti, Catch::Contains("<PImageData WholeExtent=\"0 4 0 3 0 0\" GhostLevel=\"0\" Origin=\"-10 100 0\" "
                                   "Spacing=\"2.5 0.5 1\">"));
  CHECK_THAT(pvti, Catch::Contains("<PDataArray type=\"Float32\" Name=\"h\"/>"));
  CHECK_THAT(pvti, Catch::Contains("<Piece Extent=\"0 2 0 3 0 0\" Source=\"p0.vti\"/>"));
  CHECK_THAT(pvti, Catch::Contains("<Piece Extent=\"2 4 0 3 0 0\" Source=\"p1.vti\"/>"));
  CHECK_THROWS_AS(shwa::io::write_vti(dir / "bad.vti", g, {2, 5, 0, 3}, {{"h", west.data()}}, 0), std::invalid_argument);
  CHECK_THROWS_AS(shwa::io::write_pvti(dir / "bad.pvti", g, pieces, {"p0.vti"}, {}), std::invalid_argument);
}

TEST_CASE("vtk: the .pvd is valid XML after every output, and resumes", "[io][vtk]") {
  TempDir dir;
  PvdCollection pvd(dir / "run.pvd");
  const double times[] = {0, 0.1, 1.0 / 3, 10};
  for (int k = 0; k < 4; ++k) {
    pvd.add(times[k], "out_" + std::to_string(k) + ".pvti");
    const std::string xml = slurp(dir / "run.pvd");
    INFO(xml);
    CHECK(xml_problem(xml) == "");
    std::size_t n = 0;
    for (auto p = xml.find("<DataSet "); p != std::string::npos; p = xml.find("<DataSet ", p + 1)) ++n;
    CHECK(n == static_cast<std::size_t>(k + 1));
  }
  CHECK_THAT(slurp(dir / "run.pvd"),
             Catch::Contains("<DataSet timestep=\"0.3333333333333333\" group=\"\" part=\"0\" file=\"out_2.pvti\"/>"));
  CHECK(dir.files() == std::vector<std::string>{"run.pvd"});

  // A restart at t = 1/3 keeps the first three entries and continues after them.
  PvdCollection again = PvdCollection::resume(dir / "run.pvd", 1.0 / 3);
  REQUIRE(again.entries().size() == 3);
  CHECK(again.entries()[2].time == 1.0 / 3);
  CHECK(again.entries()[2].file == "out_2.pvti");
  again.add(5, "a&b.vti", 1);
  const std::string xml = slurp(dir / "run.pvd");
  CHECK(xml_problem(xml) == "");
  CHECK_THAT(xml, Catch::Contains("file=\"a&amp;b.vti\""));
  CHECK_THAT(xml, !Catch::Contains("out_3.pvti"));
  const PvdCollection third = PvdCollection::resume(dir / "run.pvd", 100);
  REQUIRE(third.entries().size() == 4);
  CHECK(third.entries()[3].file == "a&b.vti");
  CHECK(third.entries()[3].part == 1);

  CHECK(PvdCollection::resume(dir / "none.pvd", 1).entries().empty());
  spit(dir / "junk.pvd", "hello");
  CHECK_THROWS_AS(PvdCollection::resume(dir / "junk.pvd", 1), shwa::io::InputError);
}

TEST_CASE("vtk: compressed and single-precision arrays read back exactly", "[io][vtk]") {
  TempDir dir;
  // 700 x 400 cells: 2.24 MB of doubles, three blocks with a short last one; 1.12 MB of floats.
  Domain g = grid();
  g.nx = 700;
  g.ny = 400;
  const std::size_t n = 700 * 400;
  std::vector<double> h(n), eta(n);
  std::vector<float> c(n);
  for (std::size_t k = 0; k < n; ++k) {
    // Land (0 and NaN) in the west, water with values that use all their digits in the east.
    const bool wet = k % 700 >= 300;
    h[k] = wet ? 1.0 / double(k + 3) + 0.25 * double(k % 13) : 0.0;
    eta[k] = wet ? std::sin(double(k)) * 1e-3 : std::nan("");
    c[k] = wet ? float(k % 97) / 7.0f : 0.0f;
  }
  const std::vector<FieldRef> fields = {{"h", h.data()}, {"eta", eta.data()}, {"c", c.data()}};
  const Extent whole{0, g.nx, 0, g.ny};
  auto bytes = [](const auto& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };

  shwa::io::write_vti(dir / "raw.vti", g, whole, fields, 1.5);
  shwa::io::write_vti(dir / "z1.vti", g, whole, fields, 1.5, {std::nullopt, true, {1, nullptr}});
  shwa::io::write_vti(dir / "z4.vti", g, whole, fields, 1.5, {std::nullopt, true, {4, nullptr}});
  const std::string z1 = slurp(dir / "z1.vti");
  CHECK(z1 == slurp(dir / "z4.vti"));  // the threads change nothing
  CHECK(xml_problem(xml_part(z1)) == "");
  CHECK_THAT(z1, Catch::Contains("header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">"));
  const auto raw = read_vti(slurp(dir / "raw.vti")), zipped = read_vti(z1);
  CHECK(!raw.compressed);
  CHECK(zipped.compressed);
  for (const auto* f : {&raw, &zipped}) {
    CHECK(f->arrays.at("h").type == "Float64");
    CHECK(f->arrays.at("c").type == "Float32");
    CHECK(f->arrays.at("h").bytes == bytes(h));
    CHECK(f->arrays.at("eta").bytes == bytes(eta));
    CHECK(f->arrays.at("c").bytes == bytes(c));
  }
  CHECK(zipped.arrays.at("h").blocks == 3);
  CHECK(zipped.arrays.at("c").blocks == 2);
  CHECK(z1.size() < slurp(dir / "raw.vti").size() / 2);

  // Single precision: every array Float32, each value the float nearest the double.
  std::vector<float> h32(n), eta32(n);
  for (std::size_t k = 0; k < n; ++k) {
    h32[k] = static_cast<float>(h[k]);
    eta32[k] = static_cast<float>(eta[k]);
  }
  const auto f32 = shwa::io::ScalarType::float32;
  shwa::io::write_vti(dir / "s.vti", g, whole, fields, 1.5, {f32, false, {1, nullptr}});
  shwa::io::write_vti(dir / "sz.vti", g, whole, fields, 1.5, {f32, true, {3, nullptr}});
  for (const char* name : {"s.vti", "sz.vti"}) {
    INFO(name);
    const auto s = read_vti(slurp(dir / name));
    for (const char* a : {"h", "eta", "c"}) CHECK(s.arrays.at(a).type == "Float32");
    CHECK(s.arrays.at("h").bytes == bytes(h32));
    CHECK(s.arrays.at("eta").bytes == bytes(eta32));
    CHECK(s.arrays.at("c").bytes == bytes(c));
  }
  // Four bytes a value fewer for h and eta, the rest of the file within its offsets' digits.
  const auto shrunk = double(slurp(dir / "raw.vti").size()) - double(slurp(dir / "s.vti").size());
  CHECK(std::abs(shrunk - 8.0 * double(n)) < 100);
  // Double precision widens a float field exactly.
  shwa::io::write_vti(dir / "d.vti", g, whole, {{"c", c.data()}}, 1.5, {shwa::io::ScalarType::float64, true, {2, nullptr}});
  const auto d = read_vti(slurp(dir / "d.vti"));
  CHECK(d.arrays.at("c").type == "Float64");
  const std::vector<double> wide = d.values<double>("c");
  REQUIRE(wide.size() == n);
  for (std::size_t k = 0; k < n; ++k) REQUIRE(wide[k] == double(c[k]));

  // The .pvti of single-precision pieces says Float32 for a double field.
  shwa::io::write_pvti(dir / "s.pvti", g, {whole}, {"s.vti"}, fields, f32);
  CHECK_THAT(slurp(dir / "s.pvti"), Catch::Contains("<PDataArray type=\"Float32\" Name=\"h\"/>"));
  CHECK(dir.files() == std::vector<std::string>{"d.vti", "raw.vti", "s.pvti", "s.vti", "sz.vti", "z1.vti", "z4.vti"});
}

TEST_CASE("vtk: an array of whole blocks has no short last block", "[io][vtk]") {
  TempDir dir;
  Domain g = grid();
  g.nx = 512;
  g.ny = 512;  // 2 MiB of doubles: exactly two blocks
  std::vector<double> h(512 * 512);
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = double(k % 1000) * 0.5;
  shwa::io::write_vti(dir / "z.vti", g, {0, 512, 0, 512}, {{"h", h.data()}}, 0, {std::nullopt, true, {2, nullptr}});
  const std::string file = slurp(dir / "z.vti");
  const auto base = file.find('_', file.find("<AppendedData")) + 1;
  std::uint64_t header[3];
  std::memcpy(header, file.data() + base, sizeof header);
  CHECK(header[0] == 2);
  CHECK(header[1] == shwa::io::kZlibBlockBytes);
  CHECK(header[2] == 0);  // VTK's "no partial block"
  const auto z = read_vti(file);
  CHECK(z.values<double>("h") == h);
}

namespace {
std::atomic<int> g_started{0};
}  // namespace

TEST_CASE("threads: every worker runs once, new threads start with on_start, the lowest error wins", "[io][vtk]") {
  std::vector<int> ran(5, 0);
  std::atomic<int>& started = g_started;
  started = 0;
  std::thread::id caller = std::this_thread::get_id(), zero;
  shwa::io::run_on_threads(shwa::io::Workers{5, [] { ++g_started; }}, [&](int w) {
    ++ran[std::size_t(w)];
    if (w == 0) zero = std::this_thread::get_id();
  });
  CHECK(ran == std::vector<int>(5, 1));
  CHECK(started == 4);
  CHECK(zero == caller);
  shwa::io::run_on_threads(shwa::io::Workers{0, nullptr}, [&](int w) { ++ran[std::size_t(w)]; });  // at least the calling thread
  CHECK(ran[0] == 2);
  auto failing = [](int w) {
    if (w == 2 || w == 3) throw std::runtime_error("worker " + std::to_string(w));
  };
  CHECK_THROWS_WITH(shwa::io::run_on_threads(shwa::io::Workers{4, nullptr}, failing), "worker 2");
}

TEST_CASE("vtk: single precision rounds as IEEE does, to infinity only past the largest float", "[io][vtk]") {
  TempDir dir;
  Domain g = grid();
  g.nx = 6;
  g.ny = 1;
  const double top = double(std::numeric_limits<float>::max());
  // Within half a unit of the largest float it rounds to it; beyond, to infinity.
  const std::vector<double> x = {top + 1.0e31, top + 1.1e31, -1e39, std::nan(""), 0.1, -top};
  shwa::io::write_vti(dir / "s.vti", g, {0, 6, 0, 1}, {{"x", x.data()}}, 0,
                      {shwa::io::ScalarType::float32, true, {1, nullptr}});
  const std::vector<float> back = read_vti(slurp(dir / "s.vti")).values<float>("x");
  REQUIRE(back.size() == 6);
  CHECK(back[0] == std::numeric_limits<float>::max());
  CHECK(back[1] == std::numeric_limits<float>::infinity());
  CHECK(back[2] == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(back[3]));
  CHECK(back[4] == 0.1f);
  CHECK(back[5] == -std::numeric_limits<float>::max());
}
