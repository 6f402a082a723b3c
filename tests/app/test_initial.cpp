// Each rank keeps the initial state of its own block (LoadOptions::block): its values are those of
// the whole grid's at the same cells, bit for bit, from a built-in problem with a spill and from
// rasters (NODATA, a depth raster, a concentration raster, a Manning raster); the checks of the
// whole grid (a spill over no wet cell, a depth beyond the plausible) refuse a deck whatever the
// block; the figures of the whole grid (the greatest depth and concentration) are the same.
#include "config.hpp"

#include "io/deck.hpp"
#include "io/error.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace shwa::app;
namespace io = shwa::io;
namespace fs = std::filesystem;

namespace {

/// A configuration of `deck` (a file in `dir`) that keeps `block` (none: the whole grid).
RunConfig load(const fs::path& deck, const shwa::Extent* block = nullptr) {
  io::Deck d = io::Deck::load(deck.string());
  LoadOptions lo;
  lo.check_memory = false;
  if (block) lo.block = [b = *block](const RunConfig&) { return b; };
  return load_config(d, deck.string(), lo);
}

/// The same bits.
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// `part` holds exactly `block`, with the values `whole` has at those cells.
void check_block(const RunConfig& whole, const RunConfig& part, const shwa::Extent& block) {
  const InitialState& w = whole.init;
  const InitialState& p = part.init;
  CHECK(w.block.i0 == 0);
  CHECK(w.block.i1 == whole.grid.nx);
  CHECK(w.block.j1 == whole.grid.ny);
  CHECK(p.block.i0 == block.i0);
  CHECK(p.block.i1 == block.i1);
  CHECK(p.block.j0 == block.j0);
  CHECK(p.block.j1 == block.j1);
  const std::size_t cells = std::size_t(block.nx()) * std::size_t(block.ny());
  for (const shwa::app::HostValues* v : {&p.H, &p.h, &p.u, &p.v}) CHECK(v->size() == cells);
  REQUIRE(p.c.size() == w.c.size());
  for (const shwa::app::HostValues& c : p.c) CHECK(c.size() == cells);
  CHECK(p.n.size() == (w.n.empty() ? 0 : cells));
  int differ = 0;
  for (int j = block.j0; j < block.j1; ++j)
    for (int i = block.i0; i < block.i1; ++i) {
      REQUIRE(p.holds(i, j));
      const std::size_t a = w.index(i, j), b = p.index(i, j);
      differ += !same(w.H[a], p.H[b]) + !same(w.h[a], p.h[b]) + !same(w.u[a], p.u[b]) + !same(w.v[a], p.v[b]) +
                (w.n.empty() ? 0 : !same(w.n[a], p.n[b]));
      for (std::size_t t = 0; t < w.c.size(); ++t) differ += !same(w.c[t][a], p.c[t][b]);
    }
  CHECK(differ == 0);
  CHECK_FALSE(p.holds(block.i0 - 1, block.j0));
  CHECK_FALSE(p.holds(block.i0, block.j1));
  CHECK(same(p.h_max, w.h_max));
  REQUIRE(p.c_max.size() == w.c.size());
  for (std::size_t t = 0; t < w.c.size(); ++t) CHECK(same(p.c_max[t], w.c_max[t]));
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// An nx x ny raster whose value at cell (i, j) (j = 0 the southern row) is f(i, j).
template <class F>
void write_raster(const fs::path& path, int nx, int ny, F&& f) {
  std::ostringstream s;
  s << "ncols " << nx << "\nnrows " << ny << "\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n";
  for (int j = ny - 1; j >= 0; --j)
    for (int i = 0; i < nx; ++i) s << f(i, j) << (i + 1 < nx ? ' ' : '\n');
  write(path, s.str());
}

struct Dir {
  fs::path path = fs::absolute("initial-state-test");
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("initial: a rank keeps its block's initial state, the same bits as the whole grid's", "[app][initial]") {
  Dir dir;
  // A built-in problem with a spill whose disk crosses the blocks.
  write(dir.path / "lake.toml",
        "[grid]\nnx = 37\nny = 23\ndx = 2.5\nx0 = 100\n[initial]\nproblem = \"lake_at_rest\"\nlevel = 0.2\n"
        "[pollutant]\nx = 150.0\ny = 30.0\nradius = 20.0\nconcentration = 0.75\n[time]\nend = 1\n"
        "[output]\ndir = \"out\"\n");
  const RunConfig whole = load(dir.path / "lake.toml");
  CHECK(whole.init.c_max.at(0) == 0.75);
  CHECK(whole.init.h_max > 0);
  using shwa::Extent;
  for (const Extent& b : {Extent{0, 19, 0, 12}, Extent{19, 37, 0, 12}, Extent{19, 37, 12, 23},
                          Extent{0, 37, 11, 23}, Extent{5, 6, 7, 8}}) {
    INFO("block [" << b.i0 << ", " << b.i1 << ") x [" << b.j0 << ", " << b.j1 << ")");
    check_block(whole, load(dir.path / "lake.toml", &b), b);
  }

  // Rasters: NODATA land, a depth raster, concentrations and Manning's n per cell.
  const int nx = 30, ny = 20;
  write_raster(dir.path / "bathy.asc", nx, ny, [](int i, int j) {
    return (i + 2 * j) % 11 == 0 ? -9999.0 : -2.0 + 0.05 * i - 0.03 * j;
  });
  write_raster(dir.path / "depth.asc", nx, ny, [](int i, int j) { return i < 12 ? 1.5 + 0.01 * j : 0.0; });
  write_raster(dir.path / "conc.asc", nx, ny, [](int i, int j) { return (i * j) % 5 == 0 ? -9999.0 : 0.1 * (i % 3); });
  write_raster(dir.path / "n.asc", nx, ny, [](int i, int) { return i % 4 == 0 ? -9999.0 : 0.02 + 0.001 * i; });
  write(dir.path / "files.toml",
        "[initial]\nbathymetry = \"bathy.asc\"\ndepth_file = \"depth.asc\"\nconcentration_file = \"conc.asc\"\n"
        "u = 0.25\n[physics]\nmanning_file = \"n.asc\"\nmanning = 0.033\n[time]\nend = 1\n[output]\ndir = \"out\"\n");
  const RunConfig files = load(dir.path / "files.toml");
  REQUIRE(files.init.n.size() == std::size_t(nx * ny));
  for (const shwa::Extent& b : {shwa::Extent{0, 15, 0, 10}, shwa::Extent{15, 30, 10, 20}, shwa::Extent{0, 30, 7, 13}}) {
    INFO("block [" << b.i0 << ", " << b.i1 << ") x [" << b.j0 << ", " << b.j1 << ")");
    check_block(files, load(dir.path / "files.toml", &b), b);
  }
  // Named pollutants: one from the raster, one with a background and a spill across the blocks.
  write(dir.path / "named.toml",
        "[initial]\nbathymetry = \"bathy.asc\"\ndepth_file = \"depth.asc\"\n[pollutants.salt]\n"
        "concentration_file = \"conc.asc\"\n[pollutants.oil]\nconcentration = 0.01\n"
        "[pollutants.oil.spill]\nx = 100.0\ny = 100.0\nradius = 40.0\nconcentration = 2.0\n[time]\nend = 1\n"
        "[output]\ndir = \"out\"\n");
  const RunConfig named = load(dir.path / "named.toml");
  CHECK(named.pollutants == std::vector<std::string>{"oil", "salt"});  // sorted
  CHECK(named.params.tracers == 2);
  REQUIRE(named.init.c.size() == 2);
  CHECK(named.init.c[1] == files.init.c[0]);  // salt: the raster, as the unnamed pollutant read it
  CHECK(named.init.c_max == std::vector<double>{2.0, files.init.c_max[0]});
  const std::size_t spilled = named.init.index(10, 10), background = named.init.index(11, 0);
  CHECK(named.init.c[0][spilled] == 2.0);  // (105, 105): wet, in the disk
  CHECK(named.init.c[0][background] == 0.01);
  for (const shwa::Extent& b : {shwa::Extent{0, 15, 0, 10}, shwa::Extent{9, 30, 8, 20}}) {
    INFO("block [" << b.i0 << ", " << b.i1 << ") x [" << b.j0 << ", " << b.j1 << ")");
    check_block(named, load(dir.path / "named.toml", &b), b);
  }
  // A free surface instead of a depth raster.
  write(dir.path / "surface.toml",
        "[initial]\nbathymetry = \"bathy.asc\"\nsurface = -0.5\n[time]\nend = 1\n[output]\ndir = \"out\"\n");
  const shwa::Extent b{10, 20, 5, 15};
  check_block(load(dir.path / "surface.toml"), load(dir.path / "surface.toml", &b), b);
}

TEST_CASE("initial: the checks of the initial state look at the whole grid, whatever the block", "[app][initial]") {
  Dir dir;
  // A dam break, water west of x = 10: a spill over the water is accepted by a rank whose block
  // holds only dry land; one over dry land only is refused by a rank whose block holds water.
  auto dam = [&](double spill_x) {
    write(dir.path / "dam.toml", "[grid]\nnx = 40\nny = 10\ndx = 1\n[initial]\nproblem = \"dam_break\"\nh_left = 1\n"
                                 "x_dam = 10\n[pollutant]\nx = " + std::to_string(spill_x) +
                                     "\ny = 5.0\nradius = 3.0\nconcentration = 1.0\n[time]\nend = 1\n"
                                     "[output]\ndir = \"out\"\n");
    return dir.path / "dam.toml";
  };
  const shwa::Extent west{0, 20, 0, 10}, east{20, 40, 0, 10};
  const RunConfig dry_block = load(dam(5.0), &east);
  CHECK(dry_block.init.c_max.at(0) == 1.0);
  for (double c : dry_block.init.c.at(0)) CHECK(c == 0.0);
  CHECK_THROWS_WITH(load(dam(30.0), &west), Catch::Contains("the spill covers no wet cell centre"));
  // A depth beyond the plausible in a cell of another block: the same error, naming that cell.
  write_raster(dir.path / "bathy.asc", 8, 6, [](int, int) { return -1.0; });
  write_raster(dir.path / "depth.asc", 8, 6, [](int i, int j) { return i == 6 && j == 4 ? 2e5 : 1.0; });
  write(dir.path / "deep.toml",
        "[initial]\nbathymetry = \"bathy.asc\"\ndepth_file = \"depth.asc\"\n[time]\nend = 1\n[output]\ndir = \"out\"\n");
  const shwa::Extent corner{0, 4, 0, 3};
  std::string whole, part;
  try {
    load(dir.path / "deep.toml");
  } catch (const io::InputError& e) {
    whole = e.what();
  }
  try {
    load(dir.path / "deep.toml", &corner);
  } catch (const io::InputError& e) {
    part = e.what();
  }
  CHECK(whole.find("initial depth") != std::string::npos);
  CHECK(whole.find(" in cell (6, 4) counted from the south-west corner") != std::string::npos);
  CHECK(part == whole);
  // Two such cells in rows that different threads scan: the first in row-major order is named.
  write_raster(dir.path / "depth.asc", 8, 6, [](int i, int j) { return (i == 5 && j == 1) || (i == 0 && j == 4) ? 2e5 : 1.0; });
  try {
    load(dir.path / "deep.toml");
  } catch (const io::InputError& e) {
    whole = e.what();
  }
  CHECK(whole.find(" in cell (5, 1) counted from the south-west corner") != std::string::npos);
}
