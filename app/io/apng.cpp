#include "io/apng.hpp"

#include <png.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/error.hpp"
#include "io/png_format.hpp"

namespace shwa::io {

namespace {

using png_format::Bytes;
using png_format::get_u32;
using png_format::kMaxChunkData;
using png_format::kSignature;
using png_format::put_u32;

void put_u16(Bytes& b, unsigned v) {
  b.push_back(std::uint8_t(v >> 8));
  b.push_back(std::uint8_t(v));
}

struct Chunk {
  std::string type;
  Bytes data;
};

// A PNG as its chunks, from IHDR to IEND; every chunk's CRC checked.
struct Png {
  std::vector<Chunk> chunks;
  std::uint32_t width = 0, height = 0;
  const Chunk& ihdr() const { return chunks.front(); }
  // The image data: the IDAT chunks' data, joined.
  Bytes image_data() const {
    Bytes d;
    for (const Chunk& c : chunks)
      if (c.type == "IDAT") d.insert(d.end(), c.data.begin(), c.data.end());
    return d;
  }
  // The chunks between IHDR and the first IDAT (colour space, physical size, ...).
  std::vector<const Chunk*> header_chunks() const {
    std::vector<const Chunk*> out;
    for (std::size_t k = 1; k < chunks.size() && chunks[k].type != "IDAT"; ++k) out.push_back(&chunks[k]);
    return out;
  }
};

Png parse_png(const std::string& name, const Bytes& b) {
  const auto bad = [&](const std::string& why) -> OutputError {
    return OutputError(name + ": cannot make an animation of it: " + why);
  };
  if (b.size() < 8 || !std::equal(std::begin(kSignature), std::end(kSignature), b.begin()))
    throw bad("not a PNG file (no PNG signature)");
  Png png;
  std::size_t at = 8;
  while (true) {
    if (b.size() - at < 12) throw bad("cut short (no IEND chunk)");
    const std::uint32_t length = get_u32(&b[at]);
    if (length > 0x7fffffffu || b.size() - at - 12 < length) throw bad("cut short (no IEND chunk)");
    Chunk c;
    c.type.assign(reinterpret_cast<const char*>(&b[at + 4]), 4);
    c.data.assign(b.begin() + long(at + 8), b.begin() + long(at + 8 + length));
    if (crc32(&b[at + 4], length + 4) != get_u32(&b[at + 8 + length]))
      throw bad("chunk " + c.type + " at byte " + std::to_string(at) + ": CRC mismatch");
    at += 12 + length;
    if (png.chunks.empty() && (c.type != "IHDR" || c.data.size() != 13)) throw bad("does not begin with IHDR");
    const bool end = c.type == "IEND";
    png.chunks.push_back(std::move(c));
    if (end) break;
  }
  png.width = get_u32(png.ihdr().data.data());
  png.height = get_u32(png.ihdr().data.data() + 4);
  if (png.width == 0 || png.height == 0) throw bad("an image of no pixels");
  if (std::none_of(png.chunks.begin(), png.chunks.end(), [](const Chunk& c) { return c.type == "IDAT"; }))
    throw bad("no image data (IDAT)");
  return png;
}

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OutputError(path + ": cannot make an animation of it: cannot read it");
  Bytes b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw OutputError(path + ": cannot make an animation of it: read failed");
  return b;
}

// The frame decoded and encoded again as 8-bit RGBA on a width x height canvas (at least the
// frame's size), the frame at its top-left corner and the rest transparent.
Png onto_canvas(const std::string& name, const Bytes& file, std::uint32_t width, std::uint32_t height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, file.data(), file.size()))
    throw OutputError(name + ": cannot make an animation of it: " + image.message);
  image.format = PNG_FORMAT_RGBA;
  Bytes pixels(std::size_t(width) * height * 4, 0);
  if (image.width > width || image.height > height ||
      !png_image_finish_read(&image, nullptr, pixels.data(), png_int_32(width * 4), nullptr)) {
    png_image_free(&image);
    throw OutputError(name + ": cannot make an animation of it: " +
                      (image.message[0] ? std::string(image.message) : std::string("larger than the canvas")));
  }
  // libpng's reader gives sRGB pixels (PNG_FORMAT_RGBA), as write_rgba_png marks them.
  Png png;
  png.chunks = {{"IHDR", png_format::rgba_ihdr(width, height)},
                {"sRGB", Bytes{0}},
                {"IDAT", {}}};
  Bytes& data = png.chunks.back().data;
  png_format::rgba_image_data(width, height, pixels.data(), name,
                              [&](const std::uint8_t* d, std::size_t n) { data.insert(data.end(), d, d + n); });
  png.width = width;
  png.height = height;
  return png;
}

}  // namespace

void write_apng(const std::string& path, const std::vector<std::string>& frames, const ApngTiming& timing) {
  if (frames.empty()) throw std::invalid_argument("write_apng: " + path + ": no frames");
  // The canvas: the largest width and height of the frames.
  std::uint32_t width = 0, height = 0;
  for (const std::string& f : frames) {
    const Png png = parse_png(f, read_file(f));
    width = std::max(width, png.width);
    height = std::max(height, png.height);
  }
  const Bytes ihdr = png_format::rgba_ihdr(width, height);

  AtomicFile out(path);
  out.write(kSignature, sizeof kSignature);
  png_format::ChunkWriter w(out);
  w.put("IHDR", ihdr);
  Bytes actl;
  put_u32(actl, std::uint32_t(frames.size()));
  put_u32(actl, 0);  // plays: for ever
  w.put("acTL", actl);

  std::uint32_t sequence = 0;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Bytes file = read_file(frames[k]);
    Png png = parse_png(frames[k], file);
    if (png.ihdr().data != ihdr) png = onto_canvas(frames[k], file, width, height);
    if (k == 0)
      for (const Chunk* c : png.header_chunks())
        if (c->type != "acTL" && c->type != "fcTL" && c->type != "fdAT") w.put(c->type.c_str(), c->data);

    Bytes fctl;
    put_u32(fctl, sequence++);
    put_u32(fctl, width);
    put_u32(fctl, height);
    put_u32(fctl, 0);  // x offset
    put_u32(fctl, 0);  // y offset
    put_u16(fctl, std::min(k + 1 == frames.size() ? timing.last_ms : timing.frame_ms, 65535u));
    put_u16(fctl, 1000);  // the delay in milliseconds
    fctl.push_back(0);    // dispose op NONE
    fctl.push_back(0);    // blend op SOURCE
    w.put("fcTL", fctl);

    const Bytes data = png.image_data();
    for (std::size_t from = 0; from < data.size(); from += kMaxChunkData) {
      const auto first = data.begin() + long(from);
      const auto last = data.begin() + long(std::min(data.size(), from + kMaxChunkData));
      if (k == 0) {
        w.put("IDAT", &*first, std::size_t(last - first));
      } else {
        Bytes fdat;
        put_u32(fdat, sequence++);
        fdat.insert(fdat.end(), first, last);
        w.put("fdAT", fdat);
      }
    }
  }
  w.put("IEND", {});
  out.commit();
}

}  // namespace shwa::io
