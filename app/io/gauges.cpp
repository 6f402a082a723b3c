#include "io/gauges.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
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
      file_(std::exchange(other.file_, nullptr)),
      rows_(other.rows_) {}

GaugeWriter::~GaugeWriter() {
  if (file_) std::fclose(file_);
}

namespace {

// The header and the rows up to `up_to` of a gauges file that a restart continues, and how many
// rows those are. Every row up to `up_to` must hold a time and one number a column, its time
// after the previous row's; a last row without its line end (a kill cut it) and the rows later
// than `up_to` are left out. Throws InputError naming the file and the line.
std::pair<std::string, long> resumable(const std::string& path, const std::vector<GaugePoint>& gauges,
                                       const std::vector<std::string>& quantities, double up_to) {
  check_names(gauges, quantities);
  const std::string text = read_text_file(path);
  const std::string expected = header(gauges, quantities);
  if (text.compare(0, expected.size(), expected) != 0)
    throw InputError(path + ": cannot resume: its gauges or columns differ from this run's");
  const std::size_t columns = 1 + gauges.size() * quantities.size();
  std::string kept = expected;
  long rows = 0;
  int line = int(std::count(expected.begin(), expected.end(), '\n'));
  double last = -std::numeric_limits<double>::infinity();
  std::size_t pos = expected.size();
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view row = std::string_view(text).substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (end == text.size()) break;  // cut short by a kill: after the restart time (see below)
    const auto fail = [&](const std::string& why) {
      return InputError(path + ":" + std::to_string(line) + ": cannot resume: " + why);
    };
    const auto t = parse_double(row.substr(0, row.find(',')));
    if (!t) throw fail("not a row of gauge samples (no time)");
    if (*t > up_to) continue;
    std::size_t n = 0;
    for (std::size_t at = 0; at <= row.size(); ++n) {
      const std::size_t comma = std::min(row.find(',', at), row.size());
      if (!parse_double(row.substr(at, comma - at)))
        throw fail("column " + std::to_string(n + 1) + " is not a number: " + quote(row.substr(at, comma - at)));
      at = comma + 1;
    }
    if (n != columns)
      throw fail(std::to_string(n) + " columns, the header has " + std::to_string(columns));
    if (!(*t > last))
      throw fail("time " + format_double(*t) + " s does not come after the previous row's, " + format_double(last) +
                 " s");
    last = *t;
    kept += std::string(row) + "\n";
    ++rows;
  }
  // Every row up to a checkpoint is in the file before the checkpoint is: a row the file lacks
  // there, or one it holds in part, is a file cut short or edited, which the caller finds from
  // the count.
  return {kept, rows};
}

}  // namespace

long GaugeWriter::resumable_rows(const std::string& path, const std::vector<GaugePoint>& gauges,
                                 const std::vector<std::string>& quantities, double up_to) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path + ": cannot resume: the file is missing");
  return resumable(path, gauges, quantities, up_to).second;
}

GaugeWriter GaugeWriter::resume(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities,
                                double up_to) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return GaugeWriter(std::move(path), std::move(gauges), std::move(quantities));
  // Keep the header, which is this run's, and the rows up to the restart time.
  auto [kept, rows] = resumable(path, gauges, quantities, up_to);
  write_file_atomically(path, kept);
  GaugeWriter w(std::move(path), std::move(gauges), std::move(quantities), false);
  w.rows_ = rows;
  return w;
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
  rows_ += long(times.size());
}

}  // namespace shwa::io
