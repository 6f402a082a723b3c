// The tables that declare the deck's choices once each (output fields, built-in problems, boundary
// types): what each entry builds, the messages made from them, and inputs/README.md listing
// exactly their names (and the problems' keys), so that the documentation cannot drift from the
// code.
#include "config.hpp"
#include "outputs.hpp"
#include "problems.hpp"

#include "io/deck.hpp"
#include "io/error.hpp"
#include "io/text.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace shwa::app;
namespace io = shwa::io;

namespace {

std::string readme() {
  std::ifstream f(std::string(SHWA_SOURCE_DIR) + "/inputs/README.md");
  REQUIRE(f);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

// The one line of the README that starts with `start`; fails unless there is exactly one.
std::string row(const std::string& start) {
  std::vector<std::string> found;
  for (const std::string& l : lines(readme()))
    if (l.rfind(start, 0) == 0) found.push_back(l);
  INFO("inputs/README.md lines starting with " << start);
  REQUIRE(found.size() == 1);
  return found[0];
}

// Every match of group 1 of `re` in `text`, in order.
std::vector<std::string> all(const std::string& text, const std::string& re) {
  std::vector<std::string> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}

// A run's configuration from a small deck of a 4 x 4 lake with `extra` appended, or "refused: "
// and the error.
std::string config_error(const std::string& extra) {
  io::Deck d = io::Deck::parse("[grid]\nnx = 4\nny = 4\ndx = 1\n[initial]\nproblem = \"pollutant_patch\"\n"
                               "[time]\nend = 1\n[output]\ndir = \"tables-out\"\n" + extra,
                               "case.toml");
  LoadOptions lo;
  lo.check_memory = false;
  try {
    load_config(d, "case.toml", lo);
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "";
}

RunConfig config(const std::string& extra) {
  io::Deck d = io::Deck::parse("[grid]\nnx = 4\nny = 4\ndx = 1\n[initial]\nproblem = \"pollutant_patch\"\n"
                               "[time]\nend = 1\n[output]\ndir = \"tables-out\"\n" + extra,
                               "case.toml");
  LoadOptions lo;
  lo.check_memory = false;
  return load_config(d, "case.toml", lo);
}

}  // namespace

TEST_CASE("tables: inputs/README.md lists exactly the output fields, problems and boundary types", "[app][tables]") {
  // output.fields' default: every field of the table, in its order (gauges.csv's columns too).
  const std::string fields = row("| `fields` |");
  CHECK(all(fields.substr(0, fields.find("] |")), "\"([a-z_]+)\"") == output_field_names());
  CHECK(readme().find("gets " + io::join(output_field_names()) + " of the cell") != std::string::npos);
  // The built-in problems' table: one row each, with the keys the table documents.
  const std::vector<std::string> text = lines(readme());
  std::vector<std::string> names, keys;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (text[k].rfind("| `problem` |", 0) != 0) continue;
    for (std::size_t r = k + 2; r < text.size() && text[r].rfind("| `", 0) == 0; ++r) {
      const std::smatch m = [&] {
        std::smatch s;
        std::regex_match(text[r], s, std::regex("\\| `([a-z_]+)` \\| (.*) \\|"));
        return s;
      }();
      REQUIRE(m.size() == 3);
      names.push_back(m[1].str());
      keys.push_back(m[2].str());
    }
  }
  CHECK(names == problem_names());
  for (std::size_t k = 0; k < names.size() && k < problems().size(); ++k) {
    INFO("problem " << names[k] << ": inputs/README.md and problems() in app/problems.cpp");
    CHECK(keys[k] == problems()[k].keys);
  }
  // boundary.SIDE.type's choices.
  std::vector<std::string> types;
  for (const BoundaryTypeInfo& b : boundary_types()) types.push_back(b.name);
  CHECK(all(row("| `type` |"), "`\"([a-z_]+)\"`") == types);
}

TEST_CASE("tables: every entry is documented, and built by its own code", "[app][tables]") {
  std::set<std::string> seen;
  for (const OutputFieldInfo& f : output_fields()) {
    INFO(f.name);
    CHECK(seen.insert(f.name).second);
    CHECK_FALSE(f.description.empty());
    CHECK_FALSE(f.units.empty());
    CHECK_FALSE(f.long_name.empty());
    REQUIRE(f.value != nullptr);
  }
  for (const ProblemInfo& p : problems()) {
    INFO(p.name);
    CHECK(seen.insert(p.name).second);
    CHECK_FALSE(p.description.empty());
    REQUIRE(p.setup != nullptr);
    // The problem's own builder gives every cell of a square 6 x 6 grid (thacker needs a square)
    // and its exact solution.
    io::Deck d = io::Deck::parse("[initial]\nh_left = 1\n", "case.toml");
    RunConfig cfg;
    cfg.grid.nx = cfg.grid.ny = 6;
    cfg.grid.dx = cfg.grid.dy = 1;
    const InitialField field = setup_problem(p.name, d, cfg);
    REQUIRE(field.at);
    CHECK_FALSE(field.manning);
    for (int j = 0; j < 6; ++j)
      for (int i = 0; i < 6; ++i) {
        InitialCell c;
        c.h = -1;
        field.at(i, j, c);
        CHECK(c.h >= 0);
        CHECK(std::isfinite(c.H));
      }
    CHECK(bool(cfg.exact));
  }
  std::set<int> kinds;
  for (const BoundaryTypeInfo& b : boundary_types()) {
    INFO(b.name);
    CHECK(seen.insert(b.name).second);
    CHECK(kinds.insert(int(b.type)).second);
    CHECK_FALSE(b.description.empty());
    CHECK(&boundary_type(b.type) == &b);
  }
}

TEST_CASE("tables: the fields of a frame are the table's, computed by its entries", "[app][tables]") {
  const HostValues h = {2.0, 1e-4, 0.0}, qx = {1.0, 1e-6, 0.0}, qy = {-3.0, 0.0, 0.0},
                   hc = {0.5, 0.5e-4, 0.0}, H = {1.5, 1.0, -1.0};
  FieldMap f;
  derived_fields(h, qx, qy, {hc}, H, 1e-3, {""}, f);
  std::vector<std::string> names;
  for (const auto& kv : f) names.push_back(kv.first);
  std::vector<std::string> sorted = output_field_names();
  std::sort(sorted.begin(), sorted.end());
  CHECK(names == sorted);
  CHECK(f.at("h") == h);
  CHECK(f.at("eta")[0] == 0.5);
  CHECK(std::isnan(f.at("eta")[1]));  // dry: no free surface
  CHECK(f.at("v")[0] == -1.5);
  CHECK(f.at("v")[1] == 0.0);
  CHECK(f.at("c")[0] == 0.25);
  CHECK(output_field("u").value(CellValues{2.0, 1.0, 0.0, 0.0, 0.0, 1e-3}) == 0.5);
  CHECK_THROWS_AS(output_field("zz"), std::logic_error);
}

TEST_CASE("tables: the deck's messages name the table's entries", "[app][tables]") {
  // An unknown field: the closest, else every name.
  CHECK(config_error("fields = [\"etta\"]\n") ==
        "case.toml:11: output.fields: unknown field \"etta\"; did you mean 'eta'?");
  CHECK(config_error("fields = [\"zzzzz\"]\n") ==
        "case.toml:11: output.fields: unknown field \"zzzzz\"; fields are " + io::join(output_field_names()));
  // A boundary type: the table's names, the closest suggested.
  std::vector<std::string> types;
  for (const BoundaryTypeInfo& b : boundary_types()) types.push_back(b.name);
  CHECK(config_error("[boundary.west]\ntype = \"stag\"\n") ==
        "case.toml:12: boundary.west.type: expected one of " + io::join(types) +
            ", got \"stag\"; did you mean 'stage'?");
  // No problem and no bathymetry: every problem named.
  io::Deck d = io::Deck::parse("[grid]\nnx = 4\nny = 4\ndx = 1\n[time]\nend = 1\n", "case.toml");
  try {
    load_config(d, "case.toml");
    FAIL("a deck without initial.problem and initial.bathymetry was accepted");
  } catch (const io::InputError& e) {
    CHECK(std::string(e.what()).find("(one of " + io::join(problem_names()) + ")") != std::string::npos);
  }
  // A problem's name, misspelt.
  CHECK(config_error("").empty());
  io::Deck typo = io::Deck::parse("[grid]\nnx = 4\nny = 4\ndx = 1\n[initial]\nproblem = \"thaker\"\n[time]\nend = 1\n",
                                  "case.toml");
  CHECK_THROWS_WITH(load_config(typo, "case.toml"),
                    Catch::Contains("expected one of " + io::join(problem_names())) &&
                        Catch::Contains("did you mean 'thacker'?"));
}

TEST_CASE("tables: a boundary type with values is a segment, one without a side's default", "[app][tables]") {
  const RunConfig cfg = config("[boundary.west]\ntype = \"stage\"\nvalue = 1.5\n[boundary.east]\ntype = \"open\"\n"
                               "[boundary.south]\ntype = \"discharge\"\nvalue = 2\nconcentration = 0.5\n"
                               "[boundary.north.segments.gate]\ntype = \"open\"\nbegin = 1\nend = 3\n");
  CHECK(cfg.bc.side_default[shwa::West] == shwa::BcType::Wall);
  CHECK(cfg.bc.side_default[shwa::East] == shwa::BcType::Open);
  CHECK(cfg.bc.side_default[shwa::South] == shwa::BcType::Wall);
  CHECK(cfg.bc.side_default[shwa::North] == shwa::BcType::Wall);
  REQUIRE(cfg.bc.segments.size() == 3);
  CHECK(cfg.bc.segments[0].side == shwa::West);
  CHECK(cfg.bc.segments[0].type == shwa::BcType::Stage);
  CHECK(cfg.bc.segments[0].stage(0.0) == 1.5);
  CHECK(cfg.bc.segments[1].side == shwa::South);
  CHECK(cfg.bc.segments[1].type == shwa::BcType::Discharge);
  CHECK(cfg.bc.segments[1].discharge(0.0) == 2.0);
  CHECK(cfg.bc.segments[1].concentration.at(0)(0.0) == 0.5);
  CHECK(cfg.bc.segments[2].side == shwa::North);
  CHECK(cfg.bc.segments[2].type == shwa::BcType::Open);
  CHECK(cfg.bc.segments[2].begin == 1);
  CHECK(cfg.bc.segments[2].end == 3);
  // A type without values takes none: its keys are refused, naming the types that read them.
  CHECK_THAT(config_error("[boundary.east]\ntype = \"open\"\nvalue = 1\n"),
             Catch::Contains("boundary.east.value: used only with boundary.east.type = \"stage\" or \"discharge\" "
                             "(boundary.east.type is \"open\", "));
}
