// What a restart checks before it continues a checkpoint (app/checkpointing.hpp): impossible
// header values are refused; the deck's values must be those recorded in the checkpoint, but for
// the keys a restart may change, and the first other difference is named; every input file must
// have the recorded contents. The configurations come from decks through load_config, as `shwa
// run` builds them.
#include "checkpointing.hpp"
#include "config.hpp"

#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "io/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

using shwa::app::check_restart;
using shwa::app::definition_metadata;
using shwa::app::load_config;
using shwa::app::may_change_on_restart;
using shwa::app::RunConfig;
namespace io = shwa::io;
namespace fs = std::filesystem;

namespace {

const char* const kDeck = R"([grid]
nx = 8
ny = 4
dx = 1.0
[initial]
problem = "lake_at_rest"
[physics]
g = 9.81
[time]
end = 10
checkpoint_interval = 1.0
)";

/// The configuration of a deck text with command-line overrides.
RunConfig config(const std::string& text, const std::vector<std::string>& sets = {},
                 const std::string& name = "case.toml") {
  io::Deck d = io::Deck::parse(text, name);
  d.set_override("output.dir=restart-check-out");  // never created: load_config only checks it
  for (const std::string& s : sets) d.set_override(s);
  return load_config(d, name);
}

/// A checkpoint of `cfg`'s run at step 12, t = 3 s, recording its definition.
io::Checkpoint checkpoint_of(const RunConfig& cfg) {
  io::Checkpoint c;
  c.precision = int(sizeof(shwa::Real));
  c.nx = cfg.grid.nx;
  c.ny = cfg.grid.ny;
  c.time = 3.0;
  c.step = 12;
  c.metadata = definition_metadata(cfg.definition);
  c.metadata["dt_min"] = "0.25";
  // The arrays a run of kDeck reads back: its state (one unnamed pollutant) and its maxima.
  for (const char* name : {"h", "qx", "qy", "hc", "hmax", "cmax", "arrival"})
    c.arrays[name] = io::HostArray<shwa::Real>(std::size_t(c.nx) * std::size_t(c.ny), shwa::Real(0));
  return c;
}

