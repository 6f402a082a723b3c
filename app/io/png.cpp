#include "io/png.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/png_format.hpp"

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

double scale_bar_metres(double max_metres) {
  if (!(max_metres > 0) || !std::isfinite(max_metres)) return 0;
  double p = std::pow(10.0, std::floor(std::log10(max_metres)));
  // log10 may land a power of ten one below or above: bring p to the decade of max_metres.
  while (p > max_metres) p /= 10;
  while (p * 10 <= max_metres) p *= 10;
  for (const double m : {5.0, 2.0})
    if (m * p <= max_metres) return m * p;
  return p;
}

std::string legend_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v == 0 ? 0.0 : v);  // no "-0"
  return buf;
}

std::string legend_time(double t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "t = %.6g s", t == 0 ? 0.0 : t);
  std::string s = buf;
  if (t >= 60 && t < 3.6e8) {
    const long r = std::lround(t);
    std::snprintf(buf, sizeof buf, " (%ld:%02ld:%02ld)", r / 3600, (r / 60) % 60, r % 60);
    s += buf;
  }
  return s;
}

namespace {

// A 5 x 9 bitmap font: 7 rows from the top of a capital to the baseline, 2 below it for
// descenders. A glyph's row is 5 bits, the leftmost column the highest.
constexpr int kGlyphW = 5, kGlyphH = 9, kAdvance = kGlyphW + 1;
struct Glyph {
  char c;
  std::uint8_t rows[kGlyphH];
};
constexpr Glyph kFont[] = {
    {'0', {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e, 0x00, 0x00}},
    {'1', {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'2', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f, 0x00, 0x00}},
    {'3', {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e, 0x00, 0x00}},
    {'4', {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02, 0x00, 0x00}},
    {'5', {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e, 0x00, 0x00}},
    {'6', {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'7', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00, 0x00}},
    {'8', {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'9', {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c, 0x00, 0x00}},
    {'a', {0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f, 0x00, 0x00}},
    {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1e, 0x00, 0x00}},
    {'c', {0x00, 0x00, 0x0e, 0x10, 0x10, 0x11, 0x0e, 0x00, 0x00}},
    {'d', {0x01, 0x01, 0x0d, 0x13, 0x11, 0x11, 0x0f, 0x00, 0x00}},
    {'e', {0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e, 0x00, 0x00}},
    {'f', {0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08, 0x00, 0x00}},
    {'g', {0x00, 0x00, 0x0f, 0x11, 0x11, 0x11, 0x0f, 0x01, 0x0e}},
    {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'i', {0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'j', {0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c}},
    {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00, 0x00}},
    {'l', {0x0c, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'m', {0x00, 0x00, 0x1a, 0x15, 0x15, 0x11, 0x11, 0x00, 0x00}},
    {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'o', {0x00, 0x00, 0x0e, 0x11, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'p', {0x00, 0x00, 0x1e, 0x11, 0x11, 0x11, 0x1e, 0x10, 0x10}},
    {'q', {0x00, 0x00, 0x0f, 0x11, 0x11, 0x11, 0x0f, 0x01, 0x01}},
    {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00, 0x00}},
    {'s', {0x00, 0x00, 0x0e, 0x10, 0x0e, 0x01, 0x1e, 0x00, 0x00}},
    {'t', {0x08, 0x08, 0x1c, 0x08, 0x08, 0x09, 0x06, 0x00, 0x00}},
    {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0d, 0x00, 0x00}},
    {'v', {0x00, 0x00, 0x11, 0x11, 0x11, 0x0a, 0x04, 0x00, 0x00}},
    {'w', {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0a, 0x00, 0x00}},
    {'x', {0x00, 0x00, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x00, 0x00}},
    {'y', {0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x0f, 0x01, 0x0e}},
    {'z', {0x00, 0x00, 0x1f, 0x02, 0x04, 0x08, 0x1f, 0x00, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c, 0x00, 0x00}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c, 0x04, 0x08}},
    {'-', {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00, 0x00, 0x00}},
    {'=', {0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00, 0x00}},
    {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00, 0x00}},
    {':', {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00, 0x00, 0x00}},
    {'/', {0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10, 0x00, 0x00}},
    {'<', {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02, 0x00, 0x00}},
    {'>', {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08, 0x00, 0x00}},
    {'?', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00, 0x00}},
};

const Glyph& glyph(char c) {
  for (const Glyph& g : kFont)
    if (g.c == c) return g;
  for (const Glyph& g : kFont)
    if (g.c == '?') return g;
  throw std::logic_error("png font: no '?'");
}

