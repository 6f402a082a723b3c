#pragma once
// A reader of the .vti files shwa writes, for the tests: it follows VTK's description of the
// appended section (UInt64 headers; raw arrays, or zlib blocks where the VTKFile element names
// vtkZLibDataCompressor) and knows nothing of the writer's code. Each block is inflated with
// zlib's uncompress and must give exactly the size its header announces.

#include <zlib.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace vti_test {

struct VtiArray {
  std::string type;   // "Float32" or "Float64"
  std::string bytes;  // the values, uncompressed
  std::size_t blocks = 0;  // zlib blocks (0: raw)
};

struct VtiFile {
  bool compressed = false;
  std::map<std::string, VtiArray> arrays;  // by Name

  template <class T>
  std::vector<T> values(const std::string& name) const {
    const std::string& b = arrays.at(name).bytes;
    REQUIRE(b.size() % sizeof(T) == 0);
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), b.size());
    return v;
  }
};

namespace detail {

inline std::string attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto a = element.find(key);
  if (a == std::string::npos) return "";
  const auto b = element.find('"', a + key.size());
  REQUIRE(b != std::string::npos);
  return element.substr(a + key.size(), b - a - key.size());
}

inline std::uint64_t u64_at(const std::string& file, std::size_t at) {
  REQUIRE(at + 8 <= file.size());
  std::uint64_t v = 0;
  std::memcpy(&v, file.data() + at, 8);
  return v;
}

}  // namespace detail

inline VtiFile read_vti(const std::string& file) {
  VtiFile out;
  const auto root = file.find("<VTKFile ");
  REQUIRE(root != std::string::npos);
  const std::string vtkfile = file.substr(root, file.find('>', root) - root);
  REQUIRE(detail::attribute(vtkfile, "header_type") == "UInt64");
  const std::string compressor = detail::attribute(vtkfile, "compressor");
  REQUIRE((compressor.empty() || compressor == "vtkZLibDataCompressor"));
  out.compressed = !compressor.empty();
  const auto appended = file.find("<AppendedData encoding=\"raw\">");
  REQUIRE(appended != std::string::npos);
  const std::size_t base = file.find('_', appended) + 1;
  for (auto p = file.find("<DataArray "); p < appended; p = file.find("<DataArray ", p + 1)) {
    const std::string element = file.substr(p, file.find('>', p) - p);
    if (detail::attribute(element, "format") != "appended") continue;
    VtiArray a;
    a.type = detail::attribute(element, "type");
    std::size_t at = base + std::size_t(std::stoull(detail::attribute(element, "offset")));
    if (!out.compressed) {
      const std::uint64_t n = detail::u64_at(file, at);
      REQUIRE(at + 8 + n <= file.size());
      a.bytes = file.substr(at + 8, std::size_t(n));
    } else {
      const std::uint64_t blocks = detail::u64_at(file, at), block = detail::u64_at(file, at + 8),
                          last = detail::u64_at(file, at + 16);
      std::size_t data = at + 24 + 8 * std::size_t(blocks);
      for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::uint64_t zsize = detail::u64_at(file, at + 24 + 8 * std::size_t(b));
        const std::uint64_t size = b + 1 == blocks && last != 0 ? last : block;
        REQUIRE(data + zsize <= file.size());
        std::string plain(std::size_t(size), '\0');
        uLongf got = uLongf(size);
        REQUIRE(uncompress(reinterpret_cast<Bytef*>(plain.data()), &got,
                           reinterpret_cast<const Bytef*>(file.data() + data), uLong(zsize)) == Z_OK);
        REQUIRE(got == size);
        a.bytes += plain;
        data += std::size_t(zsize);
      }
      a.blocks = std::size_t(blocks);
    }
    out.arrays[detail::attribute(element, "Name")] = a;
  }
  return out;
}

}  // namespace vti_test
