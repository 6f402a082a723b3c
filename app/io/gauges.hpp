#pragma once
// Gauges: a CSV time series of several quantities at named points, one row per sample,
//
//   # shwa gauges: name x y
//   # harbour 1250 830
//   time,harbour.h,harbour.u,harbour.v,harbour.c
//   0,2.5,0,0,0
//
// which SeriesTable reads back (and pandas with comment='#'). Rows are flushed to the file as they
// are appended, so an interrupted run keeps every sample appended.

#include <cstdio>
#include <string>
#include <vector>

namespace shwa::io {

struct GaugePoint {
  std::string name;  // letters, digits, '_', '-' and '.'
  double x = 0, y = 0;
};

class GaugeWriter {
 public:
  // Creates (or replaces) the file and writes its header. Throws InputError for a bad or
  // repeated gauge name, OutputError if the file cannot be written.
  GaugeWriter(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities);
  // Continues a file an earlier run wrote with the same gauges and quantities, dropping the rows
  // later than `up_to` (a restart). A missing file is created; one with other columns throws
  // InputError.
  static GaugeWriter resume(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities,
                            double up_to);
  // The rows a resume at `up_to` keeps, counted, writing nothing: the file must exist with this
  // run's header, and every row up to `up_to` must hold a time and one number a column, in
  // increasing time. Throws InputError naming the file and the line.
  static long resumable_rows(const std::string& path, const std::vector<GaugePoint>& gauges,
                             const std::vector<std::string>& quantities, double up_to);

  GaugeWriter(GaugeWriter&& other) noexcept;
  GaugeWriter& operator=(GaugeWriter&&) = delete;
  GaugeWriter(const GaugeWriter&) = delete;
  GaugeWriter& operator=(const GaugeWriter&) = delete;
  ~GaugeWriter();

  // One row: values[g * quantities + q] is quantity q at gauge g.
  void append(double time, const std::vector<double>& values);
  // Several rows, written and flushed together: row r is times[r] and
  // values[r * gauges * quantities, (r + 1) * gauges * quantities).
  void append_rows(const std::vector<double>& times, const std::vector<double>& values);
  // The rows in the file: those a resume kept and those appended since.
  long rows() const { return rows_; }

 private:
  GaugeWriter(std::string path, std::vector<GaugePoint> gauges, std::vector<std::string> quantities, bool create);

  std::string path_;
  std::vector<GaugePoint> gauges_;
  std::vector<std::string> quantities_;
  std::FILE* file_ = nullptr;
  long rows_ = 0;
};

}  // namespace shwa::io