using Rgba = std::array<std::uint8_t, 4>;
constexpr Rgba kWhite{255, 255, 255, 255}, kBlack{0, 0, 0, 255};

struct Canvas {
  std::size_t width, height;
  std::vector<std::uint8_t> rgba;

  void fill(std::size_t x, std::size_t y, std::size_t w, std::size_t h, const Rgba& c) {
    for (std::size_t r = y; r < std::min(y + h, height); ++r)
      for (std::size_t k = x; k < std::min(x + w, width); ++k)
        std::copy(c.begin(), c.end(), rgba.begin() + static_cast<std::ptrdiff_t>((r * width + k) * 4));
  }
  // Text with its top-left corner at (x, y), each font pixel a square of `mag` pixels.
  void text(std::size_t x, std::size_t y, const std::string& s, std::size_t mag) {
    for (const char c : s) {
      if (c != ' ') {
        const Glyph& g = glyph(c);
        for (int r = 0; r < kGlyphH; ++r)
          for (int k = 0; k < kGlyphW; ++k)
            if (g.rows[r] & (1u << (kGlyphW - 1 - k)))
              fill(x + static_cast<std::size_t>(k) * mag, y + static_cast<std::size_t>(r) * mag, mag, mag, kBlack);
      }
      x += kAdvance * mag;
    }
  }
};

std::size_t text_width(const std::string& s, std::size_t mag) {
  return s.empty() ? 0 : (s.size() * kAdvance - 1) * mag;
}

// Where the legend's parts go: computed for an image `map_width` pixels wide; `width` is the
// image's width, at least map_width.
struct LegendLayout {
  std::size_t mag, margin, line, height, width;
  std::string vmin, vmax;
  std::size_t bar_x, bar_w;        // the colour bar
  double scale_m = 0;              // the scale bar's length in metres (0: none)
  std::size_t scale_x = 0, scale_w = 0;
  std::string scale_text;
};

LegendLayout layout_legend(std::size_t map_width, const PngStyle& style) {
  const PngLegend& l = style.legend_text;
  LegendLayout o{};
  o.mag = map_width >= 800 ? 2 : 1;
  o.margin = 4 * o.mag;
  o.line = (kGlyphH + 4) * o.mag;
  o.height = 2 * o.margin + 2 * o.line;
  o.vmin = legend_number(style.vmin);
  o.vmax = legend_number(style.vmax);
  const std::size_t gap = kAdvance * o.mag, min_bar = 64 * o.mag;
  // Line 1: title, vmin, bar, vmax.
  const std::size_t before_bar = o.margin + (l.title.empty() ? 0 : text_width(l.title, o.mag) + 2 * gap) +
                                 text_width(o.vmin, o.mag) + gap;
  const std::size_t after_bar = gap + text_width(o.vmax, o.mag) + o.margin;
  // Line 2: stamp, then the scale bar and its text, right-aligned.
  const std::size_t stamp =
      o.margin + text_width(std::string(std::max(l.stamp.size(), l.stamp_room), ' '), o.mag) + 2 * gap;
  const std::size_t scale_text_room = gap + text_width("500 km", o.mag) + o.margin;
  const std::size_t min_scale_bar = 16 * o.mag;
  o.width = std::max({map_width, before_bar + min_bar + after_bar,
                      stamp + (l.cell_size > 0 ? min_scale_bar + scale_text_room : 0)});
  o.bar_x = before_bar;
  o.bar_w = o.width - before_bar - after_bar;
  if (l.cell_size > 0) {
    const double metres_per_pixel = l.cell_size / style.scale;
    const std::size_t max_bar = std::min(o.width / 4, o.width - stamp - scale_text_room);
    o.scale_m = scale_bar_metres(static_cast<double>(max_bar) * metres_per_pixel);
    o.scale_w = static_cast<std::size_t>(std::lround(o.scale_m / metres_per_pixel));
    if (o.scale_w < 2) o.scale_m = 0;  // a cell wider than the room: no bar
    o.scale_text = o.scale_m >= 1000 ? legend_number(o.scale_m / 1000) + " km" : legend_number(o.scale_m) + " m";
    o.scale_x = o.width - o.margin - text_width(o.scale_text, o.mag) - gap - o.scale_w;
  }
  return o;
}

