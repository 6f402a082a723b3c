#include "io/raster.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "io_test_util.hpp"

using shwa::io::check_same_grid;
using shwa::Domain;
using shwa::io::InputError;
using shwa::io::OutputError;
using shwa::io::Raster;
using shwa::io::read_esri_ascii;
using shwa::io::write_esri_ascii;
using shwa::io::projection_is_geographic;
using shwa::io::projection_name;
using shwa::io::projection_path;
using shwa::io::read_projection;
using shwa::io::write_projection;
using shwa::io::test::slurp;
using shwa::io::test::spit;
using shwa::io::test::data_file;
using shwa::io::test::TempDir;

namespace {

const char* kHeader = "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// shwa::io::parse_esri_ascii as a run calls it (one worker, one piece for a small text), and
// checked against the same text cut into pieces of one line or a few, read by three workers:
// the same values bit for bit, or the same error. Every test below goes through it.
Raster parse_esri_ascii(std::string_view text, const std::string& name) {
  std::string error;
  Raster one;
  try {
    one = shwa::io::parse_esri_ascii(text, name);
  } catch (const InputError& e) {
    error = e.what();
  }
  for (const std::size_t piece_bytes : {1, 5, 23}) {
    INFO("pieces of " << piece_bytes << " bytes");
    std::string again;
    Raster many;
    try {
      many = shwa::io::parse_esri_ascii(text, name, {3, nullptr}, piece_bytes);
    } catch (const InputError& e) {
      again = e.what();
    }
    CHECK(again == error);
    REQUIRE(many.v.size() == one.v.size());
    for (std::size_t k = 0; k < one.v.size(); ++k) REQUIRE(same_bits(many.v[k], one.v[k]));
  }
  if (!error.empty()) throw InputError(error);
  return one;
}

}  // namespace

TEST_CASE("raster: rows are read north to south into j = 0 south, NODATA becomes NaN", "[io][raster]") {
  const Raster r = read_esri_ascii(data_file("small.asc"));
  CHECK(r.nx == 4);
  CHECK(r.ny == 3);
  CHECK(r.dx == 10);
  CHECK(r.dy == 10);
  CHECK(r.x0 == 100);
  CHECK(r.y0 == 200);
  CHECK(r.at(0, 0) == 9);   // south-west: first value of the last file row
  CHECK(r.at(3, 0) == 12);
  CHECK(r.at(0, 2) == 1);   // north-west: the first value of the file
  CHECK(r.at(3, 2) == 4);
  CHECK(std::isnan(r.at(1, 1)));
  CHECK(r.at(2, 1) == 7);
  CHECK(r.xc(0) == 105);
  CHECK(r.yc(2) == 225);
}

TEST_CASE("raster: header variants", "[io][raster]") {
  // Centre coordinates, dx/dy, keys in any case, CRLF line ends, a row wrapped over lines, blank
  // lines.
  const Raster r = parse_esri_ascii(
      "NCOLS 3\r\nNROWS 2\r\nXLLCENTER 5\r\nyllCenter 10\r\nDX 10\r\nDY 20\r\n1 2\r\n3\r\n\r\n4 5 6\r\n", "a.asc");
  CHECK(r.x0 == 0);
  CHECK(r.y0 == 0);
  CHECK(r.dx == 10);
  CHECK(r.dy == 20);
  CHECK(r.v == std::vector<double>{4, 5, 6, 1, 2, 3});
  // Without NODATA_value, -9999 is a value like any other.
  CHECK(parse_esri_ascii(std::string(kHeader) + "-9999 1\n2 3", "a.asc").at(0, 1) == -9999);
  // Classic Mac OS line ends (CR alone) are named, not read as one long line.
  CHECK_THROWS_WITH(parse_esri_ascii("ncols 2\rnrows 2\rxllcorner 0\ryllcorner 0\rcellsize 1\r1 2\r3 4\r", "a.asc"),
                    "a.asc:1: a carriage return without a line feed (classic Mac OS line ends?); save the file with "
                    "LF or CRLF line ends");
  // A UTF-8 byte order mark before the header is skipped.
  const Raster bom = parse_esri_ascii("\xEF\xBB\xBF" + std::string(kHeader) + "1 2\n3 4\n", "a.asc");
  CHECK(bom.nx == 2);
  CHECK(bom.v == std::vector<double>{3, 4, 1, 2});
}

