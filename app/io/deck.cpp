#include "io/deck.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <toml.hpp>

#include "io/text.hpp"

namespace shwa::io {

// ----------------------------------------------------------------------------------------------
// Range

Range::Range(double lo, double hi, Ends ends)
    : lo_(lo),
      hi_(hi),
      lo_closed_(ends == Ends::closed || ends == Ends::closed_open),
      hi_closed_(ends == Ends::closed || ends == Ends::open_closed) {}

bool Range::contains(double x) const {
  const bool above = lo_closed_ ? x >= lo_ : x > lo_;
  const bool below = hi_closed_ ? x <= hi_ : x < hi_;
  return above && below;
}

std::string Range::describe() const {
  const bool has_lo = std::isfinite(lo_);
  const bool has_hi = std::isfinite(hi_);
  if (has_lo && has_hi)
    return std::string(lo_closed_ ? "[" : "(") + format_double(lo_) + ", " + format_double(hi_) +
           (hi_closed_ ? "]" : ")");
  if (has_lo) return std::string(lo_closed_ ? ">= " : "> ") + format_double(lo_);
  if (has_hi) return std::string(hi_closed_ ? "<= " : "< ") + format_double(hi_);
  return "any value";
}

Range require_positive() {
  return Range(0, std::numeric_limits<double>::infinity(), Range::Ends::open);
}

Range require_nonnegative() {
  return Range(0, std::numeric_limits<double>::infinity(), Range::Ends::closed_open);
}

Range require_in(double lo, double hi, Range::Ends ends) { return Range(lo, hi, ends); }

// ----------------------------------------------------------------------------------------------
// Helpers on TOML values

namespace {

constexpr int kMaxNesting = 64;

// toml11 parses nested arrays and inline tables recursively and overflows the stack when they
// nest thousands deep ("a = [[[[..."), so the nesting is measured first with a scan that knows
// TOML's strings and comments. Real decks nest two or three levels.
void check_nesting(const std::string& text, const std::string& name) {
  int depth = 0;
  int line = 1;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '#') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      // Basic ("...") and literal ('...') strings, single-line or triple-quoted multi-line.
      const std::string triple(3, c);
      const bool multi = text.compare(i, 3, triple) == 0;
      i += multi ? 3 : 1;
      while (i < n) {
        if (text[i] == '\n') {
          ++line;
          if (!multi) break;  // unterminated: toml11 reports it
        }
        if (c == '"' && text[i] == '\\') {
          if (i + 1 < n && text[i + 1] == '\n') ++line;
          i += 2;
          continue;
        }
        if (text[i] == c && (!multi || text.compare(i, 3, triple) == 0)) {
          i += multi ? 3 : 1;
          // A multi-line string may end with one or two quotes of its own before the delimiter.
          for (int extra = 0; multi && extra < 2 && i < n && text[i] == c; ++extra) ++i;
          break;
        }
        ++i;
      }
    } else {
      if (c == '[' || c == '{') {
        if (++depth > kMaxNesting)
          throw InputError(name + ":" + std::to_string(line) +
                           ": invalid TOML: arrays or inline tables nested more than " +
                           std::to_string(kMaxNesting) + " deep");
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
      ++i;
    }
  }
}

