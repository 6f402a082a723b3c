#include "io/png_format.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
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

namespace {

// The raw bytes a piece compresses: rows [r0, r1), each its filter type (0) and then the row.
void filtered_rows(const std::uint8_t* rgba, std::size_t row_bytes, std::uint32_t r0, std::uint32_t r1, Bytes& out) {
  out.assign(std::size_t(r1 - r0) * (row_bytes + 1), 0);
  for (std::uint32_t r = r0; r < r1; ++r)
    std::copy(rgba + std::size_t(r) * row_bytes, rgba + std::size_t(r + 1) * row_bytes,
              out.begin() + long(std::size_t(r - r0) * (row_bytes + 1) + 1));
}

// About this many raw bytes a piece: enough pieces for every thread on a large image, each large
// enough that its flush marker and restarted Huffman tables cost nothing that shows.
constexpr std::size_t kPieceBytes = std::size_t(1) << 20;
constexpr std::size_t kWindow = 32768;  // deflate's window: what a piece's dictionary holds

// The rows of a piece: about kPieceBytes of raw bytes, at least one row.
std::uint32_t rows_a_piece(std::uint32_t width, std::uint32_t height) {
  const std::size_t line = std::size_t(width) * 4 + 1;
  return std::uint32_t(std::max<std::size_t>(1, std::min<std::size_t>(kPieceBytes / line, height)));
}

}  // namespace

std::size_t rgba_pieces(std::uint32_t width, std::uint32_t height) {
  const std::uint32_t rows = rows_a_piece(width, height);
  return (std::size_t(height) + rows - 1) / rows;
}

void rgba_image_data(std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba, const std::string& name,
                     const std::function<void(const std::uint8_t*, std::size_t)>& put, const Workers& workers) {
  if (width == 0 || height == 0) throw std::invalid_argument(name + ": a PNG image has at least one pixel");
  const std::size_t row_bytes = std::size_t(width) * 4, line = row_bytes + 1;
  const std::uint32_t piece_rows = rows_a_piece(width, height);
  const std::size_t pieces = rgba_pieces(width, height);
  // Rows of the piece before that the dictionary needs (the window's bytes, in whole rows).
  const std::uint32_t dict_rows = std::uint32_t((kWindow + line - 1) / line);
  std::vector<Bytes> zipped(pieces);
  std::vector<uLong> adler(pieces);
  std::atomic<std::size_t> next{0};
  run_on_threads(Workers{int(std::min<std::size_t>(std::size_t(std::max(workers.count, 1)), pieces)), workers.on_start},
                 [&](int) {
    struct Stream {  // zlib's state, ended however the worker leaves
      z_stream z{};
      bool open = false;
      ~Stream() {
        if (open) deflateEnd(&z);
      }
    } s;
    Bytes raw, out;  // a piece's rows, and what it compresses to (kept only at its size)
    for (std::size_t p = next++; p < pieces; p = next++) try {
      const std::uint32_t r0 = std::uint32_t(p) * piece_rows, r1 = std::min(height, r0 + piece_rows);
      const std::uint32_t d0 = r0 > dict_rows ? r0 - dict_rows : 0;
      filtered_rows(rgba, row_bytes, d0, r1, raw);
      const std::size_t before = std::size_t(r0 - d0) * line, n = raw.size() - before;
      const std::size_t dict = std::min(before, kWindow);
      z_stream& z = s.z;
      if (!s.open) {
        // A raw deflate stream (no zlib header or check: the joined stream has one of each).
        if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
          throw OutputError(name + ": cannot start zlib to encode PNG");
        s.open = true;
      } else if (deflateReset(&z) != Z_OK) {
        throw OutputError(name + ": zlib failed to encode PNG");
      }
      if (dict > 0 && deflateSetDictionary(&z, raw.data() + before - dict, uInt(dict)) != Z_OK)
        throw OutputError(name + ": zlib failed to encode PNG");
      const bool last = p + 1 == pieces;
      // deflateBound covers a whole stream's end; a sync flush adds at most its 5-byte marker.
      out.resize(deflateBound(&z, uLong(n)) + 16);
      z.next_in = raw.data() + before;
      z.avail_in = uInt(n);
      z.next_out = out.data();
      z.avail_out = uInt(out.size());
      // The last piece ends the stream; the others end on a byte boundary in a block that is
      // not the last, so that the next piece's blocks follow them as one stream.
      const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
      if ((last ? rc != Z_STREAM_END : rc != Z_OK) || z.avail_in != 0 || z.avail_out == 0)
        throw OutputError(name + ": zlib failed to encode PNG");
      zipped[p].assign(out.begin(), out.end() - long(z.avail_out));
      adler[p] = adler32_z(adler32_z(0, nullptr, 0), raw.data() + before, n);
    } catch (...) {
      next = pieces;  // the other workers stop after their piece: the image is not written
      throw;
    }
  });
  // The zlib stream: its header (deflate, 32 KiB window, default level; a multiple of 31), the
  // pieces, and the Adler-32 of all the raw bytes, big-endian. Handed on in kMaxChunkData pieces.
  Bytes buffer{0x78, 0x9c};
  auto emit = [&](const std::uint8_t* d, std::size_t n) {
    while (n > 0) {
      const std::size_t take = std::min(n, kMaxChunkData - buffer.size());
      buffer.insert(buffer.end(), d, d + take);
      d += take, n -= take;
      if (buffer.size() == kMaxChunkData) {
        put(buffer.data(), buffer.size());
        buffer.clear();
      }
    }
  };
  uLong check = adler32_z(0, nullptr, 0);
  for (std::size_t p = 0; p < pieces; ++p) {
    emit(zipped[p].data(), zipped[p].size());
    const std::uint32_t r0 = std::uint32_t(p) * piece_rows, r1 = std::min(height, r0 + piece_rows);
    check = adler32_combine(check, adler[p], z_off_t(std::size_t(r1 - r0) * line));
    Bytes().swap(zipped[p]);
  }
  Bytes tail;
  put_u32(tail, std::uint32_t(check));
  emit(tail.data(), tail.size());
  if (!buffer.empty()) put(buffer.data(), buffer.size());
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

void write_rgba_png(AtomicFile& out, std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba,
                    const Workers& workers) {
  out.write(kSignature, sizeof kSignature);
  ChunkWriter w(out);
  w.put("IHDR", rgba_ihdr(width, height));
  w.put("sRGB", Bytes{0});  // the colours are sRGB, rendering intent perceptual
  rgba_image_data(
      width, height, rgba, out.path(), [&](const std::uint8_t* d, std::size_t n) { w.put("IDAT", d, n); }, workers);
  w.put("IEND", Bytes{});
}

}  // namespace shwa::io::png_format