TEST_CASE("raster: write then read gives identical values", "[io][raster]") {
  TempDir dir;
  Raster r;
  r.nx = 5;
  r.ny = 3;
  r.dx = 0.1;
  r.dy = 1.0 / 3;
  r.x0 = -1234.5678901234567;
  r.y0 = 1e-7;
  for (int k = 0; k < 15; ++k) r.v.push_back(std::sqrt(2.0) * k - 7.1 + 1e-300 * k);
  r.v[4] = std::nan("");
  r.v[7] = -9999;  // the writer must pick another NODATA value
  r.v[8] = std::numeric_limits<double>::max();
  r.v[9] = std::numeric_limits<double>::denorm_min();
  write_esri_ascii(dir / "r.asc", r);
  const Raster back = read_esri_ascii(dir / "r.asc");
  CHECK(back.nx == r.nx);
  CHECK(back.ny == r.ny);
  CHECK(same_bits(back.dx, r.dx));
  CHECK(same_bits(back.dy, r.dy));
  CHECK(same_bits(back.x0, r.x0));
  CHECK(same_bits(back.y0, r.y0));
  REQUIRE(back.v.size() == r.v.size());
  for (std::size_t k = 0; k < r.v.size(); ++k) {
    INFO("cell " << k);
    if (std::isnan(r.v[k])) CHECK(std::isnan(back.v[k]));
    else CHECK(same_bits(back.v[k], r.v[k]));
  }
  CHECK(dir.files() == std::vector<std::string>{"r.asc"});  // no temporary file left
}

TEST_CASE("raster: the file is the same whatever the workers and the bands of rows", "[io][raster]") {
  TempDir dir;
  // The text itself, on a small grid: header, rows from the north, NaN as NODATA.
  Raster small;
  small.nx = 3;
  small.ny = 2;
  small.dx = 2;
  small.dy = 0.5;
  small.x0 = 10;
  small.y0 = -1;
  small.v = {1, 0.25, std::nan(""), -3, 1e-7, 123456.5};
  write_esri_ascii(dir / "small.asc", small, small.v.data(), shwa::io::Workers{2}, 1);
  CHECK(slurp(dir / "small.asc") ==
        "ncols 3\nnrows 2\nxllcorner 10\nyllcorner -1\ndx 2\ndy 0.5\nNODATA_value -9999\n"
        "-3 1e-07 123456.5\n1 0.25 -9999\n");

  Raster r;
  r.nx = 7;
  r.ny = 23;
  r.dx = 2.5;
  r.dy = 1.5;
  for (int k = 0; k < r.nx * r.ny; ++k) r.v.push_back(k % 5 == 0 ? std::nan("") : std::cos(k) * 1000 / (k + 1));
  write_esri_ascii(dir / "one.asc", r);
  const std::string one = slurp(dir / "one.asc");
  // The writer budgets 25 bytes a value, 175 a row of 7: bands of 1 row (band_bytes 1), 2 (350)
  // and 4 (700), or an equal share of the 23 rows (the default band); one worker over 23 rounds,
  // several over a few, the last round short; more workers than rows.
  for (const auto& [workers, band_bytes] : {std::pair{1, 1}, std::pair{4, 1}, std::pair{5, 350}, std::pair{3, 700},
                                            std::pair{8, 1 << 22}, std::pair{32, 1}}) {
    INFO(workers << " workers, bands of " << band_bytes << " bytes");
    write_esri_ascii(dir / "many.asc", r, r.v.data(), shwa::io::Workers{workers}, std::size_t(band_bytes));
    CHECK(slurp(dir / "many.asc") == one);
  }
  const Raster back = read_esri_ascii(dir / "one.asc");
  REQUIRE(back.v.size() == r.v.size());
  for (std::size_t k = 0; k < r.v.size(); ++k) {
    INFO("cell " << k);
    if (std::isnan(r.v[k])) CHECK(std::isnan(back.v[k]));
    else CHECK(back.v[k] == r.v[k]);
  }
}