// The offset of the first byte of `text` that is not part of valid UTF-8, or npos. TOML
// documents are UTF-8, and toml11 3.7 reads out of bounds while reporting a bad sequence inside a
// string, so the check comes first.
std::size_t invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1;
      cp = c & 0x1fu;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
      cp = c & 0x0fu;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return i;
    }
    if (text.size() - i <= n) return i;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    // No overlong forms, no surrogates, nothing past U+10FFFF.
    static constexpr std::uint32_t kMin[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

void check_utf8(const std::string& text, const std::string& name) {
  const std::size_t bad = invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
  throw InputError(name + ":" + std::to_string(line) + ": invalid TOML: not UTF-8 text");
}

// One line out of toml11's multi-line syntax error: "NAME:LINE: invalid TOML: WHAT (DETAIL): CODE".
std::string one_line_syntax_error(const toml::exception& e, const std::string& name) {
  std::istringstream lines(e.what());
  std::string first, line, detail;
  std::getline(lines, first);
  while (std::getline(lines, line)) {
    // Marker lines look like " 2 |       ^--- expected newline, but got 'O'."
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    std::string_view rest = trim(std::string_view(line).substr(bar + 1));
    if (rest.empty() || (rest[0] != '^' && rest[0] != '~')) continue;
    while (!rest.empty() && (rest[0] == '^' || rest[0] == '~' || rest[0] == '-')) rest.remove_prefix(1);
    detail = std::string(trim(rest));
  }
  std::string_view what = first;
  if (what.rfind("[error] ", 0) == 0) what.remove_prefix(8);
  if (what.rfind("toml::", 0) == 0) {
    const auto colon = what.find(": ");
    if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
  }
  const auto strip_dot = [](std::string s) {
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  std::string msg = name + ":" + std::to_string(e.location().line()) + ": invalid TOML: " +
                    strip_dot(std::string(trim(what)));
  if (!detail.empty()) msg += " (" + strip_dot(detail) + ")";
  std::string code(trim(e.location().line_str()));
  if (code.size() > 60) code = code.substr(0, 57) + "...";
  if (!code.empty()) msg += ": " + code;
  return msg;
}

bool is_bare_key(std::string_view k) {
  if (k.empty()) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// A TOML key: bare if it can be, quoted otherwise.
std::string toml_key(const std::string& segment) {
  return is_bare_key(segment) ? segment : toml_string(segment);
}

std::string toml_dotted_key(const std::string& flat) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const auto dot = flat.find('.', start);
    out += toml_key(flat.substr(start, dot - start));
    if (dot == std::string::npos) return out;
    out += '.';
    start = dot + 1;
  }
}

std::string toml_float(double x) {
  if (std::isnan(x)) return "nan";
  std::string s = format_double(x);
  // TOML needs a '.' or an exponent to read a float back as a float.
  if (std::isfinite(x) && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// A value in TOML syntax, on one line.
std::string toml_text(const toml::value& v) {
  switch (v.type()) {
    case toml::value_t::boolean: return v.as_boolean() ? "true" : "false";
    case toml::value_t::integer: return std::to_string(v.as_integer());
    case toml::value_t::floating: return toml_float(v.as_floating());
    case toml::value_t::string: return toml_string(v.as_string().str);
    case toml::value_t::array: {
      std::string out = "[";
      for (const auto& item : v.as_array()) out += (out.size() > 1 ? ", " : "") + toml_text(item);
      return out + "]";
    }
    default: return toml::format(v);  // dates and times (entries never hold tables)
  }
}

// A value as Deck::values() gives it: numbers in their shortest form whatever their TOML type;
// strings bare at the top level and quoted inside lists.
std::string comparable_text(const toml::value& v, bool in_list = false) {
  switch (v.type()) {
    case toml::value_t::integer: return format_double(static_cast<double>(v.as_integer()));
    case toml::value_t::floating: return format_double(v.as_floating());
    case toml::value_t::string: return in_list ? toml_string(v.as_string().str) : v.as_string().str;
    case toml::value_t::array: {
      std::string out = "[";
      for (const auto& item : v.as_array()) out += (out.size() > 1 ? ", " : "") + comparable_text(item, true);
      return out + "]";
    }
    default: return toml_text(v);
  }
}

std::string type_name(const toml::value& v) {
  switch (v.type()) {
    case toml::value_t::boolean: return "boolean";
    case toml::value_t::integer: return "integer";
    case toml::value_t::floating: return "float";
    case toml::value_t::string: return "string";
    case toml::value_t::array: return "array";
    default: return "date/time";
  }
}

/// A default read as a number, as TOML: a whole number as an integer (numerics.max_steps = 100000000,
/// numerics.tile = [0, 0]: counts, which a reader of the resolved deck takes as they are meant), any
/// other as a float. A number read as a float accepts either (to_double), and values() gives both
/// the same text.
toml::value default_number(double x) {
  if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) return toml::value(static_cast<toml::integer>(x));
  return toml::value(x);
}

// "string \"0.9x\"", "integer 3": what a type error says it got.
std::string describe(const toml::value& v) {
  std::string text = toml_text(v);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return type_name(v) + " " + text;
}

/// toml11 reads an integer literal beyond the 64-bit range as the nearest 64-bit integer, without
/// a word. The literal of `v` (or of an integer in the array `v`) that lies beyond it, or "".
std::string integer_beyond_range(const toml::value& v) {
  if (v.is_array()) {
    for (const toml::value& x : v.as_array())
      if (std::string literal = integer_beyond_range(x); !literal.empty()) return literal;
    return "";
  }
  if (!v.is_integer()) return "";
  const toml::source_location loc = v.location();
  const std::string& line = loc.line_str();
  if (loc.column() < 1 || std::size_t(loc.column()) - 1 + loc.region() > line.size()) return "";
  const std::string literal = line.substr(loc.column() - 1, loc.region());
  std::string digits;
  for (char c : literal)
    if (c != '_') digits += c;
  std::size_t at = 0;
  const bool negative = !digits.empty() && digits[0] == '-';
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) at = 1;
  int base = 10;
  for (const auto& [prefix, b] : {std::pair<const char*, int>{"0x", 16}, {"0o", 8}, {"0b", 2}})
    if (digits.compare(at, 2, prefix) == 0) base = b, at += 2;
  errno = 0;
  const unsigned long long magnitude = std::strtoull(digits.c_str() + at, nullptr, base);
  const unsigned long long most = negative ? 9223372036854775808ull : 9223372036854775807ull;
  return errno == ERANGE || magnitude > most ? literal : "";
}

bool holds_table(const toml::value& v) {
  if (v.is_table()) return true;
  if (!v.is_array()) return false;
  const auto& a = v.as_array();
  return std::any_of(a.begin(), a.end(), holds_table);
}

enum class Source { file, command_line, fallback };

struct Entry {
  toml::value value;
  Source source = Source::file;
  int line = 0;          // in the deck file
  std::string raw;       // the text typed on the command line
  bool used = false;
};

}  // namespace

