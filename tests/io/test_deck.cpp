#include "io/deck.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "io_test_util.hpp"

using shwa::io::Deck;
using shwa::io::InputError;
using shwa::io::Range;
using shwa::io::require_in;
using shwa::io::require_nonnegative;
using shwa::io::require_positive;
using shwa::io::test::data_file;

namespace {

// Reads every key of data/deck.toml.
void read_all(Deck& d) {
  d.get_string("title");
  d.get_int("grid.nx");
  d.get_int("grid.ny");
  d.get_double("grid.dx");
  d.get_double_list("grid.origin");
  d.get_double("numerics.cfl");
  d.get_string("numerics.kernel");
  d.get_string("boundary.west.type");
  d.get_path("boundary.west.series");
  d.get_string("boundary.east.type");
  d.get_string_list("output.fields");
  d.get_bool("output.vtk");
}

}  // namespace

TEST_CASE("deck: typed reads of a file, with the line of every value", "[io][deck]") {
  Deck d = Deck::load(data_file("deck.toml"));
  CHECK(d.get_string("title") == "estuary");
  CHECK(d.get_int("grid.nx") == 200);
  CHECK(d.get_double("grid.dx") == 10.0);
  CHECK(d.get_double("grid.nx") == 200.0);  // an integer is a valid number
  CHECK(d.get_double_list("grid.origin") == std::vector<double>{1000.5, -20});
  CHECK(d.get_double("numerics.cfl", require_in(0, 1, Range::Ends::open_closed)) == 0.9);
  CHECK(d.get_string_list("output.fields") == std::vector<std::string>{"h", "eta", "c"});
  CHECK(d.get_bool("output.vtk"));
  CHECK(d.where("numerics.cfl") == data_file("deck.toml") + ":11");
  CHECK(d.where("boundary.west.type") == data_file("deck.toml") + ":15");
  CHECK(d.children("boundary") == std::vector<std::string>{"east", "west"});
  CHECK(d.has("boundary.east.type"));
  CHECK_FALSE(d.has("boundary.east"));
  // Relative paths in a deck are relative to the deck's folder.
  CHECK(d.get_path("boundary.west.series") == data_file("tide.csv"));
  read_all(d);
  CHECK_NOTHROW(d.check_unused());
}

TEST_CASE("deck: a missing file is named", "[io][deck]") {
  CHECK_THROWS_MATCHES(Deck::load("no-such-deck.toml"), InputError,
                       Catch::Message("no-such-deck.toml: cannot read: No such file or directory"));
}

TEST_CASE("deck: an unknown key is an error that suggests the closest known key", "[io][deck]") {
  Deck d = Deck::parse("[numerics]\ncfl = 0.9\ncfll = 0.8\n", "deck.toml");
  d.get_double("numerics.cfl");
  CHECK_THROWS_MATCHES(d.check_unused(), InputError,
                       Catch::Message("deck.toml:3: numerics.cfll: unknown key; did you mean 'numerics.cfl'?"));

  // The right name in the wrong section, and a key nothing resembles.
  Deck e = Deck::parse("cfl = 0.9\nzzz = 1\n", "deck.toml");
  e.get_double("numerics.cfl", 0.5);
  const auto report = e.unused_report();
  REQUIRE(report.size() == 2);
  CHECK(report[0] == "deck.toml:1: cfl: unknown key; did you mean 'numerics.cfl'?");
  CHECK(report[1] == "deck.toml:2: zzz: unknown key");
  CHECK_THROWS_WITH(e.check_unused(), "deck.toml:1: cfl: unknown key; did you mean 'numerics.cfl'? (and 1 more unused keys)");

  // A declared key this configuration does not read.
  Deck f = Deck::parse("[boundary.west]\ntype = \"wall\"\nseries = \"tide.csv\"\n", "deck.toml");
  f.declare("boundary.west.series");
  f.get_string("boundary.west.type");
  CHECK_THROWS_WITH(f.check_unused(), "deck.toml:3: boundary.west.series: not used by this configuration");

  // A key, or a key under a table, that this configuration leaves unread for a reason it gives.
  Deck g = Deck::parse("[boundary.west]\nvalue = 1.0\nconcentration.dye = 2.0\n", "deck.toml");
  g.declare_unused("boundary.west.value", "used only with stage");
  g.declare_unused("boundary.west.concentration", "used only with discharge");
  const auto why = g.unused_report();
  REQUIRE(why.size() == 2);
  CHECK(why[0] == "deck.toml:2: boundary.west.value: used only with stage");
  CHECK(why[1] == "deck.toml:3: boundary.west.concentration.dye: used only with discharge");
}

