#include "io/png.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/error.hpp"

namespace shwa::io {

std::array<std::uint8_t, 3> viridis(double t) {
  static constexpr std::uint8_t kSamples[9][3] = {
      {0x44, 0x01, 0x54}, {0x47, 0x2d, 0x7b}, {0x3b, 0x52, 0x8b}, {0x2c, 0x72, 0x8e}, {0x21, 0x90, 0x8c},
      {0x27, 0xad, 0x81}, {0x5d, 0xc8, 0x63}, {0xaa, 0xdc, 0x32}, {0xfd, 0xe7, 0x25}};
  const double s = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * 8;
  const int k = std::min(static_cast<int>(s), 7);
  const double w = s - k;
  std::array<std::uint8_t, 3> rgb{};
  for (int c = 0; c < 3; ++c)
    rgb[static_cast<std::size_t>(c)] =
        static_cast<std::uint8_t>(std::lround((1 - w) * kSamples[k][c] + w * kSamples[k + 1][c]));
  return rgb;
}

void write_png(const std::string& path, int nx, int ny, const FieldRef& field, const PngStyle& style) {
  // At most 1e8 pixels (400 MB of RGBA): a quicklook, not a poster.
  const double pixels_wanted = static_cast<double>(nx) * ny * style.scale * style.scale;
  if (nx <= 0 || ny <= 0 || style.scale <= 0 || pixels_wanted > 1e8)
    throw std::invalid_argument("write_png: " + path + ": bad image size " + std::to_string(nx) + " x " +
                                std::to_string(ny) + " cells at " + std::to_string(style.scale) + " pixels a cell");
  if (!(style.vmax >= style.vmin)) throw std::invalid_argument("write_png: " + path + ": vmax < vmin");

  const int scale = style.scale;
  const auto width = static_cast<std::size_t>(nx) * static_cast<std::size_t>(scale);
  const auto height = static_cast<std::size_t>(ny) * static_cast<std::size_t>(scale);
  const double span = style.vmax - style.vmin;
  std::vector<std::uint8_t> pixels(width * height * 4);
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const double x = field.at(static_cast<long long>(j) * nx + i);
      std::array<std::uint8_t, 4> rgba{128, 128, 128, static_cast<std::uint8_t>(style.nan_transparent ? 0 : 255)};
      if (!std::isnan(x)) {
        const auto rgb = viridis(span > 0 ? (x - style.vmin) / span : 0.0);
        rgba = {rgb[0], rgb[1], rgb[2], 255};
      }
      // Image rows run from the top (north) down.
      const std::size_t row0 = static_cast<std::size_t>(ny - 1 - j) * static_cast<std::size_t>(scale);
      for (std::size_t r = row0; r < row0 + static_cast<std::size_t>(scale); ++r)
        for (std::size_t c = static_cast<std::size_t>(i) * static_cast<std::size_t>(scale);
             c < static_cast<std::size_t>(i + 1) * static_cast<std::size_t>(scale); ++c)
          std::copy(rgba.begin(), rgba.end(), pixels.begin() + static_cast<std::ptrdiff_t>((r * width + c) * 4));
    }
  }

  // libpng's simplified API reports errors in image.message instead of through longjmp.
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, nullptr))
    throw OutputError(path + ": cannot encode PNG: " + image.message);
  std::vector<std::uint8_t> png(size);
  if (!png_image_write_to_memory(&image, png.data(), &size, 0, pixels.data(), 0, nullptr))
    throw OutputError(path + ": cannot encode PNG: " + image.message);
  AtomicFile out(path);
  out.write(png.data(), size);
  out.commit();
}

}  // namespace shwa::io