// ----------------------------------------------------------------------------------------------
// Deck

struct Deck::Impl {
  std::string name;  // the deck file as given, "" for an empty deck
  std::string dir;   // its directory, for relative paths
  std::map<std::string, Entry> entries;   // set in the file or on the command line
  std::map<std::string, int> empty_tables;  // tables the file gives without a key, and their lines
  std::map<std::string, Entry> defaults;  // fallbacks used by getters for keys not set
  std::set<std::string> known;            // read or declared
  std::map<std::string, std::string> unused_why;  // declare_unused: a key (or table) and why it is not read
  std::map<std::string, std::string> paths;  // keys read as file names: the path each gave

  void flatten(const toml::table& table, const std::string& prefix);

  std::string origin(const std::string& key) const {
    auto it = entries.find(key);
    if (it == entries.end()) {
      const auto table = empty_tables.find(key);
      if (table != empty_tables.end()) return name + ":" + std::to_string(table->second);
      return defaults.count(key) ? "default" : "";
    }
    if (it->second.source == Source::command_line) return "command line";
    return name + ":" + std::to_string(it->second.line);
  }

  InputError error(const std::string& key, const std::string& message) const {
    std::string where = origin(key);
    if (where.empty()) where = name;
    return InputError((where.empty() ? "" : where + ": ") + key + ": " + message);
  }