TEST_CASE("deck: numbers must parse completely", "[io][deck]") {
  CHECK_THROWS_MATCHES(Deck::parse("[numerics]\ncfl = 12O\n", "deck.toml"), InputError,
                       Catch::Message("deck.toml:2: invalid TOML: invalid line format (expected newline, but got "
                                      "'O'): cfl = 12O"));
  Deck d;
  d.set_override("numerics.cfl=12O");
  CHECK_THROWS_MATCHES(d.get_double("numerics.cfl"), InputError,
                       Catch::Message("command line: numerics.cfl: expected a number, got string \"12O\""));
}

TEST_CASE("deck: integers beyond 64 bits are refused, not clamped", "[io][deck]") {
  // The parser would read them as the nearest 64-bit integer.
  CHECK_THROWS_MATCHES(Deck::parse("[grid]\nnx = 99_999_999_999_999_999_999\n", "deck.toml"), InputError,
                       Catch::Message("deck.toml:2: grid.nx: 99_999_999_999_999_999_999 lies beyond the integers a "
                                      "deck may hold (-2^63 to 2^63 - 1)"));
  CHECK_THROWS_AS(Deck::parse("[numerics]\ntile = [64, 0x8000000000000000]\n", "deck.toml"), InputError);
  CHECK_THROWS_AS(Deck::parse("[grid]\nnx = -9223372036854775809\n", "deck.toml"), InputError);
  Deck edge = Deck::parse("[grid]\nnx = 9223372036854775807\nny = -9223372036854775808\nnz = 0x7fffffffffffffff\n",
                          "deck.toml");
  CHECK(edge.has("grid.nx"));
  Deck d;
  CHECK_THROWS_MATCHES(d.set_override("numerics.max_steps=99999999999999999999"), InputError,
                       Catch::Message("command line: numerics.max_steps: 99999999999999999999 lies beyond the integers "
                                      "a deck may hold (-2^63 to 2^63 - 1)"));
}

TEST_CASE("deck: a value of the wrong type names file, line and key", "[io][deck]") {
  Deck d = Deck::parse("# comment\n[numerics]\ncfl = \"0.9x\"\nnx = 10.5\non = 1\nxs = [1, \"a\"]\n", "deck.toml");
  CHECK_THROWS_MATCHES(d.get_double("numerics.cfl"), InputError,
                       Catch::Message("deck.toml:3: numerics.cfl: expected a number, got string \"0.9x\""));
  CHECK_THROWS_WITH(d.get_int("numerics.nx"), "deck.toml:4: numerics.nx: expected an integer, got float 10.5");
  CHECK_THROWS_WITH(d.get_bool("numerics.on"), "deck.toml:5: numerics.on: expected true or false, got integer 1");
  CHECK_THROWS_WITH(d.get_string("numerics.on"), "deck.toml:5: numerics.on: expected a string, got integer 1");
  CHECK_THROWS_WITH(d.get_double_list("numerics.xs"),
                    "deck.toml:6: numerics.xs: expected a list of numbers, got array [1, \"a\"]");
  CHECK_THROWS_WITH(d.get_string_list("numerics.xs"),
                    "deck.toml:6: numerics.xs: expected a list of strings, got array [1, \"a\"]");

  // A value where a table is expected, and the other way round.
  Deck e = Deck::parse("[boundary]\nwest = \"wall\"\n[grid.nx]\nvalue = 3\n", "deck.toml");
  CHECK_THROWS_WITH(e.get_string("boundary.west.type", "open"),
                    "deck.toml:2: boundary.west: expected a table (holding boundary.west.type), got string \"wall\"");
  CHECK_THROWS_WITH(e.get_int("grid.nx"), "deck.toml:4: grid.nx: expected a value, got a table (holding grid.nx.value)");
  // Defaults that could not be written as one TOML document are a programming error.
  Deck f;
  f.get_double("a", 1.0);
  CHECK_THROWS_AS(f.get_double("a.b", 2.0), std::logic_error);
}

