#pragma once
// Arrays compressed with zlib in independent blocks, so that several threads compress or inflate
// one array at once: the layout of VTK's compressed arrays (io/vtk.hpp) and of compressed
// checkpoint arrays (io/checkpoint.hpp). Each block is a zlib stream (RFC 1950) of kZlibBlockBytes
// of the array, the last one of what is left.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/threads.hpp"

namespace shwa::io {

inline constexpr std::size_t kZlibBlockBytes = std::size_t(1) << 20;
/// The blocks an array of `bytes` bytes is compressed in.
inline constexpr std::uint64_t zlib_blocks(std::uint64_t bytes) { return (bytes + kZlibBlockBytes - 1) / kZlibBlockBytes; }

/// One array compressed.
struct ZlibArray {
  std::uint64_t bytes = 0;                         // uncompressed
  std::vector<std::vector<unsigned char>> blocks;  // each a zlib stream
  std::uint64_t compressed_bytes() const;
};

/// An array to compress: its size in bytes and its bytes [offset, offset + n) for a block, either
/// where they lie or converted into `scratch` (VTK's single-precision arrays).
struct ZlibSource {
  std::string name;  // for messages
  std::uint64_t bytes = 0;
  std::function<const void*(std::uint64_t offset, std::uint64_t n, std::vector<unsigned char>& scratch)> block;
};

/// Compresses `sources` at zlib's fastest level, their blocks shared out over `workers` as each
/// comes free. Throws OutputError "`what`: cannot write: zlib cannot compress NAME ..." where
/// zlib fails.
std::vector<ZlibArray> zlib_compress(const std::vector<ZlibSource>& sources, const Workers& workers,
                                     const std::string& what);

/// Inflates blocks of compressed sizes `sizes`, laid one after the other from `data`, into `out`
/// (`bytes` long), over `workers`. False (and `out` partly written) where the blocks are not the
/// ceil(bytes / kZlibBlockBytes) zlib streams of the sizes that cover `out`.
bool zlib_inflate(const unsigned char* data, const std::vector<std::uint64_t>& sizes, void* out, std::uint64_t bytes,
                  const Workers& workers);

}  // namespace shwa::io