  // A key of `m` that clashes with `key` as a table with a value: a proper prefix of it
  // ("a" for "a.b") or one of its keys ("a.b" for "a"); "" if none.
  static std::string clash(const std::map<std::string, Entry>& m, const std::string& key) {
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1))
      if (m.count(key.substr(0, dot))) return key.substr(0, dot);
    const auto child = m.lower_bound(key + ".");
    if (child != m.end() && child->first.rfind(key + ".", 0) == 0) return child->first;
    return "";
  }

  // The entry for `key`, marked used, or nullptr if the key is not set. Throws if the deck
  // makes `key` a table, or one of its parents a value.
  Entry* read(const std::string& key) {
    const std::string other = clash(entries, key);
    if (!other.empty()) {
      Entry& e = entries.at(other);
      e.used = true;  // reported here, not again as unused
      if (other.size() < key.size())
        throw error(other, "expected a table (holding " + key + "), got " + describe(e.value));
      throw InputError(origin(other) + ": " + key + ": expected a value, got a table (holding " + other + ")");
    }
    known.insert(key);
    auto it = entries.find(key);
    if (it == entries.end()) return nullptr;
    it->second.used = true;
    return &it->second;
  }

  [[noreturn]] void missing(const std::string& key) const {
    // The keys set in the missing key's table: where any is in the file the message names the
    // file, where all came from the command line (a table --set made) the command line.
    const auto dot = key.rfind('.');
    const std::string prefix = dot == std::string::npos ? "" : key.substr(0, dot + 1);
    bool in_file = false, set_here = false;
    for (auto it = entries.lower_bound(prefix); !prefix.empty() && it != entries.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      set_here = true;
      in_file |= it->second.source == Source::file;
    }
    // A required key is often missing because it was misspelt: point at the likely culprit, a key
    // set but neither read nor known (declared) as a key of its own; in the same table where that
    // table has keys (gauges.new.y is no typo of gauges.river.y).
    std::vector<std::string> unread;
    for (const auto& [k, e] : entries)
      if (!e.used && !known.count(k) && (!set_here || k.rfind(prefix, 0) == 0)) unread.push_back(k);
    const std::string typo = closest_match(key, unread);
    std::string msg = "required key is missing";
    if (!typo.empty()) msg += "; " + origin(typo) + " sets '" + typo + "', a typo?";
    const std::string where = set_here && !in_file ? "command line" : name;
    throw InputError((where.empty() ? "" : where + ": ") + key + ": " + msg);
  }

  void remember_default(const std::string& key, toml::value v) {
    const std::string other = clash(defaults, key);
    if (!other.empty())
      throw std::logic_error("Deck: defaults for both " + other + " and " + key + " cannot be one TOML table");
    Entry e;
    e.value = std::move(v);
    e.source = Source::fallback;
    e.used = true;
    defaults[key] = std::move(e);
  }

  void check_range(const std::string& key, double x, const Range& range) const {
    if (!range.contains(x))
      throw error(key, format_double(x) + " is out of range: must be " + range.describe());
  }

  double to_double(const std::string& key, const toml::value& v, const Range& range) const {
    double x = 0;
    if (v.is_integer()) {
      x = static_cast<double>(v.as_integer());
    } else if (v.is_floating()) {
      x = v.as_floating();
      if (!std::isfinite(x)) throw error(key, "expected a finite number, got " + describe(v));
      // The TOML reader gives the largest double for a number beyond it (1e400).
      if (std::abs(x) == std::numeric_limits<double>::max())
        throw error(key, "a number at or beyond the largest double (1.8e308)");
    } else {
      throw error(key, "expected a number, got " + describe(v));
    }
    check_range(key, x, range);
    return x;
  }

  std::string to_string(const std::string& key, const Entry& e) const {
    if (e.value.is_string()) return e.value.as_string().str;
    if (e.source == Source::command_line) return e.raw;
    throw error(key, "expected a string, got " + describe(e.value));
  }
};