TEST_CASE("deck: values out of range are rejected", "[io][deck]") {
  Deck d = Deck::parse("cfl = 1.5\ncfl0 = 0\ndx = -2.0\nn = -1\nbig = 5000000000\nnan = nan\nlist = [0.5, 2]\n",
                       "deck.toml");
  const Range cfl_range = require_in(0, 1, Range::Ends::open_closed);
  CHECK_THROWS_MATCHES(d.get_double("cfl", cfl_range), InputError,
                       Catch::Message("deck.toml:1: cfl: 1.5 is out of range: must be (0, 1]"));
  CHECK_THROWS_WITH(d.get_double("cfl0", cfl_range), "deck.toml:2: cfl0: 0 is out of range: must be (0, 1]");
  CHECK_THROWS_WITH(d.get_double("dx", require_positive()), "deck.toml:3: dx: -2 is out of range: must be > 0");
  CHECK_THROWS_WITH(d.get_int("n", require_nonnegative()), "deck.toml:4: n: -1 is out of range: must be >= 0");
  CHECK_THROWS_WITH(d.get_int("big"), "deck.toml:5: big: 5000000000 is too large for an int");
  CHECK_THROWS_WITH(d.get_double("nan"), "deck.toml:6: nan: expected a finite number, got float nan");
  CHECK_THROWS_WITH(d.get_double_list("list", cfl_range), "deck.toml:7: list: 2 is out of range: must be (0, 1]");
  CHECK(d.get_double("cfl", require_in(1, 2)) == 1.5);  // closed at both ends by default
  CHECK_THROWS_WITH(d.get_double("missing", 7.0, require_in(0, 1)), "default: missing: 7 is out of range: must be [0, 1]");
}

TEST_CASE("deck: a missing required key is named, with a likely typo", "[io][deck]") {
  Deck d = Deck::parse("[numerics]\ncfll = 0.9\n", "deck.toml");
  CHECK_THROWS_MATCHES(d.get_double("numerics.cfl"), InputError,
                       Catch::Message("deck.toml: numerics.cfl: required key is missing; deck.toml:2 sets "
                                      "'numerics.cfll', a typo?"));
  CHECK_THROWS_WITH(d.get_string("title"), "deck.toml: title: required key is missing");
  // A key known as one of its own (declared, to be read later) is no typo of the missing one.
  Deck g = Deck::parse("[grid]\ndx = 1.0\n", "deck.toml");
  g.declare("grid.dx");
  CHECK_THROWS_WITH(g.get_int("grid.nx"), "deck.toml: grid.nx: required key is missing");
  // Where the missing key's table has keys, only its own unread keys may be the typo; a table
  // made on the command line is the command line's.
  Deck t = Deck::parse("[gauges.river]\nx = 1.0\ny = 2.0\n", "deck.toml");
  t.set_override("gauges.new.x=5");
  CHECK(t.get_double("gauges.new.x") == 5);
  CHECK_THROWS_WITH(t.get_double("gauges.new.y"), "command line: gauges.new.y: required key is missing");
  t.set_override("gauges.new.yy=5");
  CHECK_THROWS_WITH(t.get_double("gauges.new.y"),
                    "command line: gauges.new.y: required key is missing; command line sets 'gauges.new.yy', a typo?");
  // A table the deck does not have: any unread key may be its typo.
  Deck u = Deck::parse("[gird]\nnx = 10\n", "deck.toml");
  CHECK_THROWS_WITH(u.get_int("grid.nx"),
                    "deck.toml: grid.nx: required key is missing; deck.toml:2 sets 'gird.nx', a typo?");
}

