#pragma once
// A reader of animated PNG files for the tests, written from the APNG specification and apart
// from the writer (app/io/apng.cpp): it walks the chunks, checks every CRC with zlib's crc32, the
// order of the chunks and the sequence numbers, and gives each frame's control values and image
// data. What breaks the format is listed in `problems` instead of stopping the read.

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace apng_test {

using Bytes = std::vector<std::uint8_t>;

struct ApngFrame {
  std::uint32_t width = 0, height = 0, x = 0, y = 0;
  unsigned delay_num = 0, delay_den = 0, dispose = 0, blend = 0;
  Bytes data;  // the frame's IDAT (frame 0) or fdAT data (after the sequence numbers), joined
};

struct Apng {
  Bytes ihdr;  // IHDR's 13 bytes
  std::uint32_t width = 0, height = 0;
  long declared_frames = -1, plays = -1;  // acTL; -1: none
  std::vector<ApngFrame> frames;
  std::vector<std::string> problems;
};

inline std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}

inline Bytes as_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

inline Apng read_apng(const Bytes& b) {
  Apng a;
  auto problem = [&](const std::string& s) { a.problems.push_back(s); };
  static const std::uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (b.size() < 8 || !std::equal(sig, sig + 8, b.begin())) {
    problem("no PNG signature");
    return a;
  }
  std::size_t at = 8;
  long next_sequence = 0;
  bool seen_idat = false, seen_iend = false, idat_ended = false;
  for (int index = 0; at < b.size(); ++index) {
    if (seen_iend) {
      problem("bytes after IEND");
      break;
    }
    if (b.size() - at < 12) {
      problem("a chunk cut short at byte " + std::to_string(at));
      break;
    }
    const std::uint32_t n = be32(&b[at]);
    if (b.size() - at - 12 < n) {
      problem("a chunk cut short at byte " + std::to_string(at));
      break;
    }
    const std::string type(reinterpret_cast<const char*>(&b[at + 4]), 4);
    const Bytes data(b.begin() + long(at + 8), b.begin() + long(at + 8 + n));
    const auto crc = std::uint32_t(crc32(crc32(0L, Z_NULL, 0), &b[at + 4], uInt(n + 4)));
    if (crc != be32(&b[at + 8 + n])) problem("chunk " + type + " #" + std::to_string(index) + ": bad CRC");
    at += 12 + n;
    if (index == 0 && type != "IHDR") problem("the first chunk is " + type + ", not IHDR");
    if (seen_idat && type != "IDAT") idat_ended = true;
    if (type == "IHDR") {
      if (index != 0 || n != 13) problem("IHDR misplaced or of " + std::to_string(n) + " bytes");
      a.ihdr = data;
      if (n >= 8) {
        a.width = be32(&data[0]);
        a.height = be32(&data[4]);
      }
    } else if (type == "acTL") {
      if (a.declared_frames >= 0) problem("two acTL chunks");
      if (seen_idat) problem("acTL after IDAT");
      if (n != 8) problem("acTL of " + std::to_string(n) + " bytes");
      else {
        a.declared_frames = be32(&data[0]);
        a.plays = be32(&data[4]);
      }
    } else if (type == "fcTL" || type == "fdAT") {
      if (n < 4) {
        problem(type + " without a sequence number");
        continue;
      }
      const long seq = be32(&data[0]);
      if (seq != next_sequence)
        problem(type + ": sequence number " + std::to_string(seq) + ", expected " + std::to_string(next_sequence));
      next_sequence = seq + 1;
      if (type == "fcTL") {
        if (n != 26) {
          problem("fcTL of " + std::to_string(n) + " bytes");
          continue;
        }
        ApngFrame f;
        f.width = be32(&data[4]);
        f.height = be32(&data[8]);
        f.x = be32(&data[12]);
        f.y = be32(&data[16]);
        f.delay_num = unsigned(data[20]) << 8 | data[21];
        f.delay_den = unsigned(data[22]) << 8 | data[23];
        f.dispose = data[24];
        f.blend = data[25];
        if (a.frames.empty() && seen_idat) problem("the first fcTL after IDAT (the default image not a frame)");
        a.frames.push_back(f);
      } else {
        if (a.frames.size() < 2) problem("fdAT before the second fcTL");
        else a.frames.back().data.insert(a.frames.back().data.end(), data.begin() + 4, data.end());
      }
    } else if (type == "IDAT") {
      if (idat_ended) problem("IDAT chunks not consecutive");
      if (a.declared_frames < 0) problem("IDAT before acTL");
      seen_idat = true;
      if (a.frames.size() == 1) a.frames[0].data.insert(a.frames[0].data.end(), data.begin(), data.end());
      else problem("IDAT not in the first frame");
    } else if (type == "IEND") {
      seen_iend = true;
    }
  }
  if (!seen_iend) problem("no IEND");
  if (!seen_idat) problem("no IDAT");
  if (a.declared_frames != long(a.frames.size()))
    problem("acTL declares " + std::to_string(a.declared_frames) + " frames, the file holds " +
            std::to_string(a.frames.size()));
  return a;
}

