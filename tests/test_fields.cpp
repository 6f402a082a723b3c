// The field registry (core/fields.hpp): the conserved variables indexed, with any number of tracers
// up to kMaxTracers, and the boundary fill, which handles every tracer of the list.
#include "harness.hpp"

#include "boundary.hpp"
#include "init.hpp"

#include <cstring>
#include <memory>
#include <set>
#include <vector>

using namespace shwa;
using namespace shwa::test;

namespace {

/// Every cell (ghosts too) of field k of w set to a value that names the field and the cell.
template <class E>
void fill_distinct(const Conserved<E>& w) {
  for (int k = 0; k < w.size(); ++k) {
    auto m = Kokkos::create_mirror_view(w[k]);
    for (int j = 0; j < int(m.extent(0)); ++j)
      for (int i = 0; i < int(m.extent(1)); ++i) m(j, i) = Real(1 + k + 0.01 * j + 0.0001 * i);
    Kokkos::deep_copy(w[k], m);
  }
}

/// A discharge q [m^3/s] through cells [begin, end) of the north side.
BcSegment north_river(int begin, int end, double q) {
  BcSegment s;
  s.side = North;
  s.begin = begin;
  s.end = end;
  s.type = BcType::Discharge;
  s.discharge = Series(q);
  return s;
}

/// Bit for bit (doubles read back from the run's precision).
bool identical(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

template <class View>
auto host(const View& f) {
  auto m = Kokkos::create_mirror_view(f);
  Kokkos::deep_copy(m, f);
  return m;
}

}  // namespace

TEST_CASE("the conserved fields are indexed: h, qx, qy, then each tracer", "[fields]") {
  const Grid g = Grid::single(7, 5, 1.0, 1.0);
  for (int nt = 0; nt <= kMaxTracers; ++nt) {
    CAPTURE(nt);
    const Conserved<DefaultExec> w("W", g, nt);
    REQUIRE(w.size() == 3 + nt);
    CHECK(w[0].data() == w.h.data());
    CHECK(w[1].data() == w.qx.data());
    CHECK(w[2].data() == w.qy.data());
    std::set<const Real*> distinct;
    std::set<std::string> names;
    for (int k = 0; k < w.size(); ++k) {
      CHECK(int(w[k].extent(0)) == g.ny_padded());
      CHECK(int(w[k].extent(1)) == g.nx_padded());
      distinct.insert(w[k].data());
      names.insert(Conserved<DefaultExec>::name(k));
      if (k >= Conserved<DefaultExec>::kFirstTracer) CHECK(w[k].data() == w.hc[k - 3].data());
    }
    CHECK(int(distinct.size()) == w.size());
    CHECK(int(names.size()) == w.size());
    for (int t = nt; t < kMaxTracers; ++t) CHECK(w.hc[t].data() == nullptr);
  }
  CHECK(Conserved<DefaultExec>::name(3) == "hc");
  CHECK(Conserved<DefaultExec>::name(4) == "hc2");
  CHECK_THROWS_WITH((Conserved<DefaultExec>("W", g, kMaxTracers + 1)),
                    Catch::Contains("a block carries 0 to " + std::to_string(kMaxTracers)));
}

TEST_CASE("a field's owned cells go to the host and back in order, its ghost layers left as they are", "[fields]") {
  // Two ghost layers, a block that is not square, and a stage made for another block first (a
  // backend whose host cannot read the field remakes it).
  const Grid g = Grid::single(7, 5, 1.0, 1.0, 0.0, 0.0, 2);
  const Conserved<DefaultExec> w("W", g, 1);
  fill_distinct(w);
  OwnedStage<Field<DefaultExec>> stage;
  std::vector<double> small;
  owned_to_host(w.qx, Grid::single(3, 2, 1.0, 1.0), small, stage);
  std::vector<double> v(std::size_t(g.nx) * g.ny);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 0.5 * double(k) - 3;  // exact in float too
  owned_from_host(w.h, g, v.data(), stage);
  auto m = Kokkos::create_mirror_view(w.h);
  Kokkos::deep_copy(m, w.h);
  int wrong_owned = 0, wrong_ghost = 0;
  for (int j = 0; j < g.ny_padded(); ++j)
    for (int i = 0; i < g.nx_padded(); ++i) {
      const bool owned = j >= g.ng && j < g.ng + g.ny && i >= g.ng && i < g.ng + g.nx;
      if (owned) wrong_owned += m(j, i) != Real(v[std::size_t(j - g.ng) * g.nx + (i - g.ng)]);
      else wrong_ghost += m(j, i) != Real(1 + 0.01 * j + 0.0001 * i);  // fill_distinct's value of field 0
    }
  CHECK(wrong_owned == 0);
  CHECK(wrong_ghost == 0);
  std::vector<double> back;
  owned_to_host(w.h, g, back, stage);
  CHECK(back == v);
}

TEST_CASE("the initial state is the same whatever runs of rows the host sets it in", "[fields]") {
  // Moving water over a slope with a dry corner, a pollutant and a Manning n of its own in some
  // cells; set in one run of rows, then one run a row in reverse order (as threads may finish),
  // then stepped: every field bit for bit.
  const Grid g = Grid::single(23, 9, 1.0, 1.0);
  const auto f = [](double x, double y, CellInit& c) {
    c.H = 1.0 - 0.04 * x;
    c.eta = x + y < 6 ? 0.3 : 0.05;
    c.u = 0.2;
    c.v = -0.1;
    c.c[0] = y > 4 ? 1.5 : 0.0;
    if (int(x) % 3 == 0) c.n = 0.01 + 0.001 * y;
  };
  const auto each_row_backwards = [](int rows, const auto& body) {
    for (int j = rows - 1; j >= 0; --j) body(j, j + 1);
  };
  SolverParams p;
  p.manning = 0.03;
  std::vector<HostState> states;
  for (const bool by_rows : {false, true}) {
    SingleBlock<DefaultExec> ex;
    Solver<DefaultExec> s(g, p, Boundaries{});
    if (by_rows)
      initialize(s, ex, f, each_row_backwards);
    else
      initialize(s, ex, f);
    for (int k = 0; k < 5; ++k) s.step(1e300, ex);
    states.push_back(read_back(s));
  }
  CHECK(identical(states[0].h, states[1].h));
  CHECK(identical(states[0].qx, states[1].qx));
  CHECK(identical(states[0].qy, states[1].qy));
  CHECK(identical(states[0].hc, states[1].hc));
  CHECK(identical(states[0].H, states[1].H));
}

TEST_CASE("the number of tracers is checked", "[fields]") {
  SolverParams p;
  p.tracers = 0;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("tracers must lie in [1, " + std::to_string(kMaxTracers) + "]"));
  p.tracers = kMaxTracers + 1;
  CHECK_THROWS(p.validate());
  p.tracers = 2;
  CHECK_NOTHROW(p.validate());
}

