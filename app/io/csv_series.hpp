#pragma once
// Time series from CSV files, for boundary conditions (tidal stage, river discharge, spill
// concentration):
//
//   # tide at the harbour mouth        <- comments: '#' to the end of the line, anywhere
//   time,stage,c                       <- header: the first column is time ("time..." or "t")
//   0,    1.20, 0
//   3600, 1.85, 0.5
//
// Times must increase strictly. Fields are trimmed; every field must be a number as a whole. A
// UTF-8 byte order mark at the start of the file is skipped.

#include <string>
#include <string_view>
#include <vector>

#include "io/error.hpp"

namespace shwa::io {

// A function of time given at samples: linear between them, constant beyond the first and last.
class TimeSeries {
 public:
  TimeSeries() = default;
  // `times` must increase strictly and match `values` in size, and `lines` (the line of each row
  // in the file it was read from) be empty or of that size too (std::invalid_argument otherwise).
  TimeSeries(std::vector<double> times, std::vector<double> values, std::vector<int> lines = {});

  double interpolate(double t) const;

  const std::vector<double>& times() const { return t_; }
  const std::vector<double>& values() const { return v_; }
  // The line of row k in its file ("FILE:LINE" in messages); empty where not read from a file.
  const std::vector<int>& lines() const { return lines_; }

 private:
  std::vector<double> t_, v_;
  std::vector<int> lines_;
};

// All columns of a CSV file, sharing its time column.
class SeriesTable {
 public:
  // Throws InputError "FILE:LINE: message" for an unreadable file, a missing or bad header, a
  // row with the wrong number of fields, a non-numeric or non-finite field, times that do not
  // increase, or a file without data rows.
  static SeriesTable read(const std::string& path);
  // The same from text in memory; `name` stands for the file name in messages.
  static SeriesTable parse(std::string_view text, const std::string& name);

  // The value columns (all but time), in file order.
  const std::vector<std::string>& names() const { return names_; }
  // The column `name`; throws InputError "FILE: no column 'x'; columns are ..." if absent.
  TimeSeries column(const std::string& name) const;

 private:
  std::string file_;
  std::vector<std::string> names_;
  std::vector<double> time_;
  std::vector<int> lines_;  // the file's line of each row
  std::vector<std::vector<double>> columns_;
};

// The only value column of a two-column file, or the column `name` of a wider one.
TimeSeries read_time_series(const std::string& path, const std::string& name = "");

}  // namespace shwa::io
