#pragma once
// The input deck: a TOML file flattened to "section.key" entries (nested tables give
// "boundary.west.type"), each remembering the file and line it came from, plus command-line
// overrides "section.key=value". The deck knows no schema: the code that reads a key decides its
// type, default and range, and every read marks the key used, so that after all reads
// check_unused() can reject the keys nobody read (typos), suggesting the closest known key.
//
// Errors throw InputError with a one-line message "FILE:LINE: KEY: message", e.g.
//   deck.toml:12: numerics.cfl: expected a number, got string "0.9x"
//   deck.toml:7: numerics.cfll: unknown key; did you mean 'numerics.cfl'?
// Values given on the command line are reported as "command line: KEY: ...".

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/error.hpp"

namespace shwa::io {

// An interval a numeric value must lie in; the default admits any value.
class Range {
 public:
  enum class Ends { closed, open, open_closed, closed_open };  // [a,b]  (a,b)  (a,b]  [a,b)

  Range() = default;
  Range(double lo, double hi, Ends ends);

  bool contains(double x) const;
  // "(0, 1]", "> 0", ">= 0", "<= 10".
  std::string describe() const;

 private:
  double lo_ = -std::numeric_limits<double>::infinity();
  double hi_ = std::numeric_limits<double>::infinity();
  bool lo_closed_ = true;
  bool hi_closed_ = true;
};

// Ranges for the getters: deck.get_double("numerics.cfl", 0.9, require_in(0, 1, Range::Ends::open_closed)).
Range require_positive();     // > 0
Range require_nonnegative();  // >= 0
Range require_in(double lo, double hi, Range::Ends ends = Range::Ends::closed);

class Deck {
 public:
  // An empty deck: every value comes from overrides or defaults.
  Deck();
  // Reads a TOML file. Throws InputError for a missing or unreadable file and for a syntax
  // error ("deck.toml:3: invalid TOML: invalid line format (expected newline, but got 'O'):
  // cfl = 12O"), for bytes that are not UTF-8 and for nesting too deep to parse safely. File
  // names in it (get_path) are relative to its folder, or to the current directory where it is
  // not a regular file (a pipe: /dev/stdin).
  static Deck load(const std::string& path);
  // Parses TOML text; `name` stands for the file name in messages.
  static Deck parse(const std::string& text, const std::string& name);

  Deck(Deck&&) noexcept;
  Deck& operator=(Deck&&) noexcept;
  ~Deck();

  // Applies "section.key=value". The value is read as a TOML value (3, 0.5, true, "text",
  // [1, 2]); if it is none, as a bare string (dir=out/run1). The key need not be in the file.
  void set_override(const std::string& assignment);

  // Whether the deck or the command line sets `key`. Does not count as a read.
  bool has(const std::string& key) const;
  // The distinct names one level below `prefix` among the keys set and the tables the file gives
  // without a key ("boundary" -> {"east", "west"} for boundary.west.type, boundary.east.type; an
  // empty [pollutants.dye] names "dye" below "pollutants"), sorted. Not a read.
  std::vector<std::string> children(const std::string& prefix) const;
  // "deck.toml:12", "command line" or "default" for a key read with a default; "" if unknown.
  std::string where(const std::string& key) const;

  // Typed reads. Without a fallback the key is required. Numbers must be finite; an integer is
  // a valid double; strings are never converted to numbers. A value outside `range`, or of the
  // wrong type, throws naming the key and where it was set.
  double get_double(const std::string& key, const Range& range = {});
  double get_double(const std::string& key, double fallback, const Range& range = {});
  int get_int(const std::string& key, const Range& range = {});
  int get_int(const std::string& key, int fallback, const Range& range = {});
  bool get_bool(const std::string& key);
  bool get_bool(const std::string& key, bool fallback);
  // On the command line every value is text: a non-string override read as a string is the
  // text as typed (--set run.name=2024 gives "2024").
  std::string get_string(const std::string& key);
  std::string get_string(const std::string& key, const std::string& fallback);
  // A string that must be one of `choices`; a wrong one is named with the closest choice.
  std::string get_choice(const std::string& key, const std::vector<std::string>& choices);
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices);
  // A file name; relative names set in a deck file are relative to that file's directory.
  std::string get_path(const std::string& key);
  std::string get_path(const std::string& key, const std::string& fallback);
  std::vector<double> get_double_list(const std::string& key, const Range& range = {});
  std::vector<double> get_double_list(const std::string& key, const std::vector<double>& fallback,
                                      const Range& range = {});
  std::vector<std::string> get_string_list(const std::string& key);
  std::vector<std::string> get_string_list(const std::string& key,
                                           const std::vector<std::string>& fallback);

  // Makes a key known without reading it, so that a typo of it gets a suggestion even when this
  // configuration does not read it.
  void declare(const std::string& key);

  // Where `key`, or a key under it, is set but not read: why (`when`, e.g. "used only with
  // boundary.west.type = \"discharge\""), in place of "unknown key" in unused_report.
  void declare_unused(const std::string& key, const std::string& when);

  // An InputError "FILE:LINE: KEY: message" for a check the caller makes itself.
  InputError error(const std::string& key, const std::string& message) const;

  // One line per key set but never read, in file order (empty when all were read).
  std::vector<std::string> unused_report() const;
  // Throws the first line of unused_report(), with the count of the others, if any.
  void check_unused() const;

  // The configuration as TOML: every key set and every default used, each marked with where it
  // came from. Parsing it gives back the same values.
  std::string resolved_toml() const;

  // Every key set or defaulted, with its value as comparable text: numbers in their shortest
  // form whatever their TOML type (2, 2.0 and 2e0 give "2"), strings as they are (in lists,
  // quoted), booleans "true" / "false", lists "[a, b]". Two decks that read the same give the
  // same map.
  std::map<std::string, std::string> values() const;
  // The keys read as file names (get_path) that name a file, and the path each resolved to.
  std::map<std::string, std::string> paths() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shwa::io