TEST_CASE("raster: the writer reports an unwritable place", "[io][raster]") {
  TempDir dir;
  Raster r;
  r.nx = r.ny = 1;
  r.dx = r.dy = 1;
  r.v = {1};
  CHECK_THROWS_MATCHES(write_esri_ascii(dir / "missing/r.asc", r), OutputError,
                       Catch::Message(dir / "missing/r.asc" + ": cannot write: No such file or directory"));
}

TEST_CASE("raster: missing or unreadable file", "[io][raster]") {
  TempDir dir;
  CHECK_THROWS_MATCHES(read_esri_ascii(dir / "none.asc"), InputError,
                       Catch::Message(dir / "none.asc" + ": cannot read: No such file or directory"));
  CHECK_THROWS_MATCHES(read_esri_ascii(dir.path().string()), InputError,
                       Catch::Message(dir.path().string() + ": cannot read: is a directory"));
}

TEST_CASE("raster: the grid from the header alone, with the errors a whole read gives", "[io][raster]") {
  TempDir dir;
  auto put = [&](const std::string& name, const std::string& text) {
    std::FILE* f = std::fopen((dir / name).c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return dir / name;
  };
  // A header that claims far more values than the file holds: the grid is the header's, and no
  // value is read (a whole read refuses the file).
  const std::string big = put("big.asc", "\xEF\xBB\xBFncols 40000\r\nnrows 30000\r\nxllcenter 5\r\nyllcorner -2\r\n"
                                         "dx 10\r\ndy 20\r\n1 2 3\r\n");
  const Domain g = shwa::io::read_esri_ascii_grid(big);
  CHECK(g.nx == 40000);
  CHECK(g.ny == 30000);
  CHECK(g.dx == 10);
  CHECK(g.dy == 20);
  CHECK(g.x0 == 0);
  CHECK(g.y0 == -2);
  CHECK_THROWS_AS(read_esri_ascii(big), InputError);
  // The header's errors are those of a whole read, line included.
  const std::string bad = put("bad.asc", "ncols 2\nnrows two\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n");
  std::string whole, head;
  try {
    read_esri_ascii(bad);
  } catch (const InputError& e) {
    whole = e.what();
  }
  try {
    shwa::io::read_esri_ascii_grid(bad);
  } catch (const InputError& e) {
    head = e.what();
  }
  CHECK(head == whole);
  CHECK(head.rfind(bad + ":2: nrows", 0) == 0);
  CHECK_THROWS_MATCHES(shwa::io::read_esri_ascii_grid(dir / "none.asc"), InputError,
                       Catch::Message(dir / "none.asc" + ": cannot read: No such file or directory"));
  // A header longer than the part read first is read whole.
  const std::string padded = put("padded.asc", std::string(kHeader).insert(8, std::string(70000, ' ')) + "1 2\n3 4\n");
  CHECK(shwa::io::read_esri_ascii_grid(padded).nx == 2);
}

TEST_CASE("raster: malformed headers name the line and key", "[io][raster]") {
  const auto error = [](const std::string& text) {
    try {
      parse_esri_ascii(text, "b.asc");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("ncol 2\nnrows 2\n") == "b.asc:1: malformed header: unknown key \"ncol\"; did you mean 'ncols'?");
  CHECK(error("ncols 12O\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2") ==
        "b.asc:1: ncols: expected a positive integer, got \"12O\"");
  CHECK(error("ncols 0\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2") ==
        "b.asc:1: ncols: expected a positive integer, got \"0\"");
  CHECK(error("ncols 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2") == "b.asc:5: malformed header: missing nrows");
  CHECK(error("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\n1 2") ==
        "b.asc:5: malformed header: missing cellsize (or dx and dy)");
  CHECK(error("ncols 2\nnrows 2\nyllcorner 0\ncellsize 1\n1 2") ==
        "b.asc:5: malformed header: missing xllcorner (or xllcenter)");
  CHECK(error("ncols 2\nnrows 2\nxllcorner 0\nxllcenter 0\nyllcorner 0\ncellsize 1\n1 2") ==
        "b.asc:4: both xllcorner and xllcenter given");
  CHECK(error("ncols 2\nncols 2\n") == "b.asc:2: duplicate header key ncols (first given on line 1)");
  CHECK(error("ncols\n") == "b.asc:1: ncols: missing value");
  CHECK(error("ncols 2 3\n") == "b.asc:1: ncols: unexpected text after the value: \"3\"");
  CHECK(error("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -1\n1 2") ==
        "b.asc:5: cellsize: expected a positive number, got \"-1\"");
  CHECK(error("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\ndx 1\n1 2") ==
        "b.asc:6: both cellsize and dx/dy given");
  CHECK(error("ncols 2\nnrows 2\nxllcorner abc\nyllcorner 0\ncellsize 1\n1 2") ==
        "b.asc:3: xllcorner: expected a finite number, got \"abc\"");
  CHECK(error("") == "b.asc:1: malformed header: missing ncols");
}

TEST_CASE("raster: wrong number of values", "[io][raster]") {
  CHECK_THROWS_MATCHES(parse_esri_ascii(std::string(kHeader) + "1 2\n3\n", "c.asc"), InputError,
                       Catch::Message("c.asc:7: the file ends in row 2 of 2, after 1 of its 2 values: expected 4 "
                                      "values (2 rows of 2), got 3 (a truncated file?)"));
  CHECK_THROWS_MATCHES(parse_esri_ascii(std::string(kHeader) + "1 2\n3 4\n5\n", "c.asc"), InputError,
                       Catch::Message("c.asc:8: too many values: expected 4 (2 rows of 2)"));
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 2\n3 4 5\n", "c.asc"),
                    "c.asc:7: row 2 of 2 has 3 values, expected 2 (ncols); each row starts on a new line");
  // A huge header over a short file is reported, not allocated.
  CHECK_THROWS_WITH(
      parse_esri_ascii("ncols 2000000000\nnrows 2000000000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1\n", "c.asc"),
      "c.asc:6: the file ends in row 1 of 2000000000, after 1 of its 2000000000 values: expected "
      "4000000000000000000 values (2000000000 rows of 2000000000), got 1 (a truncated file?)");
}

TEST_CASE("raster: every row has ncols values", "[io][raster]") {
  // 20 columns and 3 rows of n1, n2, n3 values, one row a line.
  const auto grid = [](int n1, int n2, int n3) {
    std::string t = "ncols 20\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 1\n";
    for (const int n : {n1, n2, n3}) {
      for (int i = 0; i < n; ++i) t += i > 0 ? " 1.5" : "1.5";
      t += "\n";
    }
    return t;
  };
  CHECK(parse_esri_ascii(grid(20, 20, 20), "g.asc").v.size() == 60);
  // Rows of 19 and 21 values: the same count in all, the wrong rows.
  CHECK_THROWS_WITH(parse_esri_ascii(grid(20, 21, 19), "g.asc"),
                    "g.asc:7: row 2 of 3 has 21 values, expected 20 (ncols); each row starts on a new line");
  CHECK_THROWS_WITH(parse_esri_ascii(grid(19, 21, 20), "g.asc"),
                    "g.asc:7: row 1 of 3, begun on line 6 with 19 values, runs past 20 values (ncols) on this line; "
                    "each row starts on a new line");
  // Every line one value short of ncols: the header is the likely culprit.
  CHECK_THROWS_WITH(parse_esri_ascii(grid(19, 19, 19), "g.asc"),
                    "g.asc:7: row 1 of 3, begun on line 6 with 19 values, runs past 20 values (ncols) on this line; "
                    "each row starts on a new line (lines of 19 values: is ncols right?)");
  // The whole grid on one line.
  CHECK_THROWS_WITH(parse_esri_ascii(grid(60, 0, 0), "g.asc"),
                    "g.asc:6: row 1 of 3 has 60 values, expected 20 (ncols); each row starts on a new line");
  // A file cut in the middle of a row, or after a whole row: the line where it ends.
  const std::string whole = grid(20, 20, 20);
  const std::string cut = whole.substr(0, whole.find("\n", whole.find("1.5")) + 40);
  CHECK_THROWS_WITH(parse_esri_ascii(cut, "g.asc"),
                    "g.asc:7: the file ends in row 2 of 3, after 10 of its 20 values: expected 60 values (3 rows of "
                    "20), got 30 (a truncated file?)");
  CHECK_THROWS_WITH(parse_esri_ascii(grid(20, 20, 0), "g.asc"),
                    "g.asc:7: the file ends after row 2 of 3: expected 60 values (3 rows of 20), got 40 (a truncated "
                    "file?)");
  // Cut in the middle of a number ("1." of "1.5"), the row is short.
  CHECK_THROWS_WITH(parse_esri_ascii(whole.substr(0, whole.size() - 42), "g.asc"),
                    Catch::StartsWith("g.asc:8: the file ends in row 3 of 3, after 10 of its 20 values"));
}

TEST_CASE("raster: NaN and infinite values are errors", "[io][raster]") {
  CHECK_THROWS_MATCHES(parse_esri_ascii(std::string(kHeader) + "1 2\n3 nan\n", "d.asc"), InputError,
                       Catch::Message("d.asc:7: value \"nan\" is not finite (mark missing data with NODATA_value)"));
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 -inf\n3 4\n", "d.asc"),
                    "d.asc:6: value \"-inf\" is not finite (mark missing data with NODATA_value)");
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 1e999\n3 4\n", "d.asc"),
                    "d.asc:6: \"1e999\" is not a number");
}

