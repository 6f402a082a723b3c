#pragma once
// A PNG decoded by libpng into 8-bit RGBA pixels, for the tests that read back what the PNG and
// APNG writers wrote: from memory (a frame taken out of an animation), or from a file.

#include <png.h>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io_test_util.hpp"

namespace shwa::io::test {

struct Image {
  unsigned width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // row by row from the top, 4 bytes a pixel
  std::array<std::uint8_t, 4> at(unsigned x, unsigned y) const {
    const std::size_t k = (static_cast<std::size_t>(y) * width + x) * 4;
    return {rgba[k], rgba[k + 1], rgba[k + 2], rgba[k + 3]};
  }
};

// The test fails where libpng cannot read `png`.
inline Image decode_png(const std::vector<std::uint8_t>& png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_memory(&image, png.data(), png.size()));
  image.format = PNG_FORMAT_RGBA;
  Image out;
  out.width = image.width;
  out.height = image.height;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr));
  return out;
}

// The file at `path`, decoded; slurp throws where it cannot be read.
inline Image read_png(const std::string& path) {
  const std::string bytes = slurp(path);
  return decode_png(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

}  // namespace shwa::io::test
