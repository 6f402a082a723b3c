#include "io/vtk.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/error.hpp"
#include "io/text.hpp"
#include "io/zlib_blocks.hpp"

namespace shwa::io {

namespace {

// The binary data is written as it lies in memory; the header says in which byte order.
constexpr const char* kByteOrder =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "LittleEndian" : "BigEndian";

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string xml_unescape(const std::string& s) {
  static const std::pair<const char*, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    bool replaced = false;
    for (const auto& [entity, c] : kEntities) {
      if (s.compare(i, std::char_traits<char>::length(entity), entity) == 0) {
        out += c;
        i += std::char_traits<char>::length(entity);
        replaced = true;
        break;
      }
    }
    if (!replaced) out += s[i++];
  }
  return out;
}

std::string type_name(ScalarType t) { return t == ScalarType::float64 ? "Float64" : "Float32"; }

// VTK extents count points: cells [i0, i1) span the points i0..i1. z is flat (0 0).
std::string extent_text(const Extent& e) {
  return std::to_string(e.i0) + " " + std::to_string(e.i1) + " " + std::to_string(e.j0) + " " +
         std::to_string(e.j1) + " 0 0";
}

std::string geometry_attributes(const Domain& g) {
  return "Origin=\"" + format_double(g.x0) + " " + format_double(g.y0) + " 0\" Spacing=\"" + format_double(g.dx) +
         " " + format_double(g.dy) + " 1\"";
}

void check_fields(const std::vector<FieldRef>& fields, const char* who) {
  std::set<std::string> names;
  for (const auto& f : fields)
    if (f.name.empty() || !names.insert(f.name).second)
      throw std::invalid_argument(std::string(who) + ": field names must be non-empty and distinct ('" + f.name + "')");
}

void check_extent(const Domain& g, const Extent& e, const char* who) {
  if (e.i0 < 0 || e.j0 < 0 || e.i1 > g.nx || e.j1 > g.ny || e.nx() <= 0 || e.ny() <= 0)
    throw std::invalid_argument(std::string(who) + ": piece " + extent_text(e) + " is not inside the grid");
}

// The float nearest x (IEEE rounding), where a cast is undefined too: from half a unit beyond the
// largest float, the infinity of x's sign.
float nearest_float(double x) {
  constexpr double overflow = 0x1.ffffffp127;  // FLT_MAX and half its last unit: rounds to infinity
  if (x >= overflow) return std::numeric_limits<float>::infinity();
  if (x <= -overflow) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(x);
}

// Values [first, first + count) of `f` as `type`: the field's own memory where the types agree,
// else converted into `scratch`.
const void* values_as(const FieldRef& f, ScalarType type, std::uint64_t first, std::uint64_t count,
                      std::vector<unsigned char>& scratch) {
  if (f.type == type) return static_cast<const unsigned char*>(f.data) + first * std::uint64_t(size_of(type));
  scratch.resize(std::size_t(count) * std::size_t(size_of(type)));
  if (type == ScalarType::float32) {
    const double* in = static_cast<const double*>(f.data) + first;
    float* out = reinterpret_cast<float*>(scratch.data());
    for (std::uint64_t k = 0; k < count; ++k) out[k] = nearest_float(in[k]);
  } else {
    const float* in = static_cast<const float*>(f.data) + first;
    double* out = reinterpret_cast<double*>(scratch.data());
    for (std::uint64_t k = 0; k < count; ++k) out[k] = in[k];
  }
  return scratch.data();
}

// Every field's values (as `type` where given) compressed in blocks.
std::vector<ZlibArray> compress_fields(const std::string& path, const std::vector<FieldRef>& fields,
                                       std::optional<ScalarType> type, std::uint64_t cells, const Workers& workers) {
  std::vector<ZlibSource> sources;
  for (const FieldRef& f : fields) {
    const ScalarType t = type.value_or(f.type);
    const std::uint64_t width = std::uint64_t(size_of(t));
    sources.push_back({f.name, cells * width, [&f, t, width](std::uint64_t offset, std::uint64_t n, std::vector<unsigned char>& scratch) {
                         return values_as(f, t, offset / width, n / width, scratch);
                       }});
  }
  return zlib_compress(sources, workers, path);
}

}  // namespace

