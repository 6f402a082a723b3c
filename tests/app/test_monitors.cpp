// The app's device monitors (app/monitors.hpp): the health record that the maxima kernel keeps
// after every step and the host reads only at health checks, the maxima folded by a pass of their
// own and by the solver's CFL pass, and the gauge buffer that keeps samples on the device until
// they are written.
#include "monitors.hpp"

#include "halo.hpp"
#include "init.hpp"
#include "kernels.hpp"
#include "solver.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace shwa;
using shwa::app::GaugeBuffer;
using shwa::app::HealthRecord;
using shwa::app::Maxima;

namespace {

using E = DefaultExec;

// Sets owned cell (i, j) of f to x.
void set_cell(const Field<E>& f, const Grid& g, int i, int j, Real x) {
  Kokkos::deep_copy(Kokkos::subview(f, j + g.ng, i + g.ng), x);
}

Real get_cell(const Field<E>& f, int i, int j) {
  Real x = 0;
  Kokkos::deep_copy(x, Kokkos::subview(f, j, i));
  return x;
}

}  // namespace

TEST_CASE("monitors: the health record keeps the first bad step, its time and first cell", "[app][monitors]") {
  const Grid g = Grid::single(12, 9, 1.0, 1.0, 0, 0, 2);
  Conserved<E> w("W", g, 2);
  Kokkos::deep_copy(w.h, Real(1));
  Maxima<E> m(g, w.ntracers);
  HealthRecord<E> health;
  const Real threshold = Real(0.5);
  for (long step = 0; step <= 3; ++step) app::update_maxima(w, g, m, 0.1 * double(step), step, threshold, health);
  CHECK_FALSE(health.read().bad());

  // After step 4: a NaN in cell (5, 3), a negative depth in (2, 7); after step 6 also cell (0, 0).
  set_cell(w.qx, g, 5, 3, std::numeric_limits<Real>::quiet_NaN());
  set_cell(w.h, g, 2, 7, Real(-0.5));
  for (long step = 4; step <= 5; ++step) app::update_maxima(w, g, m, 0.1 * double(step), step, threshold, health);
  set_cell(w.hc[0], g, 0, 0, std::numeric_limits<Real>::infinity());
  for (long step = 6; step <= 9; ++step) app::update_maxima(w, g, m, 0.1 * double(step), step, threshold, health);
  set_cell(w.hc[1], g, 11, 0, std::numeric_limits<Real>::quiet_NaN());  // the second tracer's only
  app::record_health(w, g, 1.0, 10, health);
  const auto r = health.read();
  REQUIRE(r.bad());
  CHECK(r.step == 4);
  CHECK(r.time == 0.1 * 4.0);
  CHECK(r.cell == 3 * 12 + 5);  // the first bad cell of step 4 in row-major order
  // The maxima were still folded in: hmax of a healthy cell is its depth.
  CHECK(get_cell(m.hmax, 1, 1) == Real(1));

  // Without maxima, the health check's own scan records the same way.
  HealthRecord<E> scan;
  app::record_health(w, g, 2.5, 25, scan);
  const auto s = scan.read();
  CHECK(s.step == 25);
  CHECK(s.time == 2.5);
  CHECK(s.cell == 0);

  // A second tracer's NaN alone is a blow-up, for the maxima kernel and the scan alike.
  Conserved<E> v("V", g, 2);
  Kokkos::deep_copy(v.h, Real(1));
  set_cell(v.hc[1], g, 11, 0, std::numeric_limits<Real>::quiet_NaN());
  Maxima<E> vm(g, v.ntracers);
  HealthRecord<E> folded, scanned;
  app::update_maxima(v, g, vm, 0.5, 5, threshold, folded);
  app::record_health(v, g, 0.5, 5, scanned);
  CHECK(folded.read().cell == 11);
  CHECK(scanned.read().cell == 11);
}