Deck::Deck() : impl_(std::make_unique<Impl>()) {}
Deck::Deck(Deck&&) noexcept = default;
Deck& Deck::operator=(Deck&&) noexcept = default;
Deck::~Deck() = default;

void Deck::Impl::flatten(const toml::table& table, const std::string& prefix) {
  for (const auto& [k, v] : table) {
    const std::string key = prefix + k;
    const std::string at = name + ":" + std::to_string(v.location().line()) + ": ";
    if (k.empty() || k.find('.') != std::string::npos)
      throw InputError(at + quote(key) + ": a key must not be empty or contain '.'; use a table");
    if (v.is_table()) {
      if (v.as_table().empty()) empty_tables[key] = static_cast<int>(v.location().line());
      flatten(v.as_table(), key + ".");
    } else if (holds_table(v)) {
      throw InputError(at + key + ": arrays of tables are not supported; use one named table "
                       "per item, e.g. [" + key + ".NAME]");
    } else {
      if (const std::string literal = integer_beyond_range(v); !literal.empty())
        throw InputError(at + key + ": " + literal + " lies beyond the integers a deck may hold (-2^63 to 2^63 - 1)");
      Entry e;
      e.value = v;
      e.line = static_cast<int>(v.location().line());
      entries[key] = std::move(e);
    }
  }
}

Deck Deck::parse(const std::string& text, const std::string& name) {
  check_utf8(text, name);
  check_line_ends(text, name, "invalid TOML: ");
  check_nesting(text, name);
  toml::value root;
  try {
    std::istringstream in(text);
    root = toml::parse(in, name);
  } catch (const toml::exception& e) {
    throw InputError(one_line_syntax_error(e, name));
  } catch (const std::exception& e) {
    std::string what = e.what();
    throw InputError(name + ": invalid TOML: " + what.substr(0, what.find('\n')));
  }
  Deck deck;
  deck.impl_->name = name;
  deck.impl_->dir = std::filesystem::path(name).parent_path().string();
  deck.impl_->flatten(root.as_table(), "");
  return deck;
}

Deck Deck::load(const std::string& path) {
  Deck deck = parse(read_text_file(path), path);
  // A deck read from a pipe (/dev/stdin, a shell's <(...)) has no folder of its own: the file
  // names it holds are relative to the current directory, as they would be typed there.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) deck.impl_->dir.clear();
  return deck;
}

void Deck::set_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos)
    throw InputError("command line: " + quote(assignment) + ": expected section.key=value");
  const std::string key(trim(std::string_view(assignment).substr(0, eq)));
  const std::string text(trim(std::string_view(assignment).substr(eq + 1)));

  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    if (!is_bare_key(std::string_view(key).substr(start, dot - start)))
      throw InputError("command line: " + quote(key) + ": not a valid key (letters, digits, '_' "
                       "and '-', sections separated by '.')");
    if (dot == std::string::npos) break;
    // A parent of the key must not be a value: numerics.cfl.x when numerics.cfl = 0.9.
    const std::string parent = key.substr(0, dot);
    if (impl_->entries.count(parent))
      throw InputError("command line: " + key + ": " + parent + " is a value (" +
                       impl_->origin(parent) + "), not a table");
    start = dot + 1;
  }
  // Nor may the key be a table of the deck: boundary.west when boundary.west.type is set.
  const auto child = impl_->entries.lower_bound(key + ".");
  if (child != impl_->entries.end() && child->first.rfind(key + ".", 0) == 0)
    throw InputError("command line: " + key + ": is a table (" + impl_->origin(child->first) +
                     " sets " + child->first + "); set its keys instead");

  Entry e;
  e.source = Source::command_line;
  e.raw = text;
  e.value = toml::value(text);
  if (invalid_utf8(text) != std::string_view::npos)
    throw InputError("command line: " + key + ": the value is not UTF-8 text");
  try {
    check_nesting(text, "command line");
    std::istringstream in("v = " + text);
    const toml::value parsed = toml::parse(in, "command line");
    const auto& t = parsed.as_table();
    // Text such as "1\nx = 2" parses to more than the one value; keep it as a string.
    if (t.size() == 1 && t.count("v") && !holds_table(t.at("v"))) e.value = t.at("v");
  } catch (const std::exception&) {
    // Not a TOML value: a bare string.
  }
  if (const std::string literal = integer_beyond_range(e.value); !literal.empty())
    throw InputError("command line: " + key + ": " + literal +
                     " lies beyond the integers a deck may hold (-2^63 to 2^63 - 1)");
  impl_->entries[key] = std::move(e);
}