// The chunks of an ordinary PNG file: (type, data), CRCs unchecked.
inline std::vector<std::pair<std::string, Bytes>> png_chunks(const Bytes& b) {
  std::vector<std::pair<std::string, Bytes>> out;
  for (std::size_t at = 8; at + 12 <= b.size();) {
    const std::uint32_t n = be32(&b[at]);
    if (b.size() - at - 12 < n) break;
    out.emplace_back(std::string(reinterpret_cast<const char*>(&b[at + 4]), 4),
                     Bytes(b.begin() + long(at + 8), b.begin() + long(at + 8 + n)));
    at += 12 + n;
  }
  return out;
}

// The image data of an ordinary PNG file: its IDAT chunks' data, joined.
inline Bytes png_image_data(const Bytes& png) {
  Bytes d;
  for (const auto& [type, data] : png_chunks(png))
    if (type == "IDAT") d.insert(d.end(), data.begin(), data.end());
  return d;
}

// A zlib stream inflated ("" and ok = false if it is not one whole stream).
inline Bytes inflate_all(const Bytes& in, bool& ok) {
  Bytes out;
  z_stream s{};
  ok = inflateInit(&s) == Z_OK;
  if (!ok) return out;
  s.next_in = const_cast<Bytef*>(in.data());
  s.avail_in = uInt(in.size());
  std::uint8_t buf[1 << 15];
  int rc = Z_OK;
  while (rc == Z_OK) {
    s.next_out = buf;
    s.avail_out = sizeof buf;
    rc = inflate(&s, Z_NO_FLUSH);
    out.insert(out.end(), buf, buf + (sizeof buf - s.avail_out));
    if (rc == Z_BUF_ERROR && s.avail_in == 0) break;
  }
  ok = rc == Z_STREAM_END && s.avail_in == 0;
  inflateEnd(&s);
  return out;
}

// A PNG file of one frame of the animation: its IHDR with the frame's size, the frame's image
// data as one IDAT, IEND (for a PNG decoder).
inline Bytes frame_as_png(const Apng& a, const ApngFrame& f) {
  Bytes out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  auto put32 = [](Bytes& b, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(std::uint8_t(v >> s));
  };
  auto chunk = [&](const char* type, const Bytes& data) {
    put32(out, std::uint32_t(data.size()));
    Bytes td(type, type + 4);
    td.insert(td.end(), data.begin(), data.end());
    out.insert(out.end(), td.begin(), td.end());
    put32(out, std::uint32_t(crc32(crc32(0L, Z_NULL, 0), td.data(), uInt(td.size()))));
  };
  Bytes ihdr = a.ihdr;
  Bytes size;
  put32(size, f.width);
  put32(size, f.height);
  std::copy(size.begin(), size.end(), ihdr.begin());
  chunk("IHDR", ihdr);
  chunk("IDAT", f.data);
  chunk("IEND", {});
  return out;
}

}  // namespace apng_test