TEST_CASE("monitors: the maxima give a film below eps_h the concentration it carries", "[app][monitors]") {
  const Grid g = Grid::single(4, 3, 1.0, 1.0, 0, 0, 1);
  Conserved<E> w("W", g);
  Maxima<E> m(g, w.ntracers);
  HealthRecord<E> health;
  // Cell (1, 1): 1e-5 m of water (below any eps_h) holding c = 0.75; cell (2, 1): no water.
  set_cell(w.h, g, 1, 1, Real(1e-5));
  set_cell(w.hc[0], g, 1, 1, Real(0.75) * Real(1e-5));
  app::update_maxima(w, g, m, 2.0, 1, Real(0.5), health);
  CHECK(get_cell(m.cmax[0], 1, 1) == Approx(0.75).epsilon(1e-6));
  CHECK(get_cell(m.arrival[0], 1, 1) == Real(2));
  CHECK(get_cell(m.cmax[0], 2, 1) == Real(0));
  CHECK(get_cell(m.arrival[0], 2, 1) == Real(-1));
}

TEST_CASE("monitors: the maxima are those of every state folded cell by cell; quiet squares keep theirs",
          "[app][monitors]") {
  // States that change every step in a pattern (wet and dry cells, films, rising and falling
  // concentrations) on a block whose rows are not a multiple of the tiles or squares, folded
  // with half of the QuietMap's squares marked quiet from step 3 on: the maxima must be those a
  // plain loop over the host copies gives, with the quiet squares' cells left as they were; each of
  // three tracers gets its own maps.
  // The same states are also folded by the CFL pass (cfl_min_dt with a MaximaFold) into maps of
  // their own, which must be the same.
  const Grid g = Grid::single(45, 19, 1.0, 1.0, 0, 0, 2);
  constexpr int T = 3;
  Conserved<E> w("W", g, T);
  Maxima<E> m(g, T), in_pass(g, T);
  HealthRecord<E> health, pass_health;
  const Field<E> H("H", g.ny_padded(), g.nx_padded());
  const Kokkos::View<PassResult, E::memory_space> scratch("scratch");
  QuietMap<E> q("quiet", g.ny_padded(), g.nx_padded(), g.owned(), true);
  constexpr int K = QuietMap<E>::kCells;
  const int n = g.nx * g.ny;
  std::vector<double> hmax(n, 0);
  std::vector<std::vector<double>> cmax(T, std::vector<double>(n, 0)), arrival(T, std::vector<double>(n, -1));
  const Real threshold = Real(0.3);
  auto quiet_cell = [&](int i, int j) { return ((i + g.ng) / K + (j + g.ng) / K) % 2 == 0; };
  for (long step = 1; step <= 6; ++step) {
    const double t = 0.5 * double(step);
    auto h = Kokkos::create_mirror_view(w.h);
    std::vector<decltype(h)> hc;
    for (int p = 0; p < T; ++p) hc.push_back(Kokkos::create_mirror_view(w.hc[p]));
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const double depth =
            (i + 2 * j + step) % 7 == 0 ? 0.0 : 1e-6 * double((i * j + step) % 5) + 0.1 * std::sin(0.3 * i + step);
        h(j + g.ng, i + g.ng) = Real(depth > 0 ? depth : 0);
        for (int p = 0; p < T; ++p) {
          const double c = 0.1 * double((i + j * step + 2 * p * (i + step)) % 6);
          hc[p](j + g.ng, i + g.ng) = Real(depth > 0 ? depth * c : 0);
        }
      }
    Kokkos::deep_copy(w.h, h);
    for (int p = 0; p < T; ++p) Kokkos::deep_copy(w.hc[p], hc[p]);
    if (step == 3) {  // from here on, every other square is quiet (its cells are not folded)
      auto last = Kokkos::create_mirror_view(q.last);
      for (int jb = 0; jb < int(last.extent(0)); ++jb)
        for (int ib = 0; ib < int(last.extent(1)); ++ib) last(jb, ib) = (ib + jb) % 2 == 0 ? -1 : 1 << 20;
      Kokkos::deep_copy(q.last, last);
    }
    app::update_maxima(w, g, m, t, step, threshold, health, q);
    cfl_min_dt(w, H, g.owned(), StepConstants{}, Real(0.5), Tiling{16, 4}, q, scratch.data(),
               app::MaximaFold<E>(w, g, in_pass, t, step, threshold, pass_health, q));
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        if (step >= 3 && quiet_cell(i, j)) continue;
        const std::size_t k = std::size_t(j) * g.nx + i;
        const double d = double(h(j + g.ng, i + g.ng));
        hmax[k] = std::max(hmax[k], d);
        for (int p = 0; p < T; ++p) {
          const double mass = double(hc[p](j + g.ng, i + g.ng));
          const double c = d >= double(kMinDepthForC) ? double(Real(mass) / Real(d)) : 0.0;
          cmax[p][k] = std::max(cmax[p][k], c);
          if (arrival[p][k] < 0 && c > double(threshold)) arrival[p][k] = double(Real(t));
        }
      }
  }
  long differ = 0, differ_in_pass = 0, quiet_cells = 0, arrived = 0, tracers_differ = 0;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      const std::size_t k = std::size_t(j) * g.nx + i;
      differ += get_cell(m.hmax, i, j) != Real(hmax[k]);
      differ_in_pass += get_cell(in_pass.hmax, i, j) != Real(hmax[k]);
      for (int p = 0; p < T; ++p) {
        differ += get_cell(m.cmax[p], i, j) != Real(cmax[p][k]);
        differ += get_cell(m.arrival[p], i, j) != Real(arrival[p][k]);
        differ_in_pass += get_cell(in_pass.cmax[p], i, j) != Real(cmax[p][k]);
        differ_in_pass += get_cell(in_pass.arrival[p], i, j) != Real(arrival[p][k]);
        arrived += arrival[p][k] > 1.0;  // arrivals after step 2, some in active squares
      }
      tracers_differ += cmax[1][k] != cmax[0][k] && cmax[2][k] != cmax[1][k];
      quiet_cells += quiet_cell(i, j);
    }
  CHECK(differ == 0);
  CHECK(differ_in_pass == 0);
  CHECK(!pass_health.read().bad());
  CHECK(quiet_cells > 100);
  CHECK(arrived > 30);
  CHECK(tracers_differ > 100);  // the tracers' maps are not copies of one another
  CHECK(!health.read().bad());
}

