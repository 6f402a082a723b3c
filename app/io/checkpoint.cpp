#include "io/checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "io/atomic_file.hpp"
#include "io/error.hpp"
#include "io/text.hpp"
#include "io/zlib_blocks.hpp"

namespace shwa::io {

// Values are copied as they lie in memory; the format is little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the checkpoint format assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'S', 'H', 'W', 'A', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kPreamble = sizeof kMagic + 4 + 8;  // magic, version, payload size
constexpr std::uint8_t kRaw = 0, kZlib = 1;               // version 2: an array's encoding
constexpr std::uint64_t kMostInflation = 1032;            // the most bytes deflate makes of one

class Writer {
 public:
  template <class T>
  void put(T x) {
    static_assert(std::is_arithmetic_v<T>);
    bytes(&x, sizeof x);
  }
  void put(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  void bytes(const void* p, std::size_t n) {
    if (n > 0) out.append(static_cast<const char*>(p), n);
  }
  std::string out;
};

class Reader {
 public:
  Reader(const std::string& data, std::size_t pos, std::size_t end, const std::string& path)
      : data_(data), pos_(pos), end_(end), path_(path) {}

  template <class T>
  T get() {
    T x;
    std::memcpy(&x, take(sizeof x), sizeof x);
    return x;
  }
  std::string get_string() {
    const auto n = get<std::uint32_t>();
    return std::string(take(n), n);
  }
  const char* take(std::size_t n) {
    // The checksum matched, so running past the end means a writer bug or a forged file.
    if (n > end_ - pos_) throw InputError(path_ + ": corrupted checkpoint: a record runs past the end");
    const char* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }
  bool at_end() const { return pos_ == end_; }

 private:
  const std::string& data_;
  std::size_t pos_, end_;
  const std::string& path_;
};

// CRC-32 lookup tables for eight bytes a step ("slicing-by-8"): t[0] is the byte-wise table of the
// reflected polynomial 0xEDB88320; t[s][b] is the CRC of byte b followed by s zero bytes.
struct Crc32Tables {
  std::uint32_t t[8][256];
};

Crc32Tables make_crc32_tables() {
  Crc32Tables x{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t c = b;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    x.t[0][b] = c;
  }
  for (int s = 1; s < 8; ++s)
    for (std::size_t b = 0; b < 256; ++b) x.t[s][b] = (x.t[s - 1][b] >> 8) ^ x.t[0][x.t[s - 1][b] & 0xFFu];
  return x;
}

const Crc32Tables kCrc32 = make_crc32_tables();

template <class T>
const HostArray<T>& array_of(const Checkpoint& c, const std::string& name, const char* kind) {
  const auto it = c.arrays.find(name);
  if (it == c.arrays.end()) throw InputError("checkpoint has no array " + quote(name));
  if (!std::holds_alternative<HostArray<T>>(it->second))
    throw InputError("checkpoint array " + quote(name) + " is not of " + kind);
  return std::get<HostArray<T>>(it->second);
}

}  // namespace

std::uint32_t crc32(const void* data, std::size_t n, std::uint32_t crc) {
  const auto& t = kCrc32.t;
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint32_t lo = 0, hi = 0;  // little-endian words (asserted above)
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^
          t[3][hi & 0xFFu] ^ t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xFFu];
  return ~crc;
}

const HostArray<double>& Checkpoint::doubles(const std::string& name) const {
  return array_of<double>(*this, name, "doubles");
}

const HostArray<float>& Checkpoint::floats(const std::string& name) const {
  return array_of<float>(*this, name, "floats");
}

void write_checkpoint(const std::string& path, const Checkpoint& c, const CheckpointEncoding& encoding) {
  // The header and metadata are assembled in memory; the arrays go to the file straight from
  // the caller's vectors (or their blocks, compressed one array at a time), the CRC running over
  // every byte as it is written, so that writing holds no second copy of the fields.
  Writer w;
  w.put(static_cast<std::uint32_t>(c.precision));
  w.put(static_cast<std::int32_t>(c.nx));
  w.put(static_cast<std::int32_t>(c.ny));
  w.put(c.time);
  w.put(c.step);
  w.put(static_cast<std::uint32_t>(c.metadata.size()));
  for (const auto& [k, v] : c.metadata) {
    w.put(k);
    w.put(v);
  }
  w.put(static_cast<std::uint32_t>(c.arrays.size()));

  AtomicFile f(path);
  // The preamble with the payload's size as 0, written over once the size is known.
  std::uint64_t payload = 0;
  Writer head;
  head.bytes(kMagic, sizeof kMagic);
  head.put(kVersion);
  head.put(payload);
  f.write(head.out.data(), head.out.size());
  std::uint32_t crc = 0;
  auto emit = [&](const void* p, std::size_t n) {
    crc = crc32(p, n, crc);
    f.write(p, n);
    payload += n;
  };
  emit(w.out.data(), w.out.size());
  // Named references, not structured bindings: C++17 lambdas may not capture those (nvcc warns).
  for (const auto& entry : c.arrays) {
    const std::string& name = entry.first;
    std::visit(
        [&](const auto& values) {
          using T = typename std::decay_t<decltype(values)>::value_type;
          const std::uint64_t bytes = values.size() * sizeof(T);
          Writer a;
          a.put(name);
          a.put(static_cast<std::uint8_t>(sizeof(T)));
          a.put(static_cast<std::uint64_t>(values.size()));
          a.put(encoding.zlib ? kZlib : kRaw);
          if (!encoding.zlib) {
            emit(a.out.data(), a.out.size());
            emit(values.data(), std::size_t(bytes));
            return;
          }
          const auto* data = reinterpret_cast<const unsigned char*>(values.data());
          const std::vector<ZlibArray> z = zlib_compress(
              {{name, bytes, [data](std::uint64_t offset, std::uint64_t, std::vector<unsigned char>&) { return data + offset; }}},
              encoding.workers, path);
          a.put(static_cast<std::uint64_t>(z[0].blocks.size()));
          for (const auto& block : z[0].blocks) a.put(static_cast<std::uint64_t>(block.size()));
          emit(a.out.data(), a.out.size());
          for (const auto& block : z[0].blocks) emit(block.data(), block.size());
        },
        entry.second);
  }
  f.write(&crc, sizeof crc);
  f.write_at(sizeof kMagic + 4, &payload, sizeof payload);
  f.commit(/*durable=*/true);
}

