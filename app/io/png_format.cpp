#include "io/png_format.hpp"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

#include "io/checkpoint.hpp"
#include "io/error.hpp"

namespace shwa::io::png_format {

void put_u32(Bytes& b, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(std::uint8_t(v >> s));
}

std::uint32_t get_u32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}

Bytes rgba_ihdr(std::uint32_t width, std::uint32_t height) {
  Bytes d;
  put_u32(d, width);
  put_u32(d, height);
  // Bit depth 8, colour type 6 (RGBA), compression 0, filter 0, no interlace.
  d.insert(d.end(), {std::uint8_t(8), std::uint8_t(6), std::uint8_t(0), std::uint8_t(0), std::uint8_t(0)});
  return d;
}

void rgba_image_data(std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba, const std::string& name,
                     const std::function<void(const std::uint8_t*, std::size_t)>& put) {
  struct Stream {  // zlib's state, ended however the function leaves
    z_stream z{};
    ~Stream() { deflateEnd(&z); }
  } s;
  z_stream& z = s.z;
  if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) throw OutputError(name + ": cannot start zlib to encode PNG");
  Bytes out(kMaxChunkData);
  z.next_out = out.data();
  z.avail_out = uInt(out.size());
  // Feeds `in` to zlib, each full piece of output handed on; Z_FINISH ends the stream.
  auto feed = [&](const std::uint8_t* in, std::size_t n, int flush) {
    z.next_in = const_cast<Bytef*>(in);
    z.avail_in = uInt(n);
    int rc = Z_OK;
    do {
      rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) throw OutputError(name + ": zlib failed to encode PNG");
      if ((z.avail_out == 0 || rc == Z_STREAM_END) && z.avail_out < out.size()) {
        put(out.data(), out.size() - z.avail_out);
        z.next_out = out.data();
        z.avail_out = uInt(out.size());
      }
    } while (z.avail_in > 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  };
  const std::size_t row_bytes = std::size_t(width) * 4;
  Bytes row(row_bytes + 1, 0);  // filter type 0, then the row
  for (std::uint32_t r = 0; r < height; ++r) {
    std::copy(rgba + r * row_bytes, rgba + (r + 1) * row_bytes, row.begin() + 1);
    feed(row.data(), row.size(), Z_NO_FLUSH);
  }
  feed(nullptr, 0, Z_FINISH);
}

void ChunkWriter::put(const char* type, const std::uint8_t* data, std::size_t n) {
  Bytes head;
  put_u32(head, std::uint32_t(n));
  head.insert(head.end(), type, type + 4);
  Bytes tail;
  put_u32(tail, io::crc32(data, n, io::crc32(type, 4)));
  out_.write(head.data(), head.size());
  out_.write(data, n);
  out_.write(tail.data(), tail.size());
}

void write_rgba_png(AtomicFile& out, std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba) {
  out.write(kSignature, sizeof kSignature);
  ChunkWriter w(out);
  w.put("IHDR", rgba_ihdr(width, height));
  w.put("sRGB", Bytes{0});  // the colours are sRGB, rendering intent perceptual
  rgba_image_data(width, height, rgba, out.path(), [&](const std::uint8_t* d, std::size_t n) { w.put("IDAT", d, n); });
  w.put("IEND", Bytes{});
}

}  // namespace shwa::io::png_format