void draw_legend(Canvas& c, std::size_t top, const LegendLayout& o, const PngStyle& style) {
  const PngLegend& l = style.legend_text;
  c.fill(0, top, c.width, o.height, kWhite);
  const std::size_t gap = kAdvance * o.mag;
  // Line 1.
  std::size_t y = top + o.margin;
  std::size_t x = o.margin;
  if (!l.title.empty()) {
    c.text(x, y, l.title, o.mag);
    x += text_width(l.title, o.mag) + 2 * gap;
  }
  c.text(x, y, o.vmin, o.mag);
  const std::size_t bar_h = 7 * o.mag;  // a capital's height
  for (std::size_t k = 0; k < o.bar_w; ++k) {
    const auto rgb = viridis(o.bar_w > 1 ? static_cast<double>(k) / static_cast<double>(o.bar_w - 1) : 0.0);
    c.fill(o.bar_x + k, y, 1, bar_h, Rgba{rgb[0], rgb[1], rgb[2], 255});
  }
  c.text(o.bar_x + o.bar_w + gap, y, o.vmax, o.mag);
  // Line 2.
  y += o.line;
  c.text(o.margin, y, l.stamp, o.mag);
  if (o.scale_m > 0) {
    // A bar with ticks at its ends, level with the text's middle.
    c.fill(o.scale_x, y + 3 * o.mag, o.scale_w, o.mag, kBlack);
    c.fill(o.scale_x, y + o.mag, o.mag, 5 * o.mag, kBlack);
    c.fill(o.scale_x + o.scale_w - o.mag, y + o.mag, o.mag, 5 * o.mag, kBlack);
    c.text(o.scale_x + o.scale_w + gap, y, o.scale_text, o.mag);
  }
}

}  // namespace

PngSize png_image_size(std::int64_t nx, std::int64_t ny, int scale, std::size_t text_chars) {
  PngStyle style;
  style.scale = std::max(1, scale);
  style.vmin = -1.235e+05;  // the longest numbers legend_number writes
  style.vmax = 1.235e+05;
  style.legend_text.title = std::string(text_chars, 'm');
  style.legend_text.stamp_room = text_chars;
  style.legend_text.cell_size = 1;  // room for the scale bar
  const auto map_width = static_cast<std::size_t>(std::max<std::int64_t>(1, nx)) * std::size_t(style.scale);
  const LegendLayout legend = layout_legend(map_width, style);
  return {legend.width, static_cast<std::size_t>(std::max<std::int64_t>(1, ny)) * std::size_t(style.scale) + legend.height};
}

void write_png(const std::string& path, int nx, int ny, const FieldRef& field, const PngStyle& style,
               const Workers& workers, std::vector<std::uint8_t>& pixels) {
  // At most 1e8 pixels (400 MB of RGBA): a quicklook, not a poster.
  const double pixels_wanted = static_cast<double>(nx) * ny * style.scale * style.scale;
  if (nx <= 0 || ny <= 0 || style.scale <= 0 || pixels_wanted > 1e8)
    throw std::invalid_argument("write_png: " + path + ": bad image size " + std::to_string(nx) + " x " +
                                std::to_string(ny) + " cells at " + std::to_string(style.scale) + " pixels a cell");
  if (!(style.vmax >= style.vmin)) throw std::invalid_argument("write_png: " + path + ": vmax < vmin");

  const int scale = style.scale;
  const auto map_width = static_cast<std::size_t>(nx) * static_cast<std::size_t>(scale);
  const auto map_height = static_cast<std::size_t>(ny) * static_cast<std::size_t>(scale);
  LegendLayout legend{};
  if (style.legend) legend = layout_legend(map_width, style);
  const std::size_t width = style.legend ? legend.width : map_width;
  const std::size_t height = map_height + (style.legend ? legend.height : 0);
  const double span = style.vmax - style.vmin;
  // Transparent where nothing is drawn (right of a map narrower than its legend).
  pixels.assign(width * height * 4, 0);
  // Bands of whole rows, one a worker.
  const int bands = std::max(1, std::min(workers.count, ny));
  run_on_threads(Workers{bands, workers.on_start}, [&](int band) {
    for (int j = int(long(ny) * band / bands); j < int(long(ny) * (band + 1) / bands); ++j) {
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
  });
  if (style.legend) {
    Canvas canvas{width, height, std::move(pixels)};
    draw_legend(canvas, map_height, legend, style);
    pixels = std::move(canvas.rgba);
  }

  AtomicFile out(path);
  png_format::write_rgba_png(out, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height),
                             pixels.data(), workers);
  out.commit();
}

}  // namespace shwa::io
