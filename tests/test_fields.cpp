// The field registry (core/fields.hpp): the conserved variables indexed, with any number of tracers
// up to kMaxTracers, and the boundary fill, which handles every tracer of the list.
#include "harness.hpp"

#include "boundary.hpp"

#include <set>

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

TEST_CASE("the number of tracers is checked, and the flux kernels refuse more than one", "[fields]") {
  SolverParams p;
  p.tracers = 0;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("tracers must lie in [1, " + std::to_string(kMaxTracers) + "]"));
  p.tracers = kMaxTracers + 1;
  CHECK_THROWS(p.validate());
  p.tracers = 2;
  CHECK_NOTHROW(p.validate());
  // The kernels transport one tracer: a solver for two says so instead of leaving one behind.
  CHECK_THROWS_WITH((Solver<DefaultExec>(Grid::single(8, 8, 1.0, 1.0), p)),
                    Catch::Contains("transport one tracer; 2 were asked for"));
}

TEST_CASE("the boundary fill treats every tracer as the first, each with its own inflow", "[fields]") {
  // One side of each type; the ghosts of each tracer of a three-tracer state must be those the
  // first tracer gets when it is alone with that tracer's values, and the water the same.
  Grid g = Grid::single(9, 7, 1.0, 1.0);
  g.ng = 2;
  Boundaries bc = Boundaries::all(BcType::Wall);
  bc.side_default[East] = BcType::Open;
  bc.side_default[South] = BcType::Stage;
  BcSegment stage;
  stage.side = South;
  stage.type = BcType::Stage;
  stage.stage = Series(1.5);
  bc.segments.push_back(stage);
  BcSegment river;
  river.side = North;
  river.begin = 2;
  river.end = 6;
  river.type = BcType::Discharge;
  river.discharge = Series(3.0);
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