TEST_CASE("deck: choices", "[io][deck]") {
  Deck d = Deck::parse("[boundary.west]\ntype = \"wal\"\n", "deck.toml");
  const std::vector<std::string> types = {"wall", "open", "stage", "inflow"};
  CHECK_THROWS_MATCHES(d.get_choice("boundary.west.type", types), InputError,
                       Catch::Message("deck.toml:2: boundary.west.type: expected one of wall, open, stage, inflow, "
                                      "got \"wal\"; did you mean 'wall'?"));
  CHECK(d.get_choice("boundary.east.type", "open", types) == "open");
  d.set_override("boundary.west.type=stage");
  CHECK(d.get_choice("boundary.west.type", types) == "stage");
}

TEST_CASE("deck: command-line overrides", "[io][deck]") {
  Deck d = Deck::load(data_file("deck.toml"));
  d.set_override("numerics.cfl=0.5");
  d.set_override(" grid.origin = [1, 2] ");
  d.set_override("output.dir=results/run1");  // not TOML: a bare string
  d.set_override("run.name=2024");             // an integer, but readable as text
  d.set_override("run.label=\"a b\"");
  d.set_override("physics.manning=0.03");     // not in the deck: allowed
  CHECK(d.get_double("numerics.cfl") == 0.5);
  CHECK(d.where("numerics.cfl") == "command line");
  CHECK(d.get_double_list("grid.origin") == std::vector<double>{1, 2});
  CHECK(d.get_string("output.dir") == "results/run1");
  CHECK(d.get_string("run.name") == "2024");
  CHECK(d.get_int("run.name") == 2024);
  CHECK(d.get_string("run.label") == "a b");
  CHECK(d.get_double("physics.manning") == 0.03);
  CHECK(d.get_path("output.dir") == "results/run1");  // relative to where shwa runs

  CHECK_THROWS_WITH(d.set_override("numerics.cfl"), "command line: \"numerics.cfl\": expected section.key=value");
  CHECK_THROWS_WITH(d.set_override("numerics..cfl=1"),
                    "command line: \"numerics..cfl\": not a valid key (letters, digits, '_' and '-', sections "
                    "separated by '.')");
  CHECK_THROWS_WITH(d.set_override("numerics.cfl.x=1"),
                    "command line: numerics.cfl.x: numerics.cfl is a value (command line), not a table");
  CHECK_THROWS_WITH(d.set_override("boundary.west=1"),
                    "command line: boundary.west: is a table (" + data_file("deck.toml") +
                        ":16 sets boundary.west.series); set its keys instead");
  // An unknown key set on the command line is reported like one in the file.
  d.set_override("numerics.cfll=1");
  read_all(d);
  CHECK_THROWS_WITH(d.check_unused(), "command line: numerics.cfll: unknown key; did you mean 'numerics.cfl'?");
}

TEST_CASE("deck: defaults, and the resolved configuration reads back the same", "[io][deck]") {
  Deck d = Deck::load(data_file("deck.toml"));
  d.set_override("numerics.cfl=0.45");
  read_all(d);
  CHECK(d.get_double("numerics.eps_h", 1e-4) == 1e-4);
  CHECK(d.get_int("numerics.halo", 2) == 2);
  CHECK_FALSE(d.get_bool("output.png", false));
  CHECK(d.get_string("output.dir", "out") == "out");
  CHECK(d.get_double_list("output.times", {0.1, 3600}) == std::vector<double>{0.1, 3600});
  CHECK(d.get_string_list("output.gauges", {}).empty());
  CHECK(d.where("numerics.eps_h") == "default");
  CHECK_FALSE(d.has("numerics.eps_h"));

  const std::string text = d.resolved_toml();
  CHECK_THAT(text, Catch::Contains("eps_h = 0.0001  # default\n"));
  // A whole default (a count) is written as an integer, whatever type reads it.
  CHECK_THAT(text, Catch::Contains("times = [0.1, 3600]  # default\n"));
  CHECK_THAT(text, Catch::Contains("cfl = 0.45  # command line\n"));
  CHECK_THAT(text, Catch::Contains("[boundary.west]\n"));
  CHECK_THAT(text, Catch::Contains("dx = 10.0\n"));

  Deck r = Deck::parse(text, "resolved.toml");
  CHECK(r.get_string("title") == "estuary");
  CHECK(r.get_int("grid.nx") == 200);
  CHECK(r.get_double("grid.dx") == 10.0);
  CHECK(r.get_double_list("grid.origin") == std::vector<double>{1000.5, -20});
  CHECK(r.get_double("numerics.cfl") == 0.45);
  CHECK(r.get_double("numerics.eps_h") == 1e-4);
  CHECK(r.get_int("numerics.halo") == 2);
  CHECK(r.get_string("boundary.west.type") == "stage");
  // A file name is written as the absolute path it led to, so the resolved deck runs from any
  // folder (the deck's own folder is not the resolved deck's).
  CHECK_THAT(text, Catch::Contains("# Its file names are absolute"));
  CHECK(r.get_string("boundary.west.series") == std::filesystem::absolute(data_file("tide.csv")).lexically_normal().string());
  CHECK(std::filesystem::exists(r.get_path("boundary.west.series")));
  CHECK(r.get_string_list("output.fields") == std::vector<std::string>{"h", "eta", "c"});
  CHECK(r.get_double_list("output.times") == std::vector<double>{0.1, 3600});
  CHECK(r.get_string_list("output.gauges").empty());
}