void write_vti(const std::string& path, const Domain& global, const Extent& piece,
               const std::vector<FieldRef>& fields, double time, const VtiEncoding& encoding) {
  check_extent(global, piece, "write_vti");
  check_fields(fields, "write_vti");
  const auto cells = static_cast<std::uint64_t>(piece.nx()) * static_cast<std::uint64_t>(piece.ny());
  auto type_of = [&](const FieldRef& f) { return encoding.type.value_or(f.type); };
  const std::vector<ZlibArray> zipped =
      encoding.zlib ? compress_fields(path, fields, encoding.type, cells, encoding.workers) : std::vector<ZlibArray>();

  std::string head = std::string("<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"") +
                     kByteOrder + "\" header_type=\"UInt64\"" +
                     (encoding.zlib ? " compressor=\"vtkZLibDataCompressor\"" : "") + ">\n";
  head += "  <ImageData WholeExtent=\"" + extent_text(piece) + "\" " + geometry_attributes(global) + ">\n";
  head += "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">" +
          format_double(time) + "</DataArray>\n    </FieldData>\n";
  head += "    <Piece Extent=\"" + extent_text(piece) + "\">\n";
  head += "      <CellData" + (fields.empty() ? std::string() : " Scalars=\"" + xml_escape(fields[0].name) + "\"") + ">\n";
  // Raw, each array in the appended section is its size in bytes (UInt64) followed by the values;
  // compressed, its block header followed by the blocks.
  std::uint64_t offset = 0;
  for (std::size_t a = 0; a < fields.size(); ++a) {
    const FieldRef& f = fields[a];
    head += "        <DataArray type=\"" + type_name(type_of(f)) + "\" Name=\"" + xml_escape(f.name) +
            "\" format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
    offset += encoding.zlib ? sizeof(std::uint64_t) * (3 + zipped[a].blocks.size()) + zipped[a].compressed_bytes()
                            : sizeof(std::uint64_t) + cells * static_cast<std::uint64_t>(size_of(type_of(f)));
  }
  head += "      </CellData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n   _";

  AtomicFile out(path);
  out.write(head);
  if (encoding.zlib) {
    for (const ZlibArray& z : zipped) {
      std::vector<std::uint64_t> header = {z.blocks.size(), kZlibBlockBytes, z.bytes % kZlibBlockBytes};
      for (const auto& b : z.blocks) header.push_back(b.size());
      out.write(header.data(), header.size() * sizeof(std::uint64_t));
      for (const auto& b : z.blocks) out.write(b.data(), b.size());
    }
  } else {
    std::vector<unsigned char> scratch;
    for (const auto& f : fields) {
      const ScalarType t = type_of(f);
      const std::uint64_t bytes = cells * static_cast<std::uint64_t>(size_of(t));
      out.write(&bytes, sizeof bytes);
      // Converted a block at a time, so that no whole copy of the field is made.
      const std::uint64_t per_block = f.type == t ? cells : kZlibBlockBytes / std::uint64_t(size_of(t));
      for (std::uint64_t first = 0; first < cells; first += per_block) {
        const std::uint64_t count = std::min(per_block, cells - first);
        out.write(values_as(f, t, first, count, scratch), std::size_t(count) * std::size_t(size_of(t)));
      }
    }
  }
  out.write("\n  </AppendedData>\n</VTKFile>\n");
  out.commit();
}

void write_pvti(const std::string& path, const Domain& global, const std::vector<Extent>& pieces,
                const std::vector<std::string>& piece_files, const std::vector<FieldRef>& fields,
                std::optional<ScalarType> type) {
  if (pieces.size() != piece_files.size())
    throw std::invalid_argument("write_pvti: " + std::to_string(pieces.size()) + " pieces but " +
                                std::to_string(piece_files.size()) + " file names");
  check_fields(fields, "write_pvti");
  for (const auto& e : pieces) check_extent(global, e, "write_pvti");

  const Extent whole{0, global.nx, 0, global.ny};
  std::string s = std::string("<?xml version=\"1.0\"?>\n<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"") +
                  kByteOrder + "\" header_type=\"UInt64\">\n";
  s += "  <PImageData WholeExtent=\"" + extent_text(whole) + "\" GhostLevel=\"0\" " + geometry_attributes(global) + ">\n";
  s += "    <PCellData" + (fields.empty() ? std::string() : " Scalars=\"" + xml_escape(fields[0].name) + "\"") + ">\n";
  for (const auto& f : fields)
    s += "      <PDataArray type=\"" + type_name(type.value_or(f.type)) + "\" Name=\"" + xml_escape(f.name) + "\"/>\n";
  s += "    </PCellData>\n";
  for (std::size_t k = 0; k < pieces.size(); ++k)
    s += "    <Piece Extent=\"" + extent_text(pieces[k]) + "\" Source=\"" + xml_escape(piece_files[k]) + "\"/>\n";
  s += "  </PImageData>\n</VTKFile>\n";
  write_file_atomically(path, s);
}

// ----------------------------------------------------------------------------------------------
// PvdCollection

PvdCollection::PvdCollection(std::string path) : path_(std::move(path)) {}

namespace {

// The value of attribute `name` in one line of a .pvd written by PvdCollection, if present.
std::optional<std::string> attribute(const std::string& line, const std::string& name) {
  const std::string start = " " + name + "=\"";
  const auto a = line.find(start);
  if (a == std::string::npos) return std::nullopt;
  const auto b = line.find('"', a + start.size());
  if (b == std::string::npos) return std::nullopt;
  return xml_unescape(line.substr(a + start.size(), b - a - start.size()));
}

}  // namespace

PvdCollection PvdCollection::resume(std::string path, double up_to) {
  PvdCollection pvd(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return pvd;
  const std::string text = read_text_file(path);
  if (text.find("<VTKFile type=\"Collection\"") == std::string::npos)
    throw InputError(path + ": not a .pvd collection (no <VTKFile type=\"Collection\">)");
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find("<DataSet") == std::string::npos) continue;
    const auto t = attribute(line, "timestep");
    const auto part = attribute(line, "part");
    const auto file = attribute(line, "file");
    const auto time = t ? parse_double(*t) : std::nullopt;
    const auto part_no = part ? parse_int(*part) : std::nullopt;
    if (!time || !part_no || !file || *part_no < 0 || *part_no > INT32_MAX)
      throw InputError(path + ":" + std::to_string(line_no) + ": cannot read this DataSet entry");
    // value_or rather than *time: GCC 12 at -O3 warns (-Wmaybe-uninitialized) on *time here.
    const double when = time.value_or(0.0);
    if (when <= up_to) pvd.entries_.push_back({when, static_cast<int>(*part_no), *file});
  }
  return pvd;
}

void PvdCollection::add(double time, const std::string& file, int part) {
  entries_.push_back({time, part, file});
  write();
}

void PvdCollection::write() const {
  std::string s = std::string("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"") +
                  kByteOrder + "\">\n  <Collection>\n";
  for (const auto& e : entries_)
    s += "    <DataSet timestep=\"" + format_double(e.time) + "\" group=\"\" part=\"" + std::to_string(e.part) +
         "\" file=\"" + xml_escape(e.file) + "\"/>\n";
  s += "  </Collection>\n</VTKFile>\n";
  write_file_atomically(path_, s);
}

}  // namespace shwa::io
