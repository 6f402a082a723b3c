#include "io/png.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "apng_reader.hpp"
#include "io_test_util.hpp"
#include "png_decode.hpp"

using shwa::io::FieldRef;
using shwa::io::PngStyle;
using shwa::io::viridis;
using shwa::io::test::Image;
using shwa::io::test::read_png;
using shwa::io::test::TempDir;

namespace {

std::array<std::uint8_t, 4> opaque(std::array<std::uint8_t, 3> c) { return {c[0], c[1], c[2], 255}; }

}  // namespace

TEST_CASE("png: the colour map's ends and middle are viridis'", "[io][png]") {
  using C = std::array<std::uint8_t, 3>;
  CHECK(viridis(0) == C{68, 1, 84});
  CHECK(viridis(0.5) == C{0x21, 0x90, 0x8c});
  CHECK(viridis(1) == C{253, 231, 37});
  CHECK(viridis(-3) == viridis(0));
  CHECK(viridis(7) == viridis(1));
  // Perceptually ordered: the luma (Rec. 709 weights) grows along the map.
  double previous = -1;
  for (int k = 0; k <= 100; ++k) {
    const C c = viridis(k / 100.0);
    const double luma = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    CHECK(luma > previous);
    previous = luma;
  }
}

TEST_CASE("png: pixels, north up, NaN transparent or grey, scaled", "[io][png]") {
  TempDir dir;
  // 3 x 2 cells, j = 0 the southern row.
  const std::vector<double> v = {0, 5, 10, std::nan(""), 20, -1};
  PngStyle style;
  style.vmin = 0;
  style.vmax = 10;
  style.scale = 2;
  shwa::io::write_png(dir / "q.png", 3, 2, FieldRef("h", v.data()), style);
  const Image img = read_png(dir / "q.png");
  REQUIRE(img.width == 6);
  REQUIRE(img.height == 4);
  // The southern row is at the bottom of the image.
  CHECK(img.at(0, 3) == opaque(viridis(0)));
  CHECK(img.at(1, 2) == opaque(viridis(0)));
  CHECK(img.at(2, 3) == opaque(viridis(0.5)));
  CHECK(img.at(5, 2) == opaque(viridis(1)));
  CHECK(img.at(0, 0)[3] == 0);                    // NaN: transparent
  CHECK(img.at(3, 1) == opaque(viridis(1)));      // 20: clamped to vmax
  CHECK(img.at(4, 0) == opaque(viridis(0)));      // -1: clamped to vmin

  style.nan_transparent = false;
  style.scale = 1;
  const std::vector<float> f = {0, 1, 2, NAN, 4, 5};
  shwa::io::write_png(dir / "g.png", 3, 2, FieldRef("c", f.data()), style);
  const Image grey = read_png(dir / "g.png");
  CHECK(grey.at(0, 0) == std::array<std::uint8_t, 4>{128, 128, 128, 255});
  CHECK(dir.files() == std::vector<std::string>{"g.png", "q.png"});
  style.vmax = -1;
  CHECK_THROWS_AS(shwa::io::write_png(dir / "x.png", 3, 2, FieldRef("c", f.data()), style), std::invalid_argument);
}

TEST_CASE("png: an image whose data fills several IDAT chunks reads back cell for cell", "[io][png]") {
  // 1500 x 1000 cells of scattered values (hardly compressible: more than the 1 MB one IDAT chunk
  // carries), some NaN. Its 6 MB of pixels are compressed in several pieces, by one thread or
  // several: the file is the same byte for byte.
  TempDir dir;
  const int nx = 1500, ny = 1000;
  std::vector<double> v(std::size_t(nx) * ny);
  std::uint32_t x = 12345;
  for (double& c : v) {
    x = x * 1664525u + 1013904223u;
    c = (x >> 8) % 97 == 0 ? std::nan("") : double(x >> 8) / double(1u << 24);
  }
  PngStyle style;
  shwa::io::write_png(dir / "big.png", nx, ny, FieldRef("h", v.data()), style, shwa::io::Workers{4});
  shwa::io::write_png(dir / "one.png", nx, ny, FieldRef("h", v.data()), style, shwa::io::Workers{1});
  shwa::io::write_png(dir / "many.png", nx, ny, FieldRef("h", v.data()), style, shwa::io::Workers{7});
  const auto file = apng_test::as_bytes(shwa::io::test::slurp(dir / "big.png"));
  CHECK(apng_test::as_bytes(shwa::io::test::slurp(dir / "one.png")) == file);
  CHECK(apng_test::as_bytes(shwa::io::test::slurp(dir / "many.png")) == file);
  std::size_t idat = 0;
  for (const auto& [type, data] : apng_test::png_chunks(file)) idat += type == "IDAT";
  CHECK(idat >= 2);
  const Image img = read_png(dir / "big.png");
  REQUIRE(img.width == unsigned(nx));
  REQUIRE(img.height == unsigned(ny));
  std::size_t wrong = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double c = v[std::size_t(j) * nx + i];
      const auto want = std::isnan(c) ? std::array<std::uint8_t, 4>{128, 128, 128, 0} : opaque(viridis(c));
      wrong += img.at(unsigned(i), unsigned(ny - 1 - j)) != want;
    }
  CHECK(wrong == 0);
}

