#include "io/text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/error.hpp"

namespace shwa::io {

namespace {

// std::from_chars refuses a leading '+'; accept one in front of a digit or a '.'.
std::string_view strip_plus(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.'))
    s.remove_prefix(1);
  return s;
}

}  // namespace

std::optional<double> parse_double(std::string_view s) {
  s = strip_plus(s);
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return x;
}

std::optional<long long> parse_int(std::string_view s) {
  s = strip_plus(s);
  long long x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return x;
}

void append_double(std::string& out, double x) {
  // Plain digits for everyday magnitudes ("0.0001", "100000"), where the shortest form would
  // pick "1e-04" and "1e+05"; the shortest form otherwise. Both read back exactly.
  char buf[400];
  const double a = std::abs(x);
  const auto res = a >= 1e-5 && a < 1e15 ? std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed)
                                         : std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, res.ptr);
}

std::string format_double(double x) {
  std::string out;
  append_double(out, x);
  return out;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table at a time.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // Up to a third of the word may differ: "cfll" -> "cfl", "ncol" -> "ncols"; a two-letter word
  // gets no suggestion ("dz" may mean "dx" as well as "dy").
  const std::size_t limit = word.size() / 3;
  std::string best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d && c != word) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": cannot read: is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read: " + std::strerror(errno));
  // A regular file straight into a string of its size (no stream buffer that doubles as it
  // grows, no copy out of it: large rasters and checkpoints are held once); then whatever
  // follows, a block at a time (a file that grew, or one that is not regular).
  std::string text;
  std::error_code size_ec;
  const auto size = std::filesystem::is_regular_file(path, size_ec) ? std::filesystem::file_size(path, size_ec) : 0;
  if (!size_ec && size > 0) {
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
  }
  char block[1 << 16];
  while (in && (in.read(block, sizeof block), in.gcount() > 0)) text.append(block, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InputError(path + ": cannot read: " + std::strerror(errno));
  return text;
}

void check_line_ends(std::string_view text, const std::string& name, const std::string& prefix) {
  for (std::size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
    if (at + 1 < text.size() && text[at + 1] == '\n') continue;
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    throw InputError(name + ":" + std::to_string(line) + ": " + prefix +
                     "a carriage return without a line feed (classic Mac OS line ends?); save the file with LF or "
                     "CRLF line ends");
  }
}

std::string_view without_utf8_bom(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
}

}  // namespace shwa::io
