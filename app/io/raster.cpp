#include "io/raster.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/text.hpp"
#include "io/threads.hpp"

namespace shwa::io {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Calls f(token, index on the line) for each blank-separated token of [from, to); stops where f
// returns false.
template <class F>
bool each_token(std::string_view text, std::size_t from, std::size_t to, F&& f) {
  std::size_t n = 0;
  for (std::size_t i = from; i < to;) {
    while (i < to && is_blank(text[i])) ++i;
    if (i == to) break;
    std::size_t j = i;
    while (j < to && !is_blank(text[j])) ++j;
    if (!f(text.substr(i, j - i), n++)) return false;
    i = j;
  }
  return true;
}

std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> out;
  each_token(line, 0, line.size(), [&](std::string_view token, std::size_t) {
    out.push_back(token);
    return true;
  });
  return out;
}

// A token for a message: quoted, and cut short if it is long.
std::string shown(std::string_view token) {
  return quote(token.size() > 40 ? std::string(token.substr(0, 37)) + "..." : std::string(token));
}

const std::vector<std::string> kHeaderKeys = {"ncols",     "nrows",     "xllcorner", "xllcenter", "yllcorner",
                                              "yllcenter", "cellsize",  "dx",        "dy",        "nodata_value"};

struct HeaderValue {
  std::string text;
  int line;
};

// Reads the header lines, and returns the offset in `text` of the first data line.
class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  std::size_t read() {
    std::size_t pos = 0;
    while (pos < text_.size()) {
      const std::size_t end = std::min(text_.find('\n', pos), text_.size());
      const auto tokens = split_blanks(text_.substr(pos, end - pos));
      if (!tokens.empty()) {
        if (parse_double(tokens[0])) break;  // the first value
        add(tokens);
      }
      pos = end + 1;
      ++line_;
    }
    data_line_ = line_;
    return std::min(pos, text_.size());
  }

  int data_line() const { return data_line_; }
  int line(const std::string& key) const { return get(key).line; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }

  [[noreturn]] void fail(int line, const std::string& msg) const {
    throw InputError(name_ + ":" + std::to_string(line) + ": " + msg);
  }

  int positive_int(const std::string& key) const {
    const HeaderValue& hv = get(key);
    const auto x = parse_int(hv.text);
    if (!x || *x <= 0 || *x > INT_MAX)
      fail(hv.line, key + ": expected a positive integer, got " + shown(hv.text));
    return static_cast<int>(*x);
  }

  double number(const std::string& key, bool positive) const {
    const HeaderValue& hv = get(key);
    const auto x = parse_double(hv.text);
    if (!x || !std::isfinite(*x) || (positive && *x <= 0))
      fail(hv.line, key + ": expected a " + (positive ? "positive" : "finite") + " number, got " + shown(hv.text));
    return *x;
  }

  // Exactly one of two alternative keys (xllcorner / xllcenter); returns the one given.
  std::string one_of(const std::string& a, const std::string& b) const {
    if (has(a) && has(b)) fail(std::max(get(a).line, get(b).line), "both " + a + " and " + b + " given");
    if (!has(a) && !has(b)) fail(data_line_, "malformed header: missing " + a + " (or " + b + ")");
    return has(a) ? a : b;
  }

 private:
  const HeaderValue& get(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) fail(data_line_, "malformed header: missing " + key);
    return it->second;
  }

  void add(const std::vector<std::string_view>& tokens) {
    const std::string key = to_lower(tokens[0]);
    if (std::find(kHeaderKeys.begin(), kHeaderKeys.end(), key) == kHeaderKeys.end()) {
      // A misspelt key, or after a header a garbled first value.
      const std::string guess = closest_match(key, kHeaderKeys);
      if (!guess.empty()) fail(line_, "malformed header: unknown key " + shown(tokens[0]) + "; did you mean '" + guess + "'?");
      if (!values_.empty()) fail(line_, shown(tokens[0]) + " is not a number");
      fail(line_, "malformed header: unknown key " + shown(tokens[0]));
    }
    if (tokens.size() < 2) fail(line_, key + ": missing value");
    if (tokens.size() > 2) fail(line_, key + ": unexpected text after the value: " + shown(tokens[2]));
    const auto it = values_.find(key);
    if (it != values_.end())
      fail(line_, "duplicate header key " + key + " (first given on line " + std::to_string(it->second.line) + ")");
    values_[key] = {std::string(tokens[1]), line_};
  }

  std::string_view text_;
  const std::string& name_;
  std::map<std::string, HeaderValue> values_;
  int line_ = 1;
  int data_line_ = 1;
};

}  // namespace