TEST_CASE("png: images of one pixel, one row wider than a compressed piece, or fewer rows than its dictionary",
          "[io][png]") {
  // Pieces of about 1 MiB of rows, each primed with the 32 KiB before it: a row of 300000 pixels
  // (1.2 MB) is a piece of its own; 3 rows of 100 pixels are one piece; more threads than pieces.
  TempDir dir;
  for (const auto& [nx, ny] : std::vector<std::pair<int, int>>{{1, 1}, {5, 1}, {3, 2}, {100, 3}, {300000, 1}, {300000, 3}}) {
    INFO(nx << " x " << ny);
    std::vector<double> v(std::size_t(nx) * ny);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = double((k * 7919) % 1000) / 999;
    PngStyle style;
    shwa::io::write_png(dir / "one.png", nx, ny, FieldRef("h", v.data()), style, shwa::io::Workers{1});
    shwa::io::write_png(dir / "many.png", nx, ny, FieldRef("h", v.data()), style, shwa::io::Workers{16});
    CHECK(shwa::io::test::slurp(dir / "one.png") == shwa::io::test::slurp(dir / "many.png"));
    const Image img = read_png(dir / "many.png");
    REQUIRE(img.width == unsigned(nx));
    REQUIRE(img.height == unsigned(ny));
    std::size_t wrong = 0;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) wrong += img.at(unsigned(i), unsigned(ny - 1 - j)) != opaque(viridis(v[std::size_t(j) * nx + i]));
    CHECK(wrong == 0);
  }
}

TEST_CASE("png: scale bar lengths and legend numbers", "[io][png]") {
  using shwa::io::legend_number;
  using shwa::io::scale_bar_metres;
  CHECK(scale_bar_metres(999) == 500);
  CHECK(scale_bar_metres(1000) == 1000);
  CHECK(scale_bar_metres(1999) == 1000);
  CHECK(scale_bar_metres(2000) == 2000);
  CHECK(scale_bar_metres(7) == 5);
  CHECK(scale_bar_metres(0.3) == Approx(0.2));
  CHECK(scale_bar_metres(15000) == 10000);
  CHECK(scale_bar_metres(0) == 0);
  CHECK(scale_bar_metres(-1) == 0);
  CHECK(scale_bar_metres(NAN) == 0);
  CHECK(legend_number(12) == "12");
  CHECK(legend_number(0.05) == "0.05");
  CHECK(legend_number(3600) == "3600");
  CHECK(legend_number(-0.0) == "0");
  using shwa::io::legend_time;
  CHECK(legend_time(0) == "t = 0 s");
  CHECK(legend_time(12.5) == "t = 12.5 s");
  CHECK(legend_time(600) == "t = 600 s (0:10:00)");
  CHECK(legend_time(44712) == "t = 44712 s (12:25:12)");
}

namespace {

bool same(const std::array<std::uint8_t, 4>& a, const std::array<std::uint8_t, 4>& b) { return a == b; }

}  // namespace