TEST_CASE("monitors: the maxima folded by the next step's CFL pass are those of a pass after every step",
          "[app][monitors]") {
  // A mound collapsing in a bowl, dry land skipped: one run folds each state into its maxima in the
  // CFL pass of the step that starts from it (Solver::step with a MaximaFold; the last state by a
  // pass of its own), the other by update_maxima after every step. The maps must be the same bits
  // after every step, on the path that takes the step from the device and on the host's path (where
  // the two differ: a GPU); a cell that the pass left out would keep an older maximum or arrival
  // time. (Health marks through the CFL pass: the blow-up app test.)
  const Grid g = Grid::single(97, 70, 1.0, 1.0);
  auto init = [](double x, double y, CellInit& s) {
    const double r2 = (x - 48) * (x - 48) + (y - 35) * (y - 35);
    s.H = 1.0 - r2 / 500.0;
    s.eta = (x - 42) * (x - 42) + (y - 33) * (y - 33) < 64 ? 0.8 : 0.0;
    s.c[0] = y > 30 ? 1.0 : 0.0;
    s.c[1] = x > 45 ? 0.5 : 0.0;
  };
  SolverParams p;
  p.tracers = 2;
  p.tiling = Tiling{16, 4};  // host tiles whose edges cross the water (a GPU's CFL pass has teams of columns)
  const Real threshold = Real(0.2);
  for (const std::int64_t device_step_max : {std::int64_t(1) << 40, std::int64_t(0)}) {
    CAPTURE(device_step_max);
    SingleBlock<E> ex;
    Solver<E> fused(g, p, Boundaries::all(BcType::Wall)), alone(g, p, Boundaries::all(BcType::Wall));
    fused.set_device_step_max_cells(device_step_max);
    alone.set_device_step_max_cells(device_step_max);
    initialize(fused, ex, init);
    initialize(alone, ex, init);
    Maxima<E> mf(g, p.tracers), ma(g, p.tracers);
    HealthRecord<E> hf, ha;
    app::update_maxima(alone.state(), g, ma, alone.time(), alone.steps(), threshold, ha, alone.quiet_map());
    double quiet_max = 0;
    for (int n = 1; n <= 120; ++n) {
      fused.step(1e300, ex, app::MaximaFold<E>(fused.state(), g, mf, fused.time(), fused.steps(), threshold, hf,
                                               fused.quiet_map()));
      alone.step(1e300, ex);
      app::update_maxima(alone.state(), g, ma, alone.time(), alone.steps(), threshold, ha, alone.quiet_map());
      REQUIRE(fused.time() == alone.time());
      quiet_max = std::max(quiet_max, fused.quiet_fraction());
      // The state the next step would fold, folded now.
      Maxima<E> settled(g, p.tracers);
      for (int k = 0; k < 1 + 2 * p.tracers; ++k) {
        const Field<E>& from = k == 0 ? mf.hmax : k <= p.tracers ? mf.cmax[k - 1] : mf.arrival[k - 1 - p.tracers];
        const Field<E>& to = k == 0 ? settled.hmax : k <= p.tracers ? settled.cmax[k - 1] : settled.arrival[k - 1 - p.tracers];
        Kokkos::deep_copy(to, from);
      }
      app::update_maxima(fused.state(), g, settled, fused.time(), fused.steps(), threshold, hf, fused.quiet_map());
      long differ = 0;
      auto compare = [&](const Field<E>& a, const Field<E>& b) {
        const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
        const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) differ += std::memcmp(&x(j, i), &y(j, i), sizeof(Real)) != 0;
      };
      compare(settled.hmax, ma.hmax);
      for (int t = 0; t < p.tracers; ++t) {
        compare(settled.cmax[t], ma.cmax[t]);
        compare(settled.arrival[t], ma.arrival[t]);
      }
      CAPTURE(n);
      REQUIRE(differ == 0);
    }
    CHECK(quiet_max > 0.2);  // dry land was skipped
    CHECK(!hf.read().bad());
    CHECK(!ha.read().bad());
    // Arrivals were recorded after the start, in both tracers.
    const auto arrival = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ma.arrival[1]);
    long late = 0;
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) late += arrival(j, i) > Real(0);
    CHECK(late > 20);
  }
}

