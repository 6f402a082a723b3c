#pragma once
// Small text helpers shared by the readers and writers: strict number parsing, shortest
// round-trip number formatting, quoting for messages and "did you mean" suggestions.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shwa::io {

// The whole of `s` as a number, or nullopt: "12O", "1,5", " 3" and "" are rejected, unlike atof.
// A leading '+' is accepted. "nan" and "inf" parse (callers decide whether they are allowed);
// a magnitude beyond the range of double is rejected.
std::optional<double> parse_double(std::string_view s);
std::optional<long long> parse_int(std::string_view s);

// The shortest text that reads back as exactly `x` ("0.1", "1e+21", "nan", "-inf").
std::string format_double(double x);
// The same text appended to `out` (no string of its own: for writers of many values).
void append_double(std::string& out, double x);

// `s` in double quotes with quotes, backslashes and control characters escaped, for messages.
std::string quote(std::string_view s);

std::string_view trim(std::string_view s);
std::string to_lower(std::string_view s);

// The items separated by ", " ("h, eta, u"), for messages and lists.
std::string join(const std::vector<std::string>& items);

// Levenshtein distance (insertions, deletions and substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// The whole file as bytes. Throws InputError "PATH: cannot read: REASON".
std::string read_text_file(const std::string& path);

// `text` without the UTF-8 byte order mark (EF BB BF) that some editors put at its start.
std::string_view without_utf8_bom(std::string_view text);

// Throws InputError "NAME:LINE: PREFIXa carriage return without a line feed: ..." at the first
// CR that no LF follows: a file with classic Mac OS line ends, whose lines a reader of LF or CRLF
// lines would run together into one.
void check_line_ends(std::string_view text, const std::string& name, const std::string& prefix = "");

}  // namespace shwa::io
