#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "io/csv_series.hpp"
#include "io/error.hpp"
#include "io/gauges.hpp"
#include "io/json.hpp"
#include "io/text.hpp"
#include "io_test_util.hpp"

using shwa::io::GaugePoint;
using shwa::io::GaugeWriter;
using shwa::io::JsonWriter;
using shwa::io::SeriesTable;
using shwa::io::test::slurp;
using shwa::io::test::TempDir;

TEST_CASE("gauges: rows read back through the CSV reader", "[io][gauges]") {
  TempDir dir;
  const std::string path = dir / "gauges.csv";
  const std::vector<GaugePoint> points = {{"harbour", 1250, 830.5}, {"river-mouth", 0, 1e5}};
  {
    GaugeWriter g(path, points, {"h", "u"});
    g.append(0, {1, 0.1, 2, 0.2});
    g.append(0.5, {1.0 / 3, -0.5, 2.5, 1e-300});
    CHECK_THROWS_AS(g.append(1, {1, 2, 3}), std::invalid_argument);
  }
  CHECK(slurp(path) ==
        "# shwa gauges: name x y\n# harbour 1250 830.5\n# river-mouth 0 100000\n"
        "time,harbour.h,harbour.u,river-mouth.h,river-mouth.u\n0,1,0.1,2,0.2\n0.5,0.3333333333333333,-0.5,2.5,1e-300\n");
  const SeriesTable t = SeriesTable::read(path);
  CHECK(t.names() == std::vector<std::string>{"harbour.h", "harbour.u", "river-mouth.h", "river-mouth.u"});
  CHECK(t.column("harbour.h").values() == std::vector<double>{1, 1.0 / 3});
  CHECK(t.column("river-mouth.u").values() == std::vector<double>{0.2, 1e-300});

  CHECK_THROWS_WITH(GaugeWriter(dir / "x.csv", {{"a,b", 0, 0}}, {"h"}),
                    "gauge name \"a,b\": use letters, digits, '_', '-' and '.' only");
  CHECK_THROWS_WITH(GaugeWriter(dir / "x.csv", {{"a", 0, 0}, {"a", 1, 1}}, {"h"}), "gauge name \"a\" is used twice");
}

TEST_CASE("gauges: resuming drops rows after the restart and a torn last row", "[io][gauges]") {
  TempDir dir;
  const std::string path = dir / "g.csv";
  const std::vector<GaugePoint> points = {{"a", 1, 2}};
  {
    GaugeWriter g(path, points, {"h"});
    for (int k = 0; k < 5; ++k) g.append(k, {k * 1.5});
  }
  {
    // A kill in the middle of a row leaves it without its newline.
    std::FILE* f = std::fopen(path.c_str(), "ab");
    std::fputs("5,7.", f);
    std::fclose(f);
  }
  {
    GaugeWriter g = GaugeWriter::resume(path, points, {"h"}, 2);
    g.append(2.5, {9});
  }
  const SeriesTable t = SeriesTable::read(path);
  CHECK(t.column("a.h").times() == std::vector<double>{0, 1, 2, 2.5});
  CHECK(t.column("a.h").values() == std::vector<double>{0, 1.5, 3, 9});
  {
    GaugeWriter g = GaugeWriter::resume(path, points, {"h"}, 100);  // keeps everything, the last row included
  }
  CHECK(SeriesTable::read(path).column("a.h").times().size() == 4);
  CHECK_THROWS_WITH(GaugeWriter::resume(path, points, {"h", "u"}, 2),
                    path + ": cannot resume: its gauges or columns differ from this run's");
}

TEST_CASE("gauges: the rows a restart keeps are counted and checked; a damaged row is named", "[io][gauges]") {
  TempDir dir;
  const std::string path = dir / "g.csv";
  const std::vector<GaugePoint> points = {{"a", 1, 2}};
  auto write_rows = [&](const std::string& rows) {
    { GaugeWriter g(path, points, {"h", "u"}); }
    std::FILE* f = std::fopen(path.c_str(), "ab");
    std::fputs(rows.c_str(), f);
    std::fclose(f);
  };
  write_rows("0,1,0\n1,1.5,-0.5\n2,2,0.5\n3,2.5,0.5\n");
  CHECK(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2) == 3);
  CHECK(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 10) == 4);
  // Counting writes nothing.
  CHECK(SeriesTable::read(path).column("a.h").times().size() == 4);
  // Lines 1 and 2 are the comments, line 3 the column names: rows begin on line 4.
  write_rows("0,1,0\n1,1.5\n2,2,0.5\n");
  CHECK_THROWS_WITH(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2),
                    path + ":5: cannot resume: 2 columns, the header has 3");
  write_rows("0,1,0\n1,x,0\n");
  CHECK_THROWS_WITH(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2),
                    path + ":5: cannot resume: column 2 is not a number: \"x\"");
  write_rows("0,1,0\n2,1,0\n1,1,0\n");
  CHECK_THROWS_WITH(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2),
                    path + ":6: cannot resume: time 1 s does not come after the previous row's, 2 s");
  write_rows("0,1,0\n?,1,0\n");
  CHECK_THROWS_WITH(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2),
                    path + ":5: cannot resume: not a row of gauge samples (no time)");
  // A damaged row after the restart time is dropped with the others.
  write_rows("0,1,0\n1,1,0\n3,x\n");
  CHECK(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2) == 2);
  std::remove(path.c_str());
  CHECK_THROWS_WITH(GaugeWriter::resumable_rows(path, points, {"h", "u"}, 2), path + ": cannot resume: the file is missing");
}

TEST_CASE("json: structure, escaping and full precision", "[io][json]") {
  JsonWriter j;
  j.begin_object()
      .key("steps").value(1200)
      .key("cells").value(std::size_t{1} << 40)
      .key("dt").begin_array().value(0.1).value(1.0 / 3).value(1e-300).end_array()
      .key("empty").begin_array().end_array()
      .key("nested").begin_object().key("ok").value(true).key("none").null().end_object()
      .key("bad").value(std::numeric_limits<double>::quiet_NaN())
      .key("name \"q\"").value("tab\there\nnew \\ \x01 é")
      .end_object();
  CHECK(j.str() ==
        "{\n"
        "  \"steps\": 1200,\n"
        "  \"cells\": 1099511627776,\n"
        "  \"dt\": [\n"
        "    0.1,\n"
        "    0.3333333333333333,\n"
        "    1e-300\n"
        "  ],\n"
        "  \"empty\": [],\n"
        "  \"nested\": {\n"
        "    \"ok\": true,\n"
        "    \"none\": null\n"
        "  },\n"
        "  \"bad\": null,\n"
        "  \"name \\\"q\\\"\": \"tab\\there\\nnew \\\\ \\u0001 é\"\n"
        "}\n");
  CHECK(shwa::io::parse_double("0.3333333333333333") == 1.0 / 3);

  JsonWriter bad;
  bad.begin_object();
  CHECK_THROWS_AS(bad.value(1), std::logic_error);  // no key
  CHECK_THROWS_AS(bad.end_array(), std::logic_error);
  CHECK_THROWS_AS(bad.str(), std::logic_error);  // unfinished
  bad.key("a");
  CHECK_THROWS_AS(bad.key("b"), std::logic_error);
  CHECK_THROWS_AS(bad.end_object(), std::logic_error);
  bad.value(1).end_object();
  CHECK(bad.str() == "{\n  \"a\": 1\n}\n");
  CHECK_THROWS_AS(bad.value(2), std::logic_error);  // after the end
}