TEST_CASE("each of several tracers gets the bits it gets alone, and the water is the same", "[fields]") {
  // A dam break over a bumpy bottom with a dry shoal and an island, a river entering from the
  // north with a different concentration of each tracer, and four initial patterns: a patch, a
  // gradient, nothing, a bump on the dry shoal's edge. A run with two, three and four tracers
  // (one update pass carries them all, compiled for each count) against one run with each tracer
  // alone, both variants, dry land skipped, to a time (the last step clipped).
  const double inflow[] = {0.8, 0.0, 2.5, 1.3};
  auto pattern = [](int t, double x, double y) {
    if (t == 0) return (x > 10 && x < 20 && y > 8 && y < 16) ? 1.0 : 0.0;
    if (t == 1) return 0.05 * x + 0.02 * y;
    if (t == 3) return 2.0 * std::exp(-((x - 26) * (x - 26) + (y - 12) * (y - 12)) / 20.0);
    return 0.0;
  };
  static_assert(kMaxTracers == 4, "four patterns");
  const Grid g = Grid::single(40, 28, 1.0, 1.0);
  Boundaries bc = Boundaries::all(BcType::Wall);
  const BcSegment river = north_river(4, 10, 4.0);
  auto init = [&](const std::vector<int>& tracers) {
    return [&, tracers](double x, double y, CellInit& s) {
      s.H = 1.0 + 0.2 * std::sin(0.3 * x) * std::cos(0.2 * y) - 1.6 * std::exp(-((x - 30) * (x - 30) + (y - 8) * (y - 8)) / 12.0);
      s.eta = x < 14 ? 0.5 : 0.0;
      s.u = 0.1;
      for (std::size_t k = 0; k < tracers.size(); ++k) s.c[k] = pattern(tracers[k], x, y);
    };
  };
  for (int nt : {2, 3, 4}) {
    for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
      CAPTURE(nt, to_string(v));
      SolverParams p;
      p.variant = v;
      p.manning = 0.02;
      p.tiling = {16, 4};
      p.tracers = nt;
      Boundaries bc_all = bc;
      bc_all.segments.push_back(river);
      std::vector<int> all_tracers;
      for (int t = 0; t < nt; ++t) {
        bc_all.segments.back().concentration.push_back(Series(inflow[t]));
        all_tracers.push_back(t);
      }
      SingleBlock<DefaultExec> ex;
      Solver<DefaultExec> all(g, p, bc_all);
      initialize(all, ex, init(all_tracers));
      std::vector<std::unique_ptr<Solver<DefaultExec>>> alone;
      for (int t = 0; t < nt; ++t) {
        SolverParams p1 = p;
        p1.tracers = 1;
        Boundaries bc1 = bc;
        bc1.segments.push_back(river);
        bc1.segments.back().concentration = {Series(inflow[t])};
        alone.push_back(std::make_unique<Solver<DefaultExec>>(g, p1, bc1));
        initialize(*alone.back(), ex, init({t}));
      }
      const double t_end = 3.3;
      long steps = 0;
      while (all.time() < t_end) {
        const double dt = all.step(t_end, ex);
        for (auto& s : alone) REQUIRE(s->step(t_end, ex) == dt);
        ++steps;
      }
      CHECK(steps > 10);
      const HostState a = read_back(all);
      double carried = 0;
      for (int t = 0; t < nt; ++t) {
        CAPTURE(t);
        const HostState b = read_back(*alone[t]);
        REQUIRE(identical(a.h, b.h));
        REQUIRE(identical(a.qx, b.qx));
        REQUIRE(identical(a.qy, b.qy));
        const std::vector<double> hc = owned_to_host(all.state().hc[t], g);
        REQUIRE(identical(hc, b.hc));
        for (double m : hc) carried += m;
      }
      CHECK(carried > 0);
    }
  }
}