TEST_CASE("monitors: gauge samples stay on the device until taken, in order", "[app][monitors]") {
  const Grid g = Grid::single(8, 6, 1.0, 1.0, 0, 0, 1);
  Conserved<E> w("W", g, 2);
  // Two gauges: cells (3, 2) and (7, 5); five fields a cell (h, qx, qy, two tracers' hc).
  GaugeBuffer<E> buf(g, {3, 2, 7, 5}, w.size(), 4);
  CHECK(buf.rows() == 0);
  for (int r = 0; r < 4; ++r) {
    set_cell(w.h, g, 3, 2, Real(1 + r));
    set_cell(w.qx, g, 3, 2, Real(10 + r));
    set_cell(w.qy, g, 7, 5, Real(-r));
    set_cell(w.hc[0], g, 7, 5, Real(0.5 * r));
    set_cell(w.hc[1], g, 3, 2, Real(100 + r));
    buf.record(w, 0.25 * r);
  }
  CHECK(buf.full());
  std::vector<double> times, values;
  std::tie(times, values) = buf.take();
  CHECK(buf.rows() == 0);
  CHECK_FALSE(buf.full());
  CHECK(times == std::vector<double>{0, 0.25, 0.5, 0.75});
  REQUIRE(values.size() == 4 * 10);
  for (int r = 0; r < 4; ++r) {
    INFO("row " << r);
    const double* v = &values[std::size_t(r) * 10];
    CHECK(v[0] == 1 + r);    // gauge 0: h
    CHECK(v[1] == 10 + r);   //          qx
    CHECK(v[2] == 0);        //          qy
    CHECK(v[3] == 0);        //          hc
    CHECK(v[4] == 100 + r);  //          hc2
    CHECK(v[5] == 0);        // gauge 1: h
    CHECK(v[7] == -r);       //          qy
    CHECK(v[8] == 0.5 * r);  //          hc
    CHECK(v[9] == 0);        //          hc2
  }
  // The buffer is reused from its first row.
  buf.record(w, 9.0);
  std::tie(times, values) = buf.take();
  CHECK(times == std::vector<double>{9.0});
  CHECK(values[0] == 4);
}