TEST_CASE("deck: structures the flat keys cannot hold are refused, not crashed on", "[io][deck]") {
  CHECK_THROWS_WITH(Deck::parse("[[gauges]]\nx = 1\n", "deck.toml"),
                    "deck.toml:1: gauges: arrays of tables are not supported; use one named table per item, e.g. "
                    "[gauges.NAME]");
  CHECK_THROWS_WITH(Deck::parse("\"a.b\" = 1\n", "deck.toml"),
                    "deck.toml:1: \"a.b\": a key must not be empty or contain '.'; use a table");
  // toml11 would overflow the stack on this.
  const std::string deep = "a = " + std::string(100000, '[');
  CHECK_THROWS_WITH(Deck::parse(deep, "deck.toml"),
                    "deck.toml:1: invalid TOML: arrays or inline tables nested more than 64 deep");
  // Brackets inside strings and comments do not count.
  Deck d = Deck::parse("s = \"" + std::string(100, '[') + "\" # " + std::string(100, '{') + "\nt = '''\n" +
                           std::string(100, '[') + "'''''\n",
                       "deck.toml");
  CHECK(d.get_string("s") == std::string(100, '['));
  CHECK(d.get_string("t") == std::string(100, '[') + "''");
  CHECK_THROWS_WITH(Deck::parse("a = [1,\n", "deck.toml"), Catch::StartsWith("deck.toml:2: invalid TOML: "));
  // TOML is UTF-8; toml11 itself misreads memory on a bad sequence in a string.
  CHECK_THROWS_WITH(Deck::parse("a = 1\nb = '\xff\xff'\n", "deck.toml"), "deck.toml:2: invalid TOML: not UTF-8 text");
  CHECK_THROWS_WITH(Deck::parse("b = \"\xed\xa0\x80\"\n", "deck.toml"), "deck.toml:1: invalid TOML: not UTF-8 text");
  CHECK(Deck::parse("b = \"h\xc3\xa9 \xf0\x9f\x8c\x8a\"\n", "deck.toml").get_string("b") == "h\xc3\xa9 \xf0\x9f\x8c\x8a");
  CHECK_THROWS_WITH(Deck().set_override("a.b='\xc0\xaf'"), "command line: a.b: the value is not UTF-8 text");
  // Classic Mac OS line ends are named; CRLF line ends are TOML.
  CHECK_THROWS_WITH(Deck::parse("[grid]\rnx = 2\r", "deck.toml"),
                    "deck.toml:1: invalid TOML: a carriage return without a line feed (classic Mac OS line ends?); "
                    "save the file with LF or CRLF line ends");
  CHECK(Deck::parse("[grid]\r\nnx = 2\r\n", "deck.toml").get_int("grid.nx") == 2);
}

TEST_CASE("deck: error() builds located messages for the caller's own checks", "[io][deck]") {
  Deck d = Deck::parse("[grid]\nnx = 100\n", "deck.toml");
  CHECK(std::string(d.error("grid.nx", "the raster has 120 columns").what()) ==
        "deck.toml:2: grid.nx: the raster has 120 columns");
}
