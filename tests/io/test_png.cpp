#include "io/png.hpp"

#include <png.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "io_test_util.hpp"

using shwa::io::FieldRef;
using shwa::io::PngStyle;
using shwa::io::viridis;
using shwa::io::test::TempDir;

namespace {

struct Image {
  unsigned width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
  std::array<std::uint8_t, 4> at(unsigned x, unsigned y) const {
    const std::size_t k = (static_cast<std::size_t>(y) * width + x) * 4;
    return {rgba[k], rgba[k + 1], rgba[k + 2], rgba[k + 3]};
  }
};

Image read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_file(&image, path.c_str()));
  image.format = PNG_FORMAT_RGBA;
  Image out;
  out.width = image.width;
  out.height = image.height;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr));
  return out;
}

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
