#include "io/csv_series.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "io_test_util.hpp"

using shwa::io::InputError;
using shwa::io::read_time_series;
using shwa::io::SeriesTable;
using shwa::io::TimeSeries;
using shwa::io::test::data_file;
using shwa::io::test::spit;
using shwa::io::test::TempDir;

namespace {

std::string error(const std::string& text) {
  try {
    SeriesTable::parse(text, "s.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("csv: linear interpolation, constant beyond the ends", "[io][csv]") {
  const TimeSeries s = read_time_series(data_file("tide.csv"));
  CHECK(s.times() == std::vector<double>{0, 3600, 7200});
  CHECK(s.values() == std::vector<double>{1, 2, 1});
  CHECK(s.interpolate(-5) == 1.0);
  CHECK(s.interpolate(0) == 1.0);
  CHECK(s.interpolate(900) == 1.25);
  CHECK(s.interpolate(3600) == 2.0);
  CHECK(s.interpolate(5400) == 1.5);
  CHECK(s.interpolate(7200) == 1.0);
  CHECK(s.interpolate(1e9) == 1.0);
  const TimeSeries one({5}, {3});
  CHECK(one.interpolate(0) == 3);
  CHECK(one.interpolate(10) == 3);
  CHECK_THROWS_AS(TimeSeries({1, 1}, {0, 0}), std::invalid_argument);
}

TEST_CASE("csv: named columns", "[io][csv]") {
  TempDir dir;
  spit(dir / "river.csv", "t , discharge, c\n0, 10, 0\n10, 20, 1.5\n");
  const SeriesTable table = SeriesTable::read(dir / "river.csv");
  CHECK(table.names() == std::vector<std::string>{"discharge", "c"});
  CHECK(table.column("discharge").interpolate(5) == 15);
  CHECK(table.column("c").interpolate(10) == 1.5);
  CHECK_THROWS_MATCHES(table.column("dischage"), InputError,
                       Catch::Message(dir / "river.csv" + ": no column \"dischage\"; columns are discharge, c; did "
                                                          "you mean 'discharge'?"));
  CHECK(read_time_series(dir / "river.csv", "c").values() == std::vector<double>{0, 1.5});
  CHECK_THROWS_WITH(read_time_series(dir / "river.csv"),
                    dir / "river.csv" + ": 2 value columns; say which one to use (discharge, c)");
}

TEST_CASE("csv: a UTF-8 byte order mark before the header is skipped", "[io][csv]") {
  const SeriesTable table = SeriesTable::parse("\xEF\xBB\xBFtime,stage\n0,1\n10,2\n", "s.csv");
  CHECK(table.names() == std::vector<std::string>{"stage"});
  CHECK(table.column("stage").interpolate(5) == 1.5);
}

TEST_CASE("csv: each row keeps its line in the file, past comments and blank lines", "[io][csv]") {
  const SeriesTable table = SeriesTable::parse("# tide\ntime,stage\n0,1\n\n# low water\n10,2\n20,3 # high\n", "s.csv");
  CHECK(table.column("stage").lines() == std::vector<int>{3, 6, 7});
  CHECK(TimeSeries({0, 1}, {2, 3}).lines().empty());
  CHECK_THROWS_AS(TimeSeries({0, 1}, {2, 3}, {1}), std::invalid_argument);
}

TEST_CASE("csv: classic Mac OS line ends are named", "[io][csv]") {
  CHECK(error("time,stage\r\n0,1\r\n10,2\r5,3\r") ==
        "s.csv:3: a carriage return without a line feed (classic Mac OS line ends?); save the file with LF or CRLF "
        "line ends");
  CHECK(SeriesTable::parse("time,stage\r\n0,1\r\n10,2\r\n", "s.csv").column("stage").interpolate(5) == 1.5);
}

TEST_CASE("csv: bad files name the line", "[io][csv]") {
  CHECK(error("") == "s.csv: empty file: expected a header line (e.g. time,value) and rows");
  CHECK(error("# only a comment\n\n") == "s.csv: empty file: expected a header line (e.g. time,value) and rows");
  CHECK(error("time,value\n# nothing\n") == "s.csv: no data rows after the header");
  CHECK(error("0,1\n1,2\n") == "s.csv:1: missing header line (e.g. time,value) before the first row");
  CHECK(error("stage,time\n0,1\n") == "s.csv:1: the first column must be time, got \"stage\"");
  CHECK(error("time\n0\n") == "s.csv:1: the header names no value column after time");
  CHECK(error("time,a,a\n") == "s.csv:1: duplicate column name \"a\"");
  CHECK(error("time,,a\n") == "s.csv:1: empty column name in the header");
  CHECK(error("time,value\n0,1\n1\n") == "s.csv:3: expected 2 fields (time, value), got 1");
  CHECK(error("time,value\n0,1\n1,2,3\n") == "s.csv:3: expected 2 fields (time, value), got 3");
  CHECK(error("time,value\n0,1\n\n1,12O\n") == "s.csv:4: value: \"12O\" is not a number");
  CHECK(error("time,value\n0,1\n1,\n") == "s.csv:3: value: \"\" is not a number");
  CHECK(error("time,value\n0,inf\n") == "s.csv:2: value: \"inf\" is not finite");
  CHECK(error("time,value\n0,1\n# gap\n10,2\n5,3\n") == "s.csv:5: time 5 does not increase (line 4 has 10)");
  CHECK(error("time,value\n0,1\n0,2\n") == "s.csv:3: time 0 does not increase (line 2 has 0)");
  CHECK_THROWS_WITH(SeriesTable::read("none.csv"), "none.csv: cannot read: No such file or directory");
}