TEST_CASE("the boundary fill treats every tracer as the first, each with its own inflow", "[fields]") {
  // One side of each type; the ghosts of each tracer of a three-tracer state must be those the
  // first tracer gets when it is alone with that tracer's values, and the water the same.
  Grid g = Grid::single(9, 7, 1.0, 1.0);
  g.ng = 2;
  Boundaries bc = Boundaries::all(BcType::Wall);
  bc.side_default[East] = BcType::Open;
  Boundaries no_values = bc;
  no_values.side_default[South] = BcType::Stage;
  CHECK_THROWS_WITH(BoundaryFiller(g, no_values), Catch::Contains("south side's default type needs values"));
  BcSegment stage;
  stage.side = South;
  stage.type = BcType::Stage;
  stage.stage = Series(1.5);
  bc.segments.push_back(stage);
  BcSegment river = north_river(2, 6, 3.0);
  const double inflow[] = {0.5, 2.0, 0.0};  // the third tracer's is left out: 0
  river.concentration = {Series(inflow[0]), Series(inflow[1])};
  bc.segments.push_back(river);
  const BoundaryFiller filler(g, bc);

  const int nt = 3;
  Conserved<DefaultExec> all("all", g, nt);
  Field<DefaultExec> H("H", g.ny_padded(), g.nx_padded());
  Kokkos::deep_copy(H, Real(2));
  for (int t = 0; t < nt; ++t) {
    CAPTURE(t);
    // The same state with tracer t as the only one, and tracer t's inflow as the first.
    Conserved<DefaultExec> one("one", g, 1);
    fill_distinct(all);
    Kokkos::deep_copy(one.h, all.h);
    Kokkos::deep_copy(one.qx, all.qx);
    Kokkos::deep_copy(one.qy, all.qy);
    Kokkos::deep_copy(one.hc[0], all.hc[t]);
    Boundaries bc1 = bc;
    bc1.segments[1].concentration = {Series(inflow[t])};
    BoundaryFiller(g, bc1).fill(one, H, 0.0, Real(9.81), Real(1e-4));
    filler.fill(all, H, 0.0, Real(9.81), Real(1e-4));
    const auto a = host(all.hc[t]), b = host(one.hc[0]), ha = host(all.h), hb = host(one.h);
    int ghosts = 0;
    for (int j = 0; j < g.ny_padded(); ++j)
      for (int i = 0; i < g.nx_padded(); ++i) {
        CAPTURE(j, i);
        REQUIRE(a(j, i) == b(j, i));
        REQUIRE(ha(j, i) == hb(j, i));
        ghosts += (i < g.ng || i >= g.ng + g.nx || j < g.ng || j >= g.ng + g.ny);
      }
    CHECK(ghosts > 0);
    // The river's ghost cells hold h c_in of this tracer's inflow.
    const int jg = g.ng + g.ny, ig = g.ng + 3;
    CHECK(a(jg, ig) == Real(ha(jg, ig) * Real(inflow[t])));
  }
}