/// The error check_restart gives for continuing `c` with `cfg`, or "accepted".
std::string verdict(const io::Checkpoint& c, const RunConfig& cfg) {
  try {
    check_restart(c, "ck.shck", cfg, definition_metadata(cfg.definition));
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("restart check: impossible checkpoint headers are refused", "[restart_check]") {
  const RunConfig cfg = config(kDeck);
  const io::Checkpoint good = checkpoint_of(cfg);
  CHECK(verdict(good, cfg) == "accepted");
  for (const double t : {-5.0, -0.0 - 1e-300, std::nan(""), std::numeric_limits<double>::infinity()}) {
    io::Checkpoint c = good;
    c.time = t;
    INFO("time " << t);
    CHECK_THAT(verdict(c, cfg), Catch::StartsWith("ck.shck: impossible checkpoint: time "));
  }
  io::Checkpoint c = good;
  c.step = -3;
  CHECK(verdict(c, cfg) == "ck.shck: impossible checkpoint: step -3 (a step count is >= 0)");
  c = good;
  c.step = 0;  // a time reached without a step
  CHECK_THAT(verdict(c, cfg), Catch::StartsWith("ck.shck: impossible checkpoint: time 3 after 0 steps"));
  c = good;
  c.time = 0;  // steps that advanced no time
  CHECK_THAT(verdict(c, cfg), Catch::StartsWith("ck.shck: impossible checkpoint: time 0 after 12 steps"));
  c = good;
  c.time = 10.5;
  CHECK(verdict(c, cfg) == "ck.shck: the checkpoint's time 10.5 lies past time.end");
  c = good;
  c.nx = 9;
  CHECK(verdict(c, cfg) == "ck.shck: the checkpoint's grid is 9 x 4, the deck's 8 x 4");
  c = good;
  c.arrays["h"] = shwa::io::HostArray<double>(32, 1.0);
  c.arrays["qx"] = shwa::io::HostArray<double>(31, 0.0);
  CHECK(verdict(c, cfg) == "ck.shck: impossible checkpoint: its array 'qx' holds 31 values, its grid 32 cells");
}

TEST_CASE("restart check: a checkpoint without an array the run reads back, or with one of the other precision, "
          "is refused",
          "[restart_check]") {
  const RunConfig cfg = config(kDeck);
  const io::Checkpoint good = checkpoint_of(cfg);
  for (const char* name : {"h", "qx", "qy", "hc", "hmax", "cmax", "arrival"}) {
    INFO(name);
    io::Checkpoint c = good;
    c.arrays.erase(name);
    CHECK(verdict(c, cfg) == std::string("ck.shck: checkpoint has no array \"") + name + "\"");
    c = good;
    const std::size_t n = std::size_t(c.nx) * std::size_t(c.ny);
    if (sizeof(shwa::Real) == sizeof(double))
      c.arrays[name] = io::HostArray<float>(n, 0.0f);
    else
      c.arrays[name] = io::HostArray<double>(n, 0.0);
    CHECK_THAT(verdict(c, cfg), Catch::StartsWith(std::string("ck.shck: checkpoint array \"") + name + "\" is not of "));
  }
  // Without maxima the run reads back its state alone.
  const RunConfig without = config(kDeck, {"output.maxima=false"});
  io::Checkpoint c = checkpoint_of(without);
  for (const char* name : {"hmax", "cmax", "arrival"}) c.arrays.erase(name);
  CHECK(verdict(c, without) == "accepted");
  c.arrays.erase("hc");
  CHECK(verdict(c, without) == "ck.shck: checkpoint has no array \"hc\"");
  // A run that keeps maxima, from a checkpoint of one that did not (and so has none): the key that
  // changed is named, not the array it lacks.
  for (const char* name : {"hmax", "cmax", "arrival"}) c.arrays.erase(name);
  c.arrays["hc"] = good.arrays.at("hc");
  CHECK_THAT(verdict(c, cfg), Catch::StartsWith("case.toml: output.maxima: \"true\" here, \"false\" in the run that wrote ck.shck"));
}

TEST_CASE("restart check: a changed deck value is refused, naming the first key and both values",
          "[restart_check]") {
  const io::Checkpoint c = checkpoint_of(config(kDeck));
  // The same values, however typed: 10 and 10.0, a default and the same value set.
  CHECK(verdict(c, config(kDeck, {"time.end=10.0", "physics.manning=0", "grid.dx=1"})) == "accepted");
  // Keys a restart may change.
  CHECK(verdict(c, config(kDeck, {"time.end=20", "time.checkpoint_interval=2.5", "time.output_interval=5",
                                  "output.formats=[\"asc\"]", "output.progress_interval=1",
                                  "numerics.health_interval=3", "numerics.tile=[16, 4]", "numerics.skip_dry=false",
                                  "parallel.halo_width=2", "parallel.decomposition=\"strips\""})) == "accepted");
  // Another deck file with the same values continues the run.
  CHECK(verdict(c, config(kDeck, {}, "copy.toml")) == "accepted");

  CHECK(verdict(c, config(kDeck, {"physics.g=9.8"})) ==
        "command line: physics.g: \"9.8\" here, \"9.81\" in the run that wrote ck.shck; a restart continues the same "
        "run and may change only the keys inputs/README.md lists");
  // The first difference in alphabetical order.
  CHECK_THAT(verdict(c, config(kDeck, {"physics.g=9.8", "numerics.cfl=0.5"})),
             Catch::StartsWith("command line: numerics.cfl: \"0.5\" here, \"0.9\" in the run that wrote ck.shck"));
  // Set in the deck file: named with its line.
  std::string dx2 = kDeck;
  dx2.replace(dx2.find("dx = 1.0"), 8, "dx = 2.0");
  CHECK_THAT(verdict(c, config(dx2)), Catch::StartsWith("case.toml:4: grid.dx: \"2\" here, \"1\" in the run"));
  // A key the checkpoint's run did not have, and one it had.
  CHECK_THAT(verdict(c, config(std::string(kDeck) + "[gauges.a]\nx = 1.5\ny = 1.5\n")),
             Catch::StartsWith("case.toml:13: gauges.a.x: \"1.5\" here, not set in the run that wrote ck.shck"));
  const io::Checkpoint with_gauge = checkpoint_of(config(std::string(kDeck) + "[gauges.a]\nx = 1.5\ny = 1.5\n"));
  CHECK_THAT(verdict(with_gauge, config(kDeck)), Catch::StartsWith("case.toml: gauges.a.x: not set here, \"1.5\" in"));
  // A problem or a boundary condition is a key like any other.
  CHECK_THAT(verdict(c, config(kDeck, {"boundary.west.type=\"open\""})),
             Catch::StartsWith("command line: boundary.west.type: \"open\" here, \"wall\" in"));

  // A checkpoint that records no deck (an older shwa's) cannot be checked.
  io::Checkpoint old = c;
  for (auto it = old.metadata.begin(); it != old.metadata.end();)
    it = it->first.rfind("deck.", 0) == 0 ? old.metadata.erase(it) : std::next(it);
  CHECK_THAT(verdict(old, config(kDeck)), Catch::Contains("does not record the deck of its run"));
}

TEST_CASE("restart check: an input file that changed is refused, naming it", "[restart_check]") {
  const fs::path dir = fs::absolute("restart-check-files");
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  };
  std::string body = "ncols 4\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";
  for (int j = 0; j < 2; ++j) body += "-2 -2 -2 -2\n";
  write("bathy.asc", body);
  write("tide.csv", "time,stage\n0,0\n100,1\n");
  const std::string deck = "[initial]\nbathymetry = \"bathy.asc\"\n[boundary.west]\ntype = \"stage\"\n"
                           "series = \"tide.csv\"\ncolumn = \"stage\"\n[time]\nend = 10\n";
  const std::string deck_path = (dir / "deck.toml").string();
  const RunConfig cfg = config(deck, {}, deck_path);
  CHECK(cfg.definition.files.size() == 2);
  const io::Checkpoint c = checkpoint_of(cfg);
  CHECK_THAT(c.metadata.at("input.initial.bathymetry"), Catch::Matches("crc32 [0-9a-f]{8}, 75 bytes"));
  CHECK(verdict(c, cfg) == "accepted");

  // One digit of the bathymetry changed: the same size, other contents.
  body[body.size() - 2] = '3';
  write("bathy.asc", body);
  const RunConfig edited = config(deck, {}, deck_path);
  CHECK_THAT(verdict(c, edited), Catch::StartsWith((dir / "bathy.asc").string() +
                                                   " (initial.bathymetry): the file changed since ck.shck was written"));
  CHECK_THAT(verdict(c, edited), Catch::Contains("must read the same input files"));
  body[body.size() - 2] = '2';
  write("bathy.asc", body);
  // The same contents in another file: the same run.
  fs::create_directories(dir / "moved");
  write("moved/b.asc", body);
  std::string moved = deck;
  moved.replace(moved.find("bathy.asc"), 9, "moved/b.asc");
  CHECK(verdict(c, config(moved, {}, deck_path)) == "accepted");
  write("tide.csv", "time,stage\n0,0\n100,1.5\n");
  CHECK_THAT(verdict(c, config(deck, {}, deck_path)),
             Catch::StartsWith((dir / "tide.csv").string() + " (boundary.west.series): the file changed"));
  fs::remove_all(dir);
}

TEST_CASE("restart check: the keys a restart may change", "[restart_check]") {
  for (const char* key : {"time.end", "time.checkpoint_interval", "output.dir", "output.formats", "output.png_animation",
                          "output.vtk_compression", "parallel.decomposition", "parallel.halo_width",
                          "numerics.health_interval"})
    CHECK(may_change_on_restart(key));
  // output.precision: shwa.nc's variables keep the type of the run that made the file.
  for (const char* key : {"physics.g", "grid.dx", "numerics.cfl", "numerics.kernel", "output.maxima",
                          "output.arrival_threshold", "output.gauge_interval", "output.precision", "initial.problem",
                          "time.endx"})
    CHECK_FALSE(may_change_on_restart(key));
}

TEST_CASE("restart check: a key the checkpoint's shwa did not have is the same run where it does what that shwa did; "
          "the precision is the build's",
          "[restart_check]") {
  const io::Checkpoint c = checkpoint_of(config(kDeck));
  const std::string single = "output.precision=\"single\"", double_ = "output.precision=\"double\"";
  const bool built_single = config(kDeck).out.single_precision;
  CHECK_THAT(verdict(c, config(kDeck, {built_single ? double_ : single})),
             Catch::Contains("output.precision: \"" + std::string(built_single ? "double" : "single") + "\" here, \"" +
                             (built_single ? "single" : "double") + "\" in the run that wrote ck.shck"));
  CHECK(verdict(c, config(kDeck, {"output.vtk_compression=\"zlib\""})) == "accepted");
  // Written before output.precision existed, when every array was of doubles: continued where it
  // is "double" (a double build's default), refused where it is "single" (a single build's).
  io::Checkpoint older = c;
  REQUIRE(older.metadata.erase("deck.output.precision") == 1);
  CHECK(verdict(older, config(kDeck, {double_})) == "accepted");
  CHECK_THAT(verdict(older, config(kDeck, {single})),
             Catch::Contains("output.precision: \"single\" here, not set in the run that wrote ck.shck"));
  CHECK((verdict(older, config(kDeck)) == "accepted") == !built_single);
  // Any other key the checkpoint does not record is a change.
  io::Checkpoint other_key = c;
  REQUIRE(other_key.metadata.erase("deck.physics.g") == 1);
  CHECK_THAT(verdict(other_key, config(kDeck)), Catch::Contains("physics.g: \"9.81\" here, not set in the run"));
  // A checkpoint of the other precision is refused as such, before its keys are compared.
  io::Checkpoint other = c;
  other.precision = built_single ? 8 : 4;
  CHECK(verdict(other, config(kDeck)) == std::string("ck.shck: the checkpoint was written in ") +
                                             (built_single ? "double" : "single") +
                                             " precision, this build runs in the other");
}