bool Deck::has(const std::string& key) const { return impl_->entries.count(key) != 0; }

std::vector<std::string> Deck::children(const std::string& prefix) const {
  std::set<std::string> names;
  const std::string p = prefix + ".";
  const auto add = [&](const std::string& key) {
    if (key.rfind(p, 0) != 0) return false;
    const std::string rest = key.substr(p.size());
    names.insert(rest.substr(0, rest.find('.')));
    return true;
  };
  for (auto it = impl_->entries.lower_bound(p); it != impl_->entries.end() && add(it->first); ++it) {
  }
  for (auto it = impl_->empty_tables.lower_bound(p); it != impl_->empty_tables.end() && add(it->first); ++it) {
  }
  return {names.begin(), names.end()};
}

std::string Deck::where(const std::string& key) const { return impl_->origin(key); }

double Deck::get_double(const std::string& key, const Range& range) {
  const Entry* e = impl_->read(key);
  if (!e) impl_->missing(key);
  return impl_->to_double(key, e->value, range);
}

double Deck::get_double(const std::string& key, double fallback, const Range& range) {
  if (const Entry* e = impl_->read(key)) return impl_->to_double(key, e->value, range);
  impl_->remember_default(key, default_number(fallback));
  impl_->check_range(key, fallback, range);
  return fallback;
}

int Deck::get_int(const std::string& key, const Range& range) {
  const Entry* e = impl_->read(key);
  if (!e) impl_->missing(key);
  if (!e->value.is_integer()) throw impl_->error(key, "expected an integer, got " + describe(e->value));
  const auto x = e->value.as_integer();
  if (x < INT_MIN || x > INT_MAX) throw impl_->error(key, std::to_string(x) + " is too large for an int");
  impl_->check_range(key, static_cast<double>(x), range);
  return static_cast<int>(x);
}

int Deck::get_int(const std::string& key, int fallback, const Range& range) {
  if (impl_->entries.count(key)) return get_int(key, range);
  impl_->read(key);
  impl_->remember_default(key, toml::value(fallback));
  impl_->check_range(key, fallback, range);
  return fallback;
}

bool Deck::get_bool(const std::string& key) {
  const Entry* e = impl_->read(key);
  if (!e) impl_->missing(key);
  if (!e->value.is_boolean()) throw impl_->error(key, "expected true or false, got " + describe(e->value));
  return e->value.as_boolean();
}

bool Deck::get_bool(const std::string& key, bool fallback) {
  if (impl_->entries.count(key)) return get_bool(key);
  impl_->read(key);
  impl_->remember_default(key, toml::value(fallback));
  return fallback;
}

std::string Deck::get_string(const std::string& key) {
  const Entry* e = impl_->read(key);
  if (!e) impl_->missing(key);
  return impl_->to_string(key, *e);
}

std::string Deck::get_string(const std::string& key, const std::string& fallback) {
  if (impl_->entries.count(key)) return get_string(key);
  impl_->read(key);
  impl_->remember_default(key, toml::value(fallback));
  return fallback;
}

