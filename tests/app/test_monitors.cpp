// The app's device monitors (app/monitors.hpp): the health record that the maxima kernel keeps
// after every step and the host reads only at health checks, and the gauge buffer that keeps
// samples on the device until they are written.
#include "monitors.hpp"

#include <catch2/catch.hpp>

#include <cmath>
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
  Conserved<E> w("W", g);
  Kokkos::deep_copy(w.h, Real(1));
  Maxima<E> m(g);
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
}

TEST_CASE("monitors: the maxima give a film below eps_h the concentration it carries", "[app][monitors]") {
  const Grid g = Grid::single(4, 3, 1.0, 1.0, 0, 0, 1);
  Conserved<E> w("W", g);
  Maxima<E> m(g);
  HealthRecord<E> health;
  // Cell (1, 1): 1e-5 m of water (below any eps_h) holding c = 0.75; cell (2, 1): no water.
  set_cell(w.h, g, 1, 1, Real(1e-5));
  set_cell(w.hc[0], g, 1, 1, Real(0.75) * Real(1e-5));
  app::update_maxima(w, g, m, 2.0, 1, Real(0.5), health);
  CHECK(get_cell(m.cmax, 1, 1) == Approx(0.75).epsilon(1e-6));
  CHECK(get_cell(m.arrival, 1, 1) == Real(2));
  CHECK(get_cell(m.cmax, 2, 1) == Real(0));
  CHECK(get_cell(m.arrival, 2, 1) == Real(-1));
}

TEST_CASE("monitors: gauge samples stay on the device until taken, in order", "[app][monitors]") {
  const Grid g = Grid::single(8, 6, 1.0, 1.0, 0, 0, 1);
  Conserved<E> w("W", g);
  // Two gauges: cells (3, 2) and (7, 5).
  GaugeBuffer<E> buf(g, {3, 2, 7, 5}, 4);
  CHECK(buf.rows() == 0);
  for (int r = 0; r < 4; ++r) {
    set_cell(w.h, g, 3, 2, Real(1 + r));
    set_cell(w.qx, g, 3, 2, Real(10 + r));
    set_cell(w.qy, g, 7, 5, Real(-r));
    set_cell(w.hc[0], g, 7, 5, Real(0.5 * r));
    buf.record(w, 0.25 * r);
  }
  CHECK(buf.full());
  std::vector<double> times, values;
  std::tie(times, values) = buf.take();
  CHECK(buf.rows() == 0);
  CHECK_FALSE(buf.full());
  CHECK(times == std::vector<double>{0, 0.25, 0.5, 0.75});
  REQUIRE(values.size() == 4 * 8);
  for (int r = 0; r < 4; ++r) {
    INFO("row " << r);
    const double* v = &values[std::size_t(r) * 8];
    CHECK(v[0] == 1 + r);   // gauge 0: h
    CHECK(v[1] == 10 + r);  //          qx
    CHECK(v[2] == 0);       //          qy
    CHECK(v[3] == 0);       //          hc
    CHECK(v[4] == 0);       // gauge 1: h
    CHECK(v[6] == -r);      //          qy
    CHECK(v[7] == 0.5 * r); //          hc
  }
  // The buffer is reused from its first row.
  buf.record(w, 9.0);
  std::tie(times, values) = buf.take();
  CHECK(times == std::vector<double>{9.0});
  CHECK(values[0] == 4);
}
