#include "io/vtk.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

#include "io/error.hpp"
#include "io_test_util.hpp"

using shwa::Extent;
using shwa::io::FieldRef;
using shwa::Domain;
using shwa::io::PvdCollection;
using shwa::io::test::slurp;
using shwa::io::test::spit;
using shwa::io::test::TempDir;
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