std::string Deck::get_choice(const std::string& key, const std::vector<std::string>& choices) {
  const std::string s = get_string(key);
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string msg = "expected one of " + join(choices) + ", got " + quote(s);
    const std::string guess = closest_match(s, choices);
    if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    throw impl_->error(key, msg);
  }
  return s;
}

std::string Deck::get_choice(const std::string& key, const std::string& fallback,
                             const std::vector<std::string>& choices) {
  if (impl_->entries.count(key)) return get_choice(key, choices);
  if (std::find(choices.begin(), choices.end(), fallback) == choices.end())
    throw std::logic_error("Deck::get_choice: default '" + fallback + "' of " + key + " is not a choice");
  return get_string(key, fallback);
}

std::string Deck::get_path(const std::string& key) {
  const std::string p = get_string(key);
  const Entry& e = impl_->entries.at(key);
  const std::string path =
      e.source != Source::file || p.empty() || impl_->dir.empty() || std::filesystem::path(p).is_absolute()
          ? p
          : (std::filesystem::path(impl_->dir) / p).lexically_normal().string();
  if (!path.empty()) impl_->paths[key] = path;
  return path;
}

std::string Deck::get_path(const std::string& key, const std::string& fallback) {
  if (impl_->entries.count(key)) return get_path(key);
  return get_string(key, fallback);
}

std::vector<double> Deck::get_double_list(const std::string& key, const Range& range) {
  const Entry* e = impl_->read(key);
  if (!e) impl_->missing(key);
  const auto bad = [&] { return impl_->error(key, "expected a list of numbers, got " + describe(e->value)); };
  if (!e->value.is_array()) throw bad();
  std::vector<double> out;
  for (const auto& item : e->value.as_array()) {
    if (!item.is_integer() && !item.is_floating()) throw bad();
    out.push_back(impl_->to_double(key, item, range));
  }
  return out;
}

std::vector<double> Deck::get_double_list(const std::string& key, const std::vector<double>& fallback,
                                          const Range& range) {
  if (impl_->entries.count(key)) return get_double_list(key, range);
  impl_->read(key);
  toml::array a;
  for (const double x : fallback) {
    impl_->check_range(key, x, range);
    a.push_back(default_number(x));
  }
  impl_->remember_default(key, toml::value(std::move(a)));
  return fallback;
}

std::vector<std::string> Deck::get_string_list(const std::string& key) {
  const Entry* e = impl_->read(key);
  if (!e) impl_->missing(key);
  const auto bad = [&] { return impl_->error(key, "expected a list of strings, got " + describe(e->value)); };
  if (!e->value.is_array()) throw bad();
  std::vector<std::string> out;
  for (const auto& item : e->value.as_array()) {
    if (!item.is_string()) throw bad();
    out.push_back(item.as_string().str);
  }
  return out;
}

std::vector<std::string> Deck::get_string_list(const std::string& key,
                                               const std::vector<std::string>& fallback) {
  if (impl_->entries.count(key)) return get_string_list(key);
  impl_->read(key);
  toml::array a;
  for (const auto& s : fallback) a.emplace_back(s);
  impl_->remember_default(key, toml::value(std::move(a)));
  return fallback;
}

void Deck::declare(const std::string& key) { impl_->known.insert(key); }

void Deck::declare_unused(const std::string& key, const std::string& when) { impl_->unused_why[key] = when; }

InputError Deck::error(const std::string& key, const std::string& message) const {
  return impl_->error(key, message);
}