Checkpoint read_checkpoint(const std::string& path, const Workers& workers) {
  const std::string data = read_text_file(path);
  const auto bad = [&](const std::string& why) { return InputError(path + ": " + why); };
  if (data.size() < kPreamble || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    throw bad(data.size() < sizeof kMagic ? "not a shwa checkpoint (too short)" : "not a shwa checkpoint (bad magic)");
  Reader head(data, sizeof kMagic, kPreamble, path);
  const auto version = head.get<std::uint32_t>();
  if (version != 1 && version != kVersion)
    throw bad("checkpoint format version " + std::to_string(version) + ", this shwa reads versions 1 and " +
              std::to_string(kVersion));
  const auto payload = head.get<std::uint64_t>();
  const std::uint64_t expected = payload > std::numeric_limits<std::uint64_t>::max() - kPreamble - 4
                                     ? std::numeric_limits<std::uint64_t>::max()
                                     : kPreamble + payload + 4;
  if (data.size() != expected)
    throw bad(std::string(data.size() < expected ? "truncated" : "corrupted") + " checkpoint: " +
              std::to_string(data.size()) + " bytes, expected " + std::to_string(expected));
  std::uint32_t stored = 0;
  std::memcpy(&stored, data.data() + data.size() - 4, 4);
  // Version 1's CRC covers the preamble too; a flipped byte there is found anyway (magic, version,
  // the size against the file's).
  const std::size_t from = version == 1 ? 0 : kPreamble;
  if (crc32(data.data() + from, data.size() - 4 - from) != stored) throw bad("corrupted checkpoint: checksum mismatch");

  Reader r(data, kPreamble, data.size() - 4, path);
  Checkpoint c;
  c.precision = static_cast<int>(r.get<std::uint32_t>());
  c.nx = r.get<std::int32_t>();
  c.ny = r.get<std::int32_t>();
  c.time = r.get<double>();
  c.step = r.get<std::int64_t>();
  for (auto n = r.get<std::uint32_t>(); n > 0; --n) {
    std::string key = r.get_string();
    c.metadata[key] = r.get_string();
  }
  for (auto n = r.get<std::uint32_t>(); n > 0; --n) {
    std::string name = r.get_string();
    const auto width = r.get<std::uint8_t>();
    const auto count = r.get<std::uint64_t>();
    const auto encoding = version == 1 ? kRaw : r.get<std::uint8_t>();
    const auto corrupt = [&] { return bad("corrupted checkpoint: array " + quote(name) + " has a bad header"); };
    if ((width != 4 && width != 8) || (encoding != kRaw && encoding != kZlib) ||
        count > (encoding == kRaw ? data.size() : data.size() * kMostInflation) / width)
      throw corrupt();
    const std::uint64_t bytes = count * width;
    // The array's bytes as they lie in the file, checked to lie there before its values are
    // allocated: raw, the values; compressed, the blocks, which cannot inflate past kMostInflation
    // times their size.
    const unsigned char* p = nullptr;
    std::vector<std::uint64_t> sizes;
    if (encoding == kRaw) {
      p = reinterpret_cast<const unsigned char*>(r.take(std::size_t(bytes)));
    } else {
      const auto blocks = r.get<std::uint64_t>();
      if (blocks != (bytes + kZlibBlockBytes - 1) / kZlibBlockBytes) throw corrupt();
      sizes.resize(static_cast<std::size_t>(blocks));
      std::uint64_t total = 0;
      for (auto& size : sizes) {
        size = r.get<std::uint64_t>();
        if (size > data.size() - total) throw corrupt();
        total += size;
      }
      if (bytes > total * kMostInflation) throw corrupt();
      p = reinterpret_cast<const unsigned char*>(r.take(std::size_t(total)));
    }
    // Unset until filled whole below (or the file refused): its pages are first written by the
    // copy or the inflating workers, not zeroed here.
    HostArray<double> v8(width == 8 ? count : 0);
    HostArray<float> v4(width == 4 ? count : 0);
    void* out = width == 8 ? static_cast<void*>(v8.data()) : static_cast<void*>(v4.data());
    if (encoding == kRaw) {
      if (bytes > 0) std::memcpy(out, p, std::size_t(bytes));
    } else if (!zlib_inflate(p, sizes, out, bytes, workers)) {
      throw bad("corrupted checkpoint: array " + quote(name) + " does not inflate to its " + std::to_string(count) +
                " values");
    }
    if (width == 8) c.arrays[name] = std::move(v8);
    else c.arrays[name] = std::move(v4);
  }
  if (!r.at_end()) throw bad("corrupted checkpoint: unexpected data after the arrays");
  return c;
}

}  // namespace shwa::io
