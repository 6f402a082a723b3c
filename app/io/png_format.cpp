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

Bytes rgba_image_data(std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba) {
  z_stream z{};
  if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) throw OutputError("PNG: cannot start zlib");
  const std::size_t row_bytes = std::size_t(width) * 4;
  Bytes row(row_bytes + 1, 0);  // filter type 0, then the row
  Bytes out(std::max<std::size_t>(64 * 1024, deflateBound(&z, uLong((row_bytes + 1) * height)) / 8));
  z.next_out = out.data();
  z.avail_out = uInt(out.size());
  // Feeds `in` to zlib, the output growing as it fills; Z_FINISH ends the stream.
  auto feed = [&](const std::uint8_t* in, std::size_t n, int flush) {
    z.next_in = const_cast<Bytef*>(in);
    z.avail_in = uInt(n);
    int rc = Z_OK;
    do {
      if (z.avail_out == 0) {
        const std::size_t done = out.size();
        out.resize(2 * done);
        z.next_out = out.data() + done;
        z.avail_out = uInt(out.size() - done);
      }
      rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) {
        deflateEnd(&z);
        throw OutputError("PNG: zlib failed to compress the image");
      }
    } while (z.avail_in > 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  };
  for (std::uint32_t r = 0; r < height; ++r) {
    std::copy(rgba + r * row_bytes, rgba + (r + 1) * row_bytes, row.begin() + 1);
    feed(row.data(), row.size(), Z_NO_FLUSH);
  }
  feed(nullptr, 0, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
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
  const Bytes data = rgba_image_data(width, height, rgba);
  for (std::size_t from = 0; from < data.size(); from += kMaxChunkData)
    w.put("IDAT", data.data() + from, std::min(kMaxChunkData, data.size() - from));
  w.put("IEND", Bytes{});
}

}  // namespace shwa::io::png_format
