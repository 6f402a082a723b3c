#include "io/csv_series.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/text.hpp"

namespace shwa::io {

TimeSeries::TimeSeries(std::vector<double> times, std::vector<double> values, std::vector<int> lines)
    : t_(std::move(times)), v_(std::move(values)), lines_(std::move(lines)) {
  if (t_.size() != v_.size() || t_.empty())
    throw std::invalid_argument("TimeSeries: need as many values as times, and at least one");
  if (!lines_.empty() && lines_.size() != t_.size())
    throw std::invalid_argument("TimeSeries: need a line for each row, or none");
  for (std::size_t k = 1; k < t_.size(); ++k)
    if (!(t_[k] > t_[k - 1])) throw std::invalid_argument("TimeSeries: times must increase strictly");
}

double TimeSeries::interpolate(double t) const {
  if (t_.empty()) throw std::logic_error("TimeSeries::interpolate on an empty series");
  if (!(t > t_.front())) return v_.front();  // also for NaN: the series is defined everywhere
  if (t >= t_.back()) return v_.back();
  const std::size_t k = static_cast<std::size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
  const double w = (t - t_[k - 1]) / (t_[k] - t_[k - 1]);
  return v_[k - 1] + w * (v_[k] - v_[k - 1]);
}

namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string shown(std::string_view field) {
  return quote(field.size() > 40 ? std::string(field.substr(0, 37)) + "..." : std::string(field));
}

}  // namespace

SeriesTable SeriesTable::parse(std::string_view text, const std::string& name) {
  text = without_utf8_bom(text);
  check_line_ends(text, name);
  SeriesTable table;
  table.file_ = name;
  std::vector<std::string> header;  // all columns, time first
  int line = 0;
  int previous_line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view row = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    row = trim(row.substr(0, row.find('#')));
    if (row.empty()) continue;
    const auto fields = split_fields(row);
    const std::string at = name + ":" + std::to_string(line) + ": ";

    if (header.empty()) {
      if (parse_double(fields[0]))
        throw InputError(at + "missing header line (e.g. time,value) before the first row");
      for (const auto f : fields) {
        if (f.empty()) throw InputError(at + "empty column name in the header");
        if (std::find(header.begin(), header.end(), f) != header.end())
          throw InputError(at + "duplicate column name " + shown(f));
        header.emplace_back(f);
      }
      const std::string first = to_lower(header[0]);
      if (first != "t" && first.rfind("time", 0) != 0)
        throw InputError(at + "the first column must be time, got " + shown(header[0]));
      if (header.size() < 2) throw InputError(at + "the header names no value column after time");
      table.names_.assign(header.begin() + 1, header.end());
      table.columns_.resize(table.names_.size());
      continue;
    }

    if (fields.size() != header.size())
      throw InputError(at + "expected " + std::to_string(header.size()) + " fields (" + list(header) + "), got " +
                       std::to_string(fields.size()));
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const auto x = parse_double(fields[c]);
      if (!x) throw InputError(at + header[c] + ": " + shown(fields[c]) + " is not a number");
      if (!std::isfinite(*x)) throw InputError(at + header[c] + ": " + shown(fields[c]) + " is not finite");
      if (c == 0) {
        if (!table.time_.empty() && !(*x > table.time_.back()))
          throw InputError(at + "time " + format_double(*x) + " does not increase (line " +
                           std::to_string(previous_line) + " has " + format_double(table.time_.back()) + ")");
        table.time_.push_back(*x);
      } else {
        table.columns_[c - 1].push_back(*x);
      }
    }
    table.lines_.push_back(line);
    previous_line = line;
  }
  if (header.empty()) throw InputError(name + ": empty file: expected a header line (e.g. time,value) and rows");
  if (table.time_.empty()) throw InputError(name + ": no data rows after the header");
  return table;
}

SeriesTable SeriesTable::read(const std::string& path) { return parse(read_text_file(path), path); }

TimeSeries SeriesTable::column(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) {
    std::string msg = file_ + ": no column " + quote(name) + "; columns are " + list(names_);
    const std::string guess = closest_match(name, names_);
    if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    throw InputError(msg);
  }
  return TimeSeries(time_, columns_[static_cast<std::size_t>(it - names_.begin())], lines_);
}

TimeSeries read_time_series(const std::string& path, const std::string& name) {
  const SeriesTable table = SeriesTable::read(path);
  if (!name.empty()) return table.column(name);
  if (table.names().size() != 1)
    throw InputError(path + ": " + std::to_string(table.names().size()) +
                     " value columns; say which one to use (" + list(table.names()) + ")");
  return table.column(table.names().front());
}

}  // namespace shwa::io