TEST_CASE("png: the legend below the map: a colour bar of the colour map, the time stamp, a scale bar", "[io][png]") {
  TempDir dir;
  const int nx = 300, ny = 40;
  const double dx = 10;  // metres
  std::vector<double> v(static_cast<std::size_t>(nx) * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) v[static_cast<std::size_t>(j) * nx + i] = (i % 7 == 3) ? NAN : 0.05 * i - j;
  PngStyle plain;
  plain.vmin = 0;
  plain.vmax = 12;
  shwa::io::write_png(dir / "plain.png", nx, ny, FieldRef("h", v.data()), plain);
  PngStyle style = plain;
  style.legend = true;
  style.legend_text = {"depth (m)", "t = 600 s (0:10:00)", dx};
  shwa::io::write_png(dir / "legend.png", nx, ny, FieldRef("h", v.data()), style);
  const Image a = read_png(dir / "plain.png"), img = read_png(dir / "legend.png");
  REQUIRE(img.width == a.width);
  REQUIRE(img.height > a.height + 20);  // two lines of text below the map
  // The map is the same.
  for (unsigned y = 0; y < a.height; ++y)
    for (unsigned x = 0; x < a.width; ++x) REQUIRE(same(img.at(x, y), a.at(x, y)));
  // The band below is opaque, and has text (black pixels).
  std::size_t black = 0;
  const std::array<std::uint8_t, 4> kBlack{0, 0, 0, 255}, kWhite{255, 255, 255, 255};
  for (unsigned y = a.height; y < img.height; ++y)
    for (unsigned x = 0; x < img.width; ++x) {
      REQUIRE(img.at(x, y)[3] == 255);
      black += same(img.at(x, y), kBlack);
    }
  CHECK(black > 100);

  // The colour bar: a run of pixels from viridis(0) to viridis(1), each the colour map's at its
  // place along the run, in some row of the band.
  unsigned bar_rows = 0, bar_length = 0;
  for (unsigned y = a.height; y < img.height; ++y) {
    unsigned x0 = 0;
    while (x0 < img.width && !same(img.at(x0, y), opaque(viridis(0)))) ++x0;
    if (x0 == img.width) continue;
    unsigned x1 = x0;
    while (x1 + 1 < img.width && !same(img.at(x1 + 1, y), kWhite) && !same(img.at(x1 + 1, y), kBlack)) ++x1;
    const unsigned n = x1 - x0 + 1;
    INFO("row " << y << ": a bar of " << n << " pixels from x = " << x0);
    REQUIRE(n >= 64);
    for (unsigned k = 0; k < n; ++k) REQUIRE(same(img.at(x0 + k, y), opaque(viridis(double(k) / (n - 1)))));
    ++bar_rows;
    bar_length = n;
  }
  CHECK(bar_rows >= 5);
  CHECK(bar_length > img.width / 4);

  // The scale bar: the longest run of black pixels in a row (text strokes are at most 5 pixels),
  // a round number of metres, the largest such in a quarter of the image's width.
  unsigned longest = 0;
  for (unsigned y = a.height; y < img.height; ++y) {
    unsigned run = 0;
    for (unsigned x = 0; x < img.width; ++x) {
      run = same(img.at(x, y), kBlack) ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  const double metres = longest * dx / style.scale, room = img.width / 4 * dx / style.scale;
  INFO("scale bar " << longest << " pixels, " << metres << " m; a quarter of the width is " << room << " m");
  CHECK(longest > 5);
  const double decade = std::pow(10.0, std::floor(std::log10(metres) + 1e-9));
  const double mantissa = metres / decade;
  CHECK((mantissa == Approx(1) || mantissa == Approx(2) || mantissa == Approx(5)));
  CHECK(metres <= room);
  CHECK(metres * 2.5 > room);

  // Another time stamp changes the band, not the map.
  style.legend_text.stamp = "t = 700 s (0:11:40)";
  shwa::io::write_png(dir / "later.png", nx, ny, FieldRef("h", v.data()), style);
  const Image later = read_png(dir / "later.png");
  REQUIRE(later.height == img.height);
  unsigned changed_map = 0, changed_band = 0;
  for (unsigned y = 0; y < img.height; ++y)
    for (unsigned x = 0; x < img.width; ++x)
      (y < a.height ? changed_map : changed_band) += !same(img.at(x, y), later.at(x, y));
  CHECK(changed_map == 0);
  CHECK(changed_band > 0);

  // A map narrower than its legend: the image is widened, transparent right of the map.
  const std::vector<double> small = {0, 5, 10, 1, 2, 3};
  shwa::io::write_png(dir / "small.png", 3, 2, FieldRef("h", small.data()), style);
  const Image s = read_png(dir / "small.png");
  CHECK(s.width > 100);
  CHECK(s.height > 20);
  CHECK(s.at(0, 1) == opaque(viridis(0)));
  CHECK(s.at(3, 0)[3] == 0);
  CHECK(s.at(s.width - 1, 1)[3] == 0);
}