namespace {

// The grid an ESRI header describes; `header` has read it.
void grid_of_header(const HeaderReader& header, Domain& r) {
  r.nx = header.positive_int("ncols");
  r.ny = header.positive_int("nrows");
  if (header.has("cellsize")) {
    if (header.has("dx") || header.has("dy"))
      header.fail(std::max(header.line("cellsize"), header.line(header.has("dx") ? "dx" : "dy")),
                  "both cellsize and dx/dy given");
    r.dx = r.dy = header.number("cellsize", true);
  } else if (header.has("dx") || header.has("dy")) {
    r.dx = header.number("dx", true);
    r.dy = header.number("dy", true);
  } else {
    header.fail(header.data_line(), "malformed header: missing cellsize (or dx and dy)");
  }
  const std::string xkey = header.one_of("xllcorner", "xllcenter");
  const std::string ykey = header.one_of("yllcorner", "yllcenter");
  r.x0 = header.number(xkey, false) - (xkey == "xllcenter" ? r.dx / 2 : 0);
  r.y0 = header.number(ykey, false) - (ykey == "yllcenter" ? r.dy / 2 : 0);
}

}  // namespace

Domain read_esri_ascii_grid(const std::string& path) {
  // The header fills the first few lines; a file whose header does not end within this many
  // bytes is read whole (and its header error reported as parse_esri_ascii reports it).
  constexpr std::size_t kHead = 1 << 16;
  // Anything but a readable regular file gets the error reading it whole gives.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return parse_esri_ascii(read_text_file(path), path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return parse_esri_ascii(read_text_file(path), path);
  std::string head(kHead, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  const bool whole = head.size() < kHead;
  // Up to the last line end, so that no line is cut; the data lines that follow are ignored.
  const std::size_t last = head.rfind('\n');
  if (!whole) {
    if (last == std::string::npos) return parse_esri_ascii(read_text_file(path), path);
    head.resize(last + 1);
  }
  std::string_view text = without_utf8_bom(head);
  check_line_ends(text, path);
  HeaderReader header(text, path);
  const std::size_t data = header.read();
  if (data >= text.size() && !whole) return parse_esri_ascii(read_text_file(path), path);
  Domain g;
  grid_of_header(header, g);
  return g;
}

namespace {

// A run of whole lines of a raster's body, read by one worker: how many values each line holds,
// and the first value that is not a finite number.
struct BodyPiece {
  std::size_t begin = 0, end = 0;  // offsets in the text; `end` follows a line end or is the text's end
  std::vector<std::uint32_t> counts;  // values (blank-separated tokens) on each line
  std::size_t values = 0;             // their sum
  std::size_t first_value = 0;        // index in the raster of the piece's first value
  int first_line = 0;                 // line number of `begin`
  // The first token that is not a finite number: its line (from the piece's first), its place
  // on that line and what is wrong with it.
  bool bad = false;
  std::size_t bad_line = 0, bad_token = 0;
  std::string bad_what;
};

// Calls f(line_begin, line_end) for each line of [begin, end) of `text`.
template <class F>
void each_line(std::string_view text, std::size_t begin, std::size_t end, F&& f) {
  for (std::size_t pos = begin; pos < end;) {
    const std::size_t stop = std::min(text.find('\n', pos), text.size());
    if (!f(pos, stop)) return;
    pos = stop + 1;
  }
}

}  // namespace

Raster parse_esri_ascii(std::string_view text, const std::string& name, const Workers& workers,
                        std::size_t piece_bytes) {
  text = without_utf8_bom(text);
  check_line_ends(text, name);
  HeaderReader header(text, name);
  const std::size_t body = header.read();

  Raster r;
  grid_of_header(header, r);
  std::optional<double> nodata;
  if (header.has("nodata_value")) nodata = header.number("nodata_value", false);

  const std::size_t expected = static_cast<std::size_t>(r.nx) * static_cast<std::size_t>(r.ny);
  const auto count_text = [&] {
    return std::to_string(expected) + " (" + std::to_string(r.ny) + " rows of " + std::to_string(r.nx) + ")";
  };
  const auto fail = [&](int line, const std::string& msg) -> InputError {
    return InputError(name + ":" + std::to_string(line) + ": " + msg);
  };

  // The body in pieces of whole lines, several a worker, so that the workers share it evenly.
  const int threads = std::max(workers.count, 1);
  const std::size_t bytes = text.size() - body;
  const std::size_t wanted =
      std::clamp<std::size_t>(bytes / std::max<std::size_t>(piece_bytes, 1), 1, std::size_t(threads) * 64);
  std::vector<BodyPiece> pieces;
  for (std::size_t k = 0, begin = body; k < wanted && begin < text.size(); ++k) {
    std::size_t end = k + 1 == wanted ? text.size() : body + bytes * (k + 1) / wanted;
    if (end < begin) end = begin;
    end = std::min(text.find('\n', std::max(end, begin + 1) - 1), text.size());  // just after a line end
    if (end < text.size()) ++end;
    pieces.push_back({});
    pieces.back().begin = begin;
    pieces.back().end = end;
    begin = end;
  }
  const auto for_pieces = [&](auto&& f) {
    const int n = int(std::min<std::size_t>(std::size_t(threads), pieces.size()));
    run_on_threads(Workers{n, workers.on_start}, [&](int w) {
      for (std::size_t k = std::size_t(w); k < pieces.size(); k += std::size_t(n)) f(pieces[k]);
    });
  };

  // Each line's values counted, so that each piece knows where its values and lines begin.
  for_pieces([&](BodyPiece& p) {
    each_line(text, p.begin, p.end, [&](std::size_t from, std::size_t to) {
      // At most 2^32 - 1: a line of more (gigabytes long) is reported as too long, never wrapped.
      std::uint32_t n = 0;
      each_token(text, from, to, [&](std::string_view, std::size_t) {
        if (n < UINT32_MAX) ++n;
        return true;
      });
      p.counts.push_back(n);
      p.values += n;
      return true;
    });
  });
  std::size_t values = 0;
  int line = header.data_line();
  for (BodyPiece& p : pieces) {
    p.first_value = values;
    p.first_line = line;
    values += p.values;
    line += int(p.counts.size());
  }
  // Never more than the header's grid: a short file claiming 1e9 x 1e9 cells is an error to
  // report, not an allocation to attempt; a long one is reported below.
  r.v.resize(std::min(values, expected));
  for_pieces([&](BodyPiece& p) {
    std::size_t at = p.first_value, on = 0;
    each_line(text, p.begin, p.end, [&](std::size_t from, std::size_t to) {
      const bool whole = each_token(text, from, to, [&](std::string_view token, std::size_t k) {
        const auto x = parse_double(token);
        if (!x || !std::isfinite(*x)) {
          p.bad = true;
          p.bad_line = on;
          p.bad_token = k;
          p.bad_what = !x ? shown(token) + " is not a number"
                          : "value " + shown(token) + " is not finite (mark missing data with NODATA_value)";
          return false;
        }
        if (at < r.v.size()) r.v[at] = nodata && *x == *nodata ? std::nan("") : *x;
        ++at;
        return true;
      });
      ++on;
      return whole;
    });
  });

  // Each row starts on a new line and ends at the end of a line; a long row may go on over the
  // next lines. A line that ends one row and starts the next, or a row that runs past ncols,
  // means rows of the wrong length. The first error in the file's order is reported: a row's
  // error at the value that starts or overfills it, before that value is read.
  const std::size_t nx = static_cast<std::size_t>(r.nx);
  std::size_t count = 0;        // values read
  int row_line = 0;             // the line on which the current row began
  std::size_t on_row_line = 0;  // the values of the current row on that line
  int last_line = header.data_line();  // the last line that holds a value
  for (const BodyPiece& p : pieces) {
    for (std::size_t l = 0; l < p.counts.size(); ++l) {
      const int at = p.first_line + int(l);
      const std::size_t n = p.counts[l];
      // Values of this line read before the first bad one, if it is on this line.
      const std::size_t good = p.bad && p.bad_line == l ? p.bad_token : n;
      if (n == 0) continue;
      last_line = at;
      if (count % nx == 0) {  // a new row
        if (count == expected) throw fail(at, "too many values: expected " + count_text());
        row_line = at;
      }
      // The values that complete the current row; one more on this line starts a row on it.
      const std::size_t room = nx - count % nx;
      if (n > room && good >= room) {
        const std::string which = "row " + std::to_string((count + room) / nx) + " of " + std::to_string(r.ny);
        if (row_line == at)
          throw fail(at, which + " has " + std::to_string(n) + " values, expected " + std::to_string(r.nx) +
                             " (ncols); each row starts on a new line");
        // Two lines of the same length, which together overfill a row: rows of that length,
        // one a line, under a header whose ncols is wrong.
        const std::string hint = n == on_row_line ? " (lines of " + std::to_string(n) + " values: is ncols right?)" : "";
        throw fail(at, which + ", begun on line " + std::to_string(row_line) + " with " + std::to_string(on_row_line) +
                           " values, runs past " + std::to_string(r.nx) + " values (ncols) on this line; each row "
                           "starts on a new line" + hint);
      }
      if (good < n) throw fail(at, p.bad_what);
      if (row_line == at) on_row_line = n;
      count += n;
    }
  }
  if (count != expected) {
    const std::size_t rows = count / nx, rest = count % nx;
    const std::string where =
        rest > 0 ? "in row " + std::to_string(rows + 1) + " of " + std::to_string(r.ny) + ", after " +
                       std::to_string(rest) + " of its " + std::to_string(r.nx) + " values"
                 : "after row " + std::to_string(rows) + " of " + std::to_string(r.ny);
    throw fail(last_line, "the file ends " + where + ": expected " + std::to_string(expected) + " values (" +
                              std::to_string(r.ny) + " rows of " + std::to_string(r.nx) + "), got " +
                              std::to_string(count) + " (a truncated file?)");
  }

  // The file lists rows north to south; j = 0 is the southern row.
  for (int a = 0, b = r.ny - 1; a < b; ++a, --b)
    std::swap_ranges(r.v.begin() + static_cast<std::ptrdiff_t>(a) * r.nx,
                     r.v.begin() + static_cast<std::ptrdiff_t>(a + 1) * r.nx,
                     r.v.begin() + static_cast<std::ptrdiff_t>(b) * r.nx);
  return r;
}

Raster read_esri_ascii(const std::string& path, const Workers& workers) {
  return parse_esri_ascii(read_text_file(path), path, workers);
}

namespace {
// The longest text of a value and its separator: a sign, 17 significant digits, a point and an
// exponent ("-1.2345678901234567e-308 "), or the fixed form of a value in [1e-5, 1e15).
constexpr std::size_t kAscValueBytes = 25;
}  // namespace

void write_esri_ascii(const std::string& path, const Raster& r) {
  if (r.v.size() != static_cast<std::size_t>(r.cells()))
    throw std::invalid_argument("write_esri_ascii: " + path + ": raster has " + std::to_string(r.v.size()) +
                                " values for " + std::to_string(r.nx) + " x " + std::to_string(r.ny) + " cells");
  write_esri_ascii(path, r, r.v.data());
}

AscBands esri_ascii_bands(std::int64_t nx, std::int64_t ny, int workers, std::size_t band_bytes) {
  const long wanted = std::max(1, workers), rows_total = long(std::max<std::int64_t>(1, ny));
  const std::size_t row_bytes = std::size_t(std::max<std::int64_t>(1, nx)) * kAscValueBytes;
  const long rows_fit = std::max(1L, long(band_bytes / row_bytes));
  AscBands b;
  b.rows = std::max(1L, std::min(rows_fit, (rows_total + wanted - 1) / wanted));
  b.bands = std::max(1L, std::min(wanted, (rows_total + b.rows - 1) / b.rows));
  return b;
}

std::uint64_t esri_ascii_text_bytes(std::int64_t nx, std::int64_t ny, int workers) {
  const AscBands b = esri_ascii_bands(nx, ny, workers);
  return std::uint64_t(b.bands) * std::uint64_t(b.rows) * std::uint64_t(std::max<std::int64_t>(1, nx)) * kAscValueBytes;
}

void write_esri_ascii(const std::string& path, const Domain& g, const double* values, const Workers& workers,
                      std::size_t band_bytes) {
  const auto nx = static_cast<std::size_t>(g.nx);
  const long ny = g.ny;
  const std::size_t cells = nx * static_cast<std::size_t>(ny);
  // A NODATA value that no real cell holds, so that NaN cells and only they read back as NaN.
  double nodata = -9999;
  while (std::find(values, values + cells, nodata) != values + cells) nodata = nodata * 10 - 9;

  std::string head = "ncols " + std::to_string(g.nx) + "\nnrows " + std::to_string(g.ny) +
                     "\nxllcorner " + format_double(g.x0) + "\nyllcorner " + format_double(g.y0) + "\n";
  if (g.dx == g.dy) head += "cellsize " + format_double(g.dx) + "\n";
  else head += "dx " + format_double(g.dx) + "\ndy " + format_double(g.dy) + "\n";
  head += "NODATA_value " + format_double(nodata) + "\n";
  AtomicFile f(path);
  f.write(head);
  // File rows run from the north (j = ny - 1) down, in rounds of one band a worker
  // (esri_ascii_bands); the text in memory at once is bounded by esri_ascii_text_bytes.
  const AscBands split = esri_ascii_bands(g.nx, ny, workers.count, band_bytes);
  const long rows_per_band = split.rows, bands = split.bands;
  std::vector<std::string> text(static_cast<std::size_t>(bands));
  for (long top = ny - 1; top >= 0; top -= rows_per_band * bands) {
    run_on_threads(Workers{int(bands), workers.on_start}, [&](int b) {
      std::string& out = text[std::size_t(b)];
      out.clear();
      out.reserve(std::size_t(rows_per_band) * std::max<std::size_t>(1, nx) * kAscValueBytes);
      const long first = top - b * rows_per_band;
      for (long j = first; j > first - rows_per_band && j >= 0; --j) {
        const double* row = values + std::size_t(j) * nx;
        for (std::size_t i = 0; i < nx; ++i) {
          if (i > 0) out += ' ';
          append_double(out, std::isnan(row[i]) ? nodata : row[i]);
        }
        out += '\n';
      }
    });
    for (const std::string& t : text) f.write(t);
  }
  f.commit();
}

std::string projection_path(const std::string& raster_path) {
  return std::filesystem::path(raster_path).replace_extension(".prj").string();
}

std::string read_projection(const std::string& path) {
  constexpr std::size_t kMaxBytes = 64 * 1024;
  // A large regular file is refused before it is read; anything else once read.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxBytes) throw InputError(path + ": not a coordinate system (.prj): larger than 64 KiB");
  }
  std::string wkt = read_text_file(path);
  if (wkt.size() > kMaxBytes) throw InputError(path + ": not a coordinate system (.prj): larger than 64 KiB");
  std::string_view text = wkt;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\r' && c != '\t')
      throw InputError(path + ": not a coordinate system (.prj): it holds binary data, not WKT text");
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) throw InputError(path + ": not a coordinate system (.prj): the file is empty");
  std::size_t k = start;
  while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_')) ++k;
  if (k == start || k == text.size() || (text[k] != '[' && text[k] != '('))
    throw InputError(path + ": not a coordinate system (.prj): WKT starts with a keyword and a bracket, as "
                            "PROJCS[\"...\", ...] or GEOGCRS[\"...\", ...]; this file starts with " +
                     shown(text.substr(start, text.find_first_of("\r\n", start) - start)));
  return wkt;
}

