#pragma once
// Checkpoints for restarting a run: the grid size, time, step and free-form metadata, and named
// arrays of doubles or floats, in one binary file (version 2):
//
//   "SHWACKPT"  u32 version  u64 payload size    (the payload, little-endian:)
//   u32 precision  i32 nx  i32 ny  f64 time  i64 step
//   u32 n_meta   { string key, string value }      strings are u32 length + bytes
//   u32 n_arrays { string name, u8 bytes per value (4 or 8), u64 count, u8 encoding, data }
//                data: encoding 0, the values; encoding 1, u64 n_blocks, u64 compressed size
//                of each block, the blocks (io/zlib_blocks.hpp: zlib streams of 1 MiB of the
//                values, the last of what is left)
//   u32 CRC-32 of the payload (crc32 below: zlib's crc32())
//
// Version 1 (read, no longer written) had no encoding byte (raw values), and its CRC covered the
// magic, version and size too. The file is written atomically and fsync'ed, so a kill leaves
// either the previous checkpoint or the new one. The reader refuses a truncated, corrupted or
// foreign file with an InputError naming it.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "io/host_array.hpp"
#include "io/threads.hpp"

namespace shwa::io {

struct Checkpoint {
  int precision = 8;  // bytes of the run's floating-point type, so a restart can check it
  int nx = 0, ny = 0;
  double time = 0;
  std::int64_t step = 0;
  std::map<std::string, std::string> metadata;
  // The arrays by name (a run's: each of the grid's cells, row-major, in its precision); those read
  // from a file hold every value the file gives.
  std::map<std::string, std::variant<HostArray<double>, HostArray<float>>> arrays;

  // The array `name`; throws InputError `checkpoint has no array "name"` or `checkpoint array
  // "name" is not of doubles` (floats).
  const HostArray<double>& doubles(const std::string& name) const;
  const HostArray<float>& floats(const std::string& name) const;
};

struct CheckpointEncoding {
  bool zlib = false;  // arrays compressed in blocks (lossless), on `workers`
  Workers workers;
};

// Writes the arrays one after the other, each compressed (where asked) just before it is written,
// so that no more than one array's compressed blocks are held.
void write_checkpoint(const std::string& path, const Checkpoint& c, const CheckpointEncoding& encoding = {});
// Reads a checkpoint of version 1 or 2; compressed arrays are inflated on `workers`.
Checkpoint read_checkpoint(const std::string& path, const Workers& workers = {});

// CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF), the
// value zlib's crc32() gives: crc32("123456789", 9) == 0xCBF43926. `crc` continues an earlier
// call: crc32(b, nb, crc32(a, na)) is the CRC of a followed by b.
std::uint32_t crc32(const void* data, std::size_t n, std::uint32_t crc = 0);

}  // namespace shwa::io