TEST_CASE("raster: non-numeric values name their line", "[io][raster]") {
  CHECK_THROWS_MATCHES(parse_esri_ascii(std::string(kHeader) + "1 2\n3 4x\n", "e.asc"), InputError,
                       Catch::Message("e.asc:7: \"4x\" is not a number"));
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1,2\n3 4\n", "e.asc"), "e.asc:6: \"1,2\" is not a number");
  // Text at the start of a line after the header is a bad value, not a header key.
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "abc 2\n3 4\n", "e.asc"), "e.asc:6: \"abc\" is not a number");
  CHECK_THROWS_WITH(parse_esri_ascii("abc 2\n3 4\n", "e.asc"), "e.asc:1: malformed header: unknown key \"abc\"");
}

TEST_CASE("raster: of several errors, the first in the file is named", "[io][raster]") {
  // A row too long before a bad value, a bad value before a row too long, and on one line:
  // a bad value before the row is full is read first; the value that would overfill it is not.
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 2\n3 4 5\nx 6\n", "f.asc"),
                    "f.asc:7: row 2 of 2 has 3 values, expected 2 (ncols); each row starts on a new line");
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 2\n3 x\n5 6 7\n", "f.asc"),
                    "f.asc:7: \"x\" is not a number");
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 x 3\n4 5\n", "f.asc"), "f.asc:6: \"x\" is not a number");
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 2 x\n4 5\n", "f.asc"),
                    "f.asc:6: row 1 of 2 has 3 values, expected 2 (ncols); each row starts on a new line");
  CHECK_THROWS_WITH(parse_esri_ascii(std::string(kHeader) + "1 2\n3 4\nnan\n", "f.asc"),
                    "f.asc:8: too many values: expected 4 (2 rows of 2)");
  // A row over two lines, blank lines between, and a bad value far below them.
  std::string t = "ncols 3\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 1\n1\n\n2 3\n4 5 6\n\n\n7 8\n9\n";
  CHECK(parse_esri_ascii(t + "10 11 12\n", "f.asc").v ==
        std::vector<double>{10, 11, 12, 7, 8, 9, 4, 5, 6, 1, 2, 3});
  CHECK_THROWS_WITH(parse_esri_ascii(t + "10 11 1x\n", "f.asc"), "f.asc:14: \"1x\" is not a number");
  CHECK_THROWS_WITH(parse_esri_ascii(t + "10 11\n", "f.asc"),
                    "f.asc:14: the file ends in row 4 of 4, after 2 of its 3 values: expected 12 values (4 rows of "
                    "3), got 11 (a truncated file?)");
}