TEST_CASE("one launch fills the sides as one launch a side does, corners included", "[fields][boundary]") {
  // The corners are where the sides meet: south and north read the west and east ghost columns
  // that the same launch writes. Segments of every type reach the ends of each side, so that the
  // corners' sources take every rule; every field of every padded cell must be the same bits.
  // Besides the launch, the same kernel body runs on the host one ghost cell at a time from the
  // last to the first, so that a cell written by two of its threads, or read by one and written
  // by another, shows as a difference on any backend.
  using Host = Kokkos::DefaultHostExecutionSpace;
  struct Block {
    int nx, ny, ng, ioff, joff, blocked;  // blocked: a side facing another block, or -1
  };
  std::vector<Block> blocks;
  for (int ng : {1, 2, 3})
    for (int blocked : {-1, int(West), int(East), int(South), int(North)})
      blocks.push_back({9, 7, ng, 0, 0, blocked});
  blocks.push_back({3, 3, 3, 0, 0, -1});    // as wide as the ghost layers are deep
  blocks.push_back({9, 7, 2, 5, 4, West});  // a block inside a larger domain, offset along both sides
  blocks.push_back({9, 7, 2, 5, 4, -1});
  for (const Block& bk : blocks) {
    CAPTURE(bk.nx, bk.ny, bk.ng, bk.ioff, bk.joff, bk.blocked);
    Grid g = Grid::single(bk.nx, bk.ny, 1.0, 1.0);
    g.ng = bk.ng;
    g.nx_global = 20;
    g.ny_global = 15;
    g.ioff = bk.ioff;
    g.joff = bk.joff;
    if (bk.blocked >= 0) g.physical[bk.blocked] = false;  // a side facing another block (its halo)
    Boundaries bc = Boundaries::all(BcType::Wall);
    bc.side_default[East] = BcType::Open;
    bc.side_default[North] = BcType::Open;
    BcSegment stage;
    stage.type = BcType::Stage;
    stage.stage = Series(1.5);
    for (int side : {int(West), int(South)}) {
      stage.side = Side(side);
      stage.begin = 0;
      stage.end = 7;
      bc.segments.push_back(stage);
    }
    BcSegment river = north_river(6, -1, 3.0);
    river.concentration = {Series(0.5), Series(2.0)};
    bc.segments.push_back(river);
    river.side = East;
    river.begin = 0;
    river.end = 6;
    bc.segments.push_back(river);
    stage.side = South;
    stage.begin = 7;
    stage.end = 12;
    bc.segments.push_back(stage);
    const BoundaryFiller filler(g, bc);

    // A bathymetry that names its cell: the stage rule reads it at the ghost cell it fills.
    Field<DefaultExec> H("H", g.ny_padded(), g.nx_padded());
    {
      auto m = Kokkos::create_mirror_view(H);
      for (int j = 0; j < g.ny_padded(); ++j)
        for (int i = 0; i < g.nx_padded(); ++i) m(j, i) = Real(2 + 0.01 * j + 0.0001 * i);
      Kokkos::deep_copy(H, m);
    }
    const Real grav(9.81), eps(1e-4);
    Conserved<DefaultExec> one("one", g, 3), each("each", g, 3);
    fill_distinct(one);
    fill_distinct(each);
    filler.fill(one, H, 0.0, grav, eps);
    filler.fill_each_side(each, H, 0.0, grav, eps);

    Conserved<Host> back("back", g, 3);
    fill_distinct(back);
    const Field<Host> Hh = host(H);
    detail::FillGhosts<Host> f;
    f.w = back;
    f.H = Hh;
    f.geo = filler.geometry();
    f.g = grav;
    f.eps_h = eps;
    for (int side = 0; side < kNumSides; ++side)
      if (g.physical[side]) f.add(side, filler.side_at(side, 0.0), filler.extent_along(side));
    for (int idx = f.threads() - 1; idx >= 0; --idx) f(idx);

    for (int k = 0; k < one.size(); ++k) {
      const auto a = host(one[k]), b = host(each[k]);
      const auto& c = back[k];
      for (int j = 0; j < g.ny_padded(); ++j)
        for (int i = 0; i < g.nx_padded(); ++i) {
          CAPTURE(k, j, i);
          REQUIRE(std::memcmp(&a(j, i), &b(j, i), sizeof(Real)) == 0);
          REQUIRE(std::memcmp(&c(j, i), &b(j, i), sizeof(Real)) == 0);
        }
    }
    // The corners were written by the rules: a wall corner (south-west, no segment there)
    // mirrors the west ghost cell north of it.
    if (bk.blocked < 0 && bk.ioff == 0) {
      const auto h = host(one.h);
      CHECK(h(g.ng - 1, g.ng - 1) == h(g.ng, g.ng - 1));
    }
  }
}
