#pragma once
// The parts of the PNG format that the PNG and APNG writers share (io/png.hpp, io/apng.hpp):
// the signature, chunks with their CRCs, and the image data of an 8-bit RGBA image.
//
// The image data is every row preceded by filter type 0 (None), compressed by zlib at its default
// level (6): quicklooks' wide even areas (transparent dry land, the colour bands of smooth water)
// compress better unfiltered than with libpng's adaptive filters, and in a third of the time
// (perf/results/, session 38). Pieces of whole rows are compressed on several threads at once,
// each as a deflate stream that ends on a byte boundary and starts from the 32 KiB of data before
// it (its dictionary), then joined into the one zlib stream the format has.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/threads.hpp"

namespace shwa::io::png_format {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
// The most image data one IDAT or fdAT chunk carries: far below the format's 2^31 - 1 bytes a
// chunk, so that fdAT's 4 extra bytes never overflow it.
inline constexpr std::size_t kMaxChunkData = std::size_t(1) << 20;

void put_u32(Bytes& b, std::uint32_t v);
std::uint32_t get_u32(const std::uint8_t* p);

/// The IHDR of an 8-bit RGBA image, not interlaced.
Bytes rgba_ihdr(std::uint32_t width, std::uint32_t height);

/// The image data (the zlib stream that IDAT chunks carry) of width x height RGBA pixels, row by
/// row from the top, 4 bytes a pixel, handed to `put` in pieces of at most kMaxChunkData bytes.
/// `name` (a file) is what an error names. The pieces are compressed on `workers`; the bytes do
/// not depend on how many.
void rgba_image_data(std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba, const std::string& name,
                     const std::function<void(const std::uint8_t*, std::size_t)>& put, const Workers& workers = {});

/// The pieces rgba_image_data compresses a width x height image in (whole rows, about 1 MiB of raw
/// bytes each): the most workers it keeps busy.
std::size_t rgba_pieces(std::uint32_t width, std::uint32_t height);

/// Chunks (length, type, data, CRC) written to a file.
class ChunkWriter {
 public:
  explicit ChunkWriter(AtomicFile& out) : out_(out) {}
  void put(const char* type, const std::uint8_t* data, std::size_t n);
  void put(const char* type, const Bytes& data) { put(type, data.data(), data.size()); }

 private:
  AtomicFile& out_;
};

/// A whole PNG of width x height RGBA pixels: signature, IHDR, sRGB, IDAT chunks, IEND.
void write_rgba_png(AtomicFile& out, std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba,
                    const Workers& workers = {});

}  // namespace shwa::io::png_format