std::string projection_name(const std::string& wkt) {
  const std::size_t open = wkt.find('"');
  const std::size_t close = open == std::string::npos ? open : wkt.find('"', open + 1);
  return close == std::string::npos ? std::string() : wkt.substr(open + 1, close - open - 1);
}

bool projection_is_geographic(const std::string& wkt) {
  std::size_t k = wkt.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  std::string keyword;
  for (; k < wkt.size() && (std::isalnum(static_cast<unsigned char>(wkt[k])) || wkt[k] == '_'); ++k)
    keyword += static_cast<char>(std::toupper(static_cast<unsigned char>(wkt[k])));
  for (const char* g : {"GEOGCS", "GEOGCRS", "GEODCRS", "GEOGRAPHICCRS", "GEODETICCRS"})
    if (keyword == g) return true;
  return false;
}

void write_projection(const std::string& raster_path, const std::string& wkt) {
  AtomicFile f(projection_path(raster_path));
  f.write(wkt);
  f.commit();
}

void check_same_grid(const Domain& a, const Domain& b, const std::string& name_a, const std::string& name_b) {
  const std::string lead = "grid mismatch: " + name_a + " has ";
  const auto pair = [](double x, double y) { return format_double(x) + " x " + format_double(y); };
  if (a.nx != b.nx || a.ny != b.ny)
    throw InputError(lead + std::to_string(a.nx) + " x " + std::to_string(a.ny) + " cells, " + name_b + " has " +
                     std::to_string(b.nx) + " x " + std::to_string(b.ny));
  const auto close_rel = [](double x, double y) { return std::abs(x - y) <= 1e-6 * std::max(std::abs(x), std::abs(y)); };
  if (!close_rel(a.dx, b.dx) || !close_rel(a.dy, b.dy))
    throw InputError(lead + "cells of " + pair(a.dx, a.dy) + ", " + name_b + " of " + pair(b.dx, b.dy));
  const double tol = 1e-3 * std::min(a.dx, a.dy);
  if (!(std::abs(a.x0 - b.x0) <= tol) || !(std::abs(a.y0 - b.y0) <= tol))
    throw InputError(lead + "its lower-left corner at (" + format_double(a.x0) + ", " + format_double(a.y0) + "), " +
                     name_b + " at (" + format_double(b.x0) + ", " + format_double(b.y0) + ")");
}

}  // namespace shwa::io
