#include "io/gauges.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <utility>

#include "io/atomic_file.hpp"
#include "io/error.hpp"
#include "io/text.hpp"

namespace shwa::io {

namespace {

// Names end up in CSV column names "NAME.QUANTITY": keep them free of separators and quotes.
void check_names(const std::vector<GaugePoint>& gauges, const std::vector<std::string>& quantities) {
  const auto valid = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
  };
  std::set<std::string> seen;
  for (const auto& g : gauges) {
    if (!valid(g.name))
      throw InputError("gauge name " + quote(g.name) + ": use letters, digits, '_', '-' and '.' only");
    if (!seen.insert(g.name).second) throw InputError("gauge name " + quote(g.name) + " is used twice");
  }
  for (const auto& q : quantities)
    if (!valid(q)) throw std::invalid_argument("GaugeWriter: bad quantity name " + quote(q));
}

std::string header(const std::vector<GaugePoint>& gauges, const std::vector<std::string>& quantities) {
  std::string s = "# shwa gauges: name x y\n";
  for (const auto& g : gauges) s += "# " + g.name + " " + format_double(g.x) + " " + format_double(g.y) + "\n";
  s += "time";
  for (const auto& g : gauges)
    for (const auto& q : quantities) s += "," + g.name + "." + q;
  return s + "\n";
}

}  // namespace

GaugeWriter::GaugeWriter(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities,
                         bool create)
    : path_(std::move(path)), gauges_(std::move(gauges)), quantities_(std::move(quantities)) {
  check_names(gauges_, quantities_);
  if (create) write_file_atomically(path_, header(gauges_, quantities_));
  file_ = std::fopen(path_.c_str(), "ab");
  if (!file_) throw OutputError(path_ + ": cannot write: " + std::strerror(errno));
}

GaugeWriter::GaugeWriter(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities)
    : GaugeWriter(std::move(path), std::move(gauges), std::move(quantities), true) {}

GaugeWriter::GaugeWriter(GaugeWriter&& other) noexcept
    : path_(std::move(other.path_)),
      gauges_(std::move(other.gauges_)),
      quantities_(std::move(other.quantities_)),
      file_(std::exchange(other.file_, nullptr)) {}

GaugeWriter::~GaugeWriter() {
  if (file_) std::fclose(file_);
}

GaugeWriter GaugeWriter::resume(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities,
                                double up_to) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return GaugeWriter(std::move(path), std::move(gauges), std::move(quantities));
  check_names(gauges, quantities);

  // Keep the header if it is this run's, and the rows up to the restart time.
  const std::string text = read_text_file(path);
  const std::string expected = header(gauges, quantities);
  if (text.compare(0, expected.size(), expected) != 0)
    throw InputError(path + ": cannot resume: its gauges or columns differ from this run's");
  std::string kept = expected;
  std::size_t pos = expected.size();
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view row = std::string_view(text).substr(pos, end - pos);
    pos = end + 1;
    const auto t = parse_double(row.substr(0, row.find(',')));
    // A row cut short by a kill has no newline: drop it with the rows after the restart.
    if (t && *t <= up_to && end < text.size()) kept += std::string(row) + "\n";
  }
  write_file_atomically(path, kept);
  return GaugeWriter(std::move(path), std::move(gauges), std::move(quantities), false);
}

void GaugeWriter::append(double time, const std::vector<double>& values) { append_rows({time}, values); }

void GaugeWriter::append_rows(const std::vector<double>& times, const std::vector<double>& values) {
  const std::size_t width = gauges_.size() * quantities_.size();
  if (values.size() != times.size() * width)
    throw std::invalid_argument("GaugeWriter::append: " + path_ + ": expected " + std::to_string(times.size() * width) +
                                " values, got " + std::to_string(values.size()));
  std::string rows;
  for (std::size_t r = 0; r < times.size(); ++r) {
    rows += format_double(times[r]);
    for (std::size_t v = 0; v < width; ++v) rows += "," + format_double(values[r * width + v]);
    rows += "\n";
  }
  if (std::fwrite(rows.data(), 1, rows.size(), file_) != rows.size() || std::fflush(file_) != 0)
    throw OutputError(path_ + ": write failed: " + std::strerror(errno));
}

}  // namespace shwa::io