TEST_CASE("raster: grids are compared", "[io][raster]") {
  Domain a;
  a.nx = 100;
  a.ny = 80;
  a.dx = a.dy = 10;
  Domain b = a;
  CHECK_NOTHROW(check_same_grid(a, b, "bathy.asc", "manning.asc"));
  b.x0 = 0.001;  // within a thousandth of a cell
  CHECK_NOTHROW(check_same_grid(a, b, "bathy.asc", "manning.asc"));
  b.ny = 81;
  CHECK_THROWS_MATCHES(check_same_grid(a, b, "bathy.asc", "manning.asc"), InputError,
                       Catch::Message("grid mismatch: bathy.asc has 100 x 80 cells, manning.asc has 100 x 81"));
  b = a;
  b.dy = 5;
  CHECK_THROWS_WITH(check_same_grid(a, b, "the deck", "h0.asc"),
                    "grid mismatch: the deck has cells of 10 x 10, h0.asc of 10 x 5");
  b = a;
  b.y0 = 5;
  CHECK_THROWS_WITH(check_same_grid(a, b, "the deck", "h0.asc"),
                    "grid mismatch: the deck has its lower-left corner at (0, 0), h0.asc at (0, 5)");
}

TEST_CASE("raster: a .prj beside it holds the grid's coordinate system as WKT, copied as it is", "[io][raster]") {
  TempDir dir;
  CHECK(projection_path("in/bathy.asc") == "in/bathy.prj");
  CHECK(projection_path("in.d/bathy.ASC") == "in.d/bathy.prj");
  CHECK(projection_path("bathy") == "bathy.prj");
  // ESRI's WKT 1 and OGC's WKT 2, with a byte order mark, a leading blank line and CRLF ends: read
  // back byte for byte, and written beside another raster byte for byte.
  const std::string utm = "PROJCS[\"WGS 84 / UTM zone 31N\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS "
                          "84\",6378137,298.257223563]],PRIMEM[\"Greenwich\",0],UNIT[\"degree\",0.0174532925199433]],"
                          "PROJECTION[\"Transverse_Mercator\"],UNIT[\"metre\",1]]";
  const std::string wkt2 = "\xEF\xBB\xBF\r\n  GEOGCRS[\"WGS 84\",\r\n    DATUM[\"World Geodetic System 1984\"]]\r\n";
  for (const std::string& text : {utm, wkt2, std::string("projcs(\"lower case, parentheses\")")}) {
    spit(dir / "a.prj", text);
    CHECK(read_projection(dir / "a.prj") == text);
    write_projection(dir / "out.asc", text);
    CHECK(slurp(dir / "out.prj") == text);
  }
  CHECK(projection_name(utm) == "WGS 84 / UTM zone 31N");
  CHECK(projection_name(wkt2) == "WGS 84");
  CHECK(projection_name("LOCAL_CS[]") == "");
  // Geographic systems (degrees), in WKT 1 and 2, against projected and engineering ones.
  CHECK_FALSE(projection_is_geographic(utm));
  CHECK(projection_is_geographic(wkt2));
  for (const char* g : {"GEOGCS[\"WGS 84\"]", "geogcs(\"x\")", "GEODCRS[\"x\"]", "GeographicCRS[\"x\"]", "GEODETICCRS[]"})
    CHECK(projection_is_geographic(g));
  for (const char* p : {"PROJCRS[\"x\",BASEGEOGCRS[\"WGS 84\"]]", "LOCAL_CS[\"x\"]", "ENGCRS[\"x\"]", "GEOGCSX[]"})
    CHECK_FALSE(projection_is_geographic(p));
  // Not WKT: each error names the file.
  const auto refused = [&](const std::string& text, const std::string& why) {
    spit(dir / "bad.prj", text);
    CHECK_THROWS_MATCHES(read_projection(dir / "bad.prj"), InputError,
                         Catch::Message(dir / "bad.prj" + ": not a coordinate system (.prj): " + why));
  };
  refused("", "the file is empty");
  refused(" \r\n\t\n", "the file is empty");
  refused(std::string("PROJCS[\"a\0b\"]", 13), "it holds binary data, not WKT text");
  const std::string needs = "WKT starts with a keyword and a bracket, as PROJCS[\"...\", ...] or GEOGCRS[\"...\", ...]; ";
  refused("+proj=utm +zone=31 +datum=WGS84\n", needs + "this file starts with \"+proj=utm +zone=31 +datum=WGS84\"");
  refused("EPSG:32631", needs + "this file starts with \"EPSG:32631\"");
  refused("PROJCS", needs + "this file starts with \"PROJCS\"");
  refused("PROJCS[\"" + std::string(64 * 1024, 'x') + "\"]", "larger than 64 KiB");
  CHECK_THROWS_MATCHES(read_projection(dir / "none.prj"), InputError,
                       Catch::Message(dir / "none.prj" + ": cannot read: No such file or directory"));
}