std::vector<std::string> Deck::unused_report() const {
  std::vector<std::pair<const std::string*, const Entry*>> unused;
  for (const auto& [k, e] : impl_->entries)
    if (!e.used) unused.emplace_back(&k, &e);
  // File order first (by line), then the command line.
  std::stable_sort(unused.begin(), unused.end(), [](const auto& a, const auto& b) {
    const auto rank = [](const Entry* e) { return e->source == Source::file ? e->line : INT_MAX; };
    return rank(a.second) < rank(b.second);
  });

  const std::vector<std::string> known(impl_->known.begin(), impl_->known.end());
  std::vector<std::string> lines;
  for (const auto& [key, e] : unused) {
    std::string msg;
    std::string why;  // declare_unused's, for the key or the nearest table above it
    for (std::string k = *key; why.empty();) {
      const auto w = impl_->unused_why.find(k);
      if (w != impl_->unused_why.end()) why = w->second;
      const auto dot = k.rfind('.');
      if (dot == std::string::npos) break;
      k.resize(dot);
    }
    if (!why.empty()) {
      msg = why;
    } else if (impl_->known.count(*key)) {
      msg = "not used by this configuration";
    } else {
      std::string guess = closest_match(*key, known);
      if (guess.empty()) {
        // Right name, wrong section: "cfl" at the top level for "numerics.cfl".
        const std::string last = key->substr(key->rfind('.') + 1);
        for (const auto& k : known)
          if (k.size() > last.size() && k.compare(k.size() - last.size() - 1, std::string::npos, "." + last) == 0)
            guess = k;
      }
      msg = "unknown key";
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    }
    lines.push_back(impl_->error(*key, msg).what());
  }
  return lines;
}

void Deck::check_unused() const {
  const auto lines = unused_report();
  if (lines.empty()) return;
  std::string msg = lines.front();
  if (lines.size() > 1) msg += " (and " + std::to_string(lines.size() - 1) + " more unused keys)";
  throw InputError(msg);
}

std::string Deck::resolved_toml() const {
  // Group the flat keys by their table ("boundary.west" for "boundary.west.type").
  std::map<std::string, std::vector<std::pair<std::string, const Entry*>>> tables;
  const auto add = [&](const std::map<std::string, Entry>& entries) {
    for (const auto& [key, e] : entries) {
      if (&entries == &impl_->defaults && impl_->entries.count(key)) continue;  // set after the read
      const auto dot = key.rfind('.');
      const std::string table = dot == std::string::npos ? "" : key.substr(0, dot);
      tables[table].emplace_back(dot == std::string::npos ? key : key.substr(dot + 1), &e);
    }
  };
  add(impl_->entries);
  add(impl_->defaults);

  std::string out = "# The deck";
  if (!impl_->name.empty()) out += " " + impl_->name;
  out += " with its command-line overrides and defaults: every key a run reads.\n";
  if (!impl_->paths.empty())
    out += "# Its file names are absolute, so that it runs as it is from any folder.\n";
  for (auto& [table, items] : tables) {
    std::sort(items.begin(), items.end());
    if (!table.empty()) out += "\n[" + toml_dotted_key(table) + "]\n";
    for (const auto& [leaf, e] : items) {
      // A file name read relative to the deck's folder (or, set on the command line, to the
      // current directory) would be read relative to this file's folder: write where it led.
      const auto path = impl_->paths.find(table.empty() ? leaf : table + "." + leaf);
      if (path != impl_->paths.end()) {
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(path->second, ec);
        out += toml_key(leaf) + " = " + toml_text(toml::value(ec ? path->second : abs.lexically_normal().string()));
      } else {
        out += toml_key(leaf) + " = " + toml_text(e->value);
      }
      if (e->source == Source::fallback) out += "  # default";
      else if (e->source == Source::command_line) out += "  # command line";
      else if (!e->used) out += "  # unused";
      out += "\n";
    }
  }
  return out;
}

std::map<std::string, std::string> Deck::values() const {
  std::map<std::string, std::string> out;
  for (const auto& [key, e] : impl_->defaults) out[key] = comparable_text(e.value);
  // A key set in the deck or on the command line wins over a default read before it was set.
  for (const auto& [key, e] : impl_->entries) out[key] = comparable_text(e.value);
  return out;
}

std::map<std::string, std::string> Deck::paths() const { return impl_->paths; }

}  // namespace shwa::io
