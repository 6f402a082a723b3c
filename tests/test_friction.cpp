// Manning friction against answers that depend on the friction law (issue 13, item 2).
//
// The update applies the friction semi-implicitly after the flux part (core/kernels.hpp,
// friction_factor): with q* the discharge after the fluxes and k = g n^2 / h^(7/3),
//     q^{n+1} = q* h^(7/3) / (h^(7/3) + dt g n^2 |q*|) = q* / (1 + dt k |q*|).
// Both tests use uniform states, in which the fluxes of the Roe scheme are known exactly, so the
// whole step reduces to this formula and the answer follows in closed form.
#include "harness.hpp"

#include <cmath>

using namespace shwa;
using namespace shwa::test;

namespace {

constexpr double kG = 9.81;

// h^(7/3), as Manning's law has it (|u| / h^(4/3) = |q| / h^(7/3)).
double h73(double h) { return h * h * std::cbrt(h); }

}  // namespace

TEST_CASE("a uniform flow on a flat bed decays as Manning's law says", "[friction]") {
  // A uniform state on a flat bed with open boundaries all round: every edge joins two equal
  // states, so the Roe fluctuations are exactly zero and a step is the friction alone. The depth
  // stays h0 and q keeps its direction; its magnitude follows q^{n+1} = q^n / (1 + dt k |q^n|),
  // i.e. 1 / |q^{n+1}| = 1 / |q^n| + k dt: after any sequence of steps, 1 / |q| = 1 / |q0| + k t.
  // That is also the exact solution of the ODE dq/dt = -k |q| q (the semi-implicit update is
  // exact for it), so the code must reproduce it to round-off: about 4 roundings a step in 1 / |q|
  // over the ~100 steps taken, ~1e-13; the tolerance is 1e-11. With h^2 in place of h^(7/3), k
  // changes by h0^(-1/3) = 1.36 and 1 / |q| by ~25 %.
  const Variant variant = GENERATE(Variant::Recompute, Variant::Decoupled);
  const bool per_cell = GENERATE(false, true);  // constant n, or a per-cell field of n
  CAPTURE(to_string(variant), per_cell);
  const double h0 = 0.4, u0 = 1.5, v0 = -0.8, n = 0.05, T = 20.0;
  Case c;
  c.grid = Grid::single(12, 6, 2.0, 1.0);
  c.bc = Boundaries::all(BcType::Open);
  c.init = [&](double, double, CellInit& s) {
    s.H = 3.0;
    s.h = h0;
    s.u = u0;
    s.v = v0;
    s.c[0] = 0.3;
    if (per_cell) s.n = n;
  };
  SolverParams p;
  p.g = kG;
  p.cfl = 0.9;
  p.variant = variant;
  p.tiling = {8, 4};
  p.manning = per_cell ? 0.0 : n;
  const HostState s = run<DefaultExec>(c, p, T);

  const double q0 = h0 * std::hypot(u0, v0);
  const double k = kG * n * n / h73(h0);
  const double q_exact = 1.0 / (1.0 / q0 + k * T);
  REQUIRE(q_exact < 0.3 * q0);  // friction has done real work
  double worst = 0, worst_dir = 0;
  for (size_t i = 0; i < s.h.size(); ++i) {
    REQUIRE(s.h[i] == double(Real(h0)));  // no flux changed the depth
    const double q = std::hypot(s.qx[i], s.qy[i]);
    worst = std::max(worst, std::abs(1.0 / q - 1.0 / q_exact) * q_exact);
    // The direction is kept: q is parallel to (u0, v0).
    worst_dir = std::max(worst_dir, std::abs(s.qx[i] * v0 - s.qy[i] * u0) / (q * std::hypot(u0, v0)));
  }
  INFO("|q| exact " << q_exact << ", worst relative error of 1/|q| " << worst << ", of the direction "
                    << worst_dir);
  CHECK(worst < rtol(1e-11));
  CHECK(worst_dir < rtol(1e-13));
}

TEST_CASE("a uniform flow down a slope reaches Manning's normal flow", "[friction]") {
  // A channel of constant slope S0 (H = S0 x, deeper downstream), depth h0 everywhere, water at
  // rest at t = 0. In a uniform state on a constant slope the Roe fluctuations of every edge are
  // the same, and a cell's sum gives h unchanged and qn* = qn + dt g h0 S0 (the upwinded
  // bathymetry term is exactly the gravity source; the rest cancels). So, away from the ends,
  //     q^{n+1} = (q^n + dt G) / (1 + dt k |q^n + dt G|),   G = g h0 S0, k = g n^2 / h0^(7/3),
  // whatever dt the CFL condition picks. The test follows this recurrence with the solver's dt and
  // compares at round-off. The ends (open boundaries with a flat ghost) disturb the cells near
  // them, but a first-order scheme moves information one cell a step, so cells farther from both
  // ends than the number of steps taken are exactly the uniform state.
  // The continuous flow tends to Manning's normal flow q_N = h0^(5/3) S0^(1/2) / n (the friction
  // slope equals the bed slope: h0 is the normal depth of q_N). The fixed point of the recurrence
  // solves q (q + dt G) = q_N^2: q_N less dt G / 2 to first order in dt, the error of applying the
  // friction after the source; the test checks both. With h^2 in place of h^(7/3), q_N changes by
  // h0^(-1/6) = 1.12.
  const Variant variant = GENERATE(Variant::Recompute, Variant::Decoupled);
  const int dir = GENERATE(0, 1);  // the channel along x or along y
  CAPTURE(to_string(variant), dir);
  const double h0 = 0.5, S0 = 0.02, n = 0.03, d = 4.0;
  const int len = 1000, mid = len / 2;
  Case c;
  c.grid = dir == 0 ? Grid::single(len, 2, d, d) : Grid::single(2, len, d, d);
  c.bc = Boundaries::all(BcType::Wall);
  c.bc.side_default[dir == 0 ? West : South] = c.bc.side_default[dir == 0 ? East : North] =
      BcType::Open;
  const double x_mid = (mid + 0.5) * d;
  c.init = [&](double x, double y, CellInit& s) {
    s.H = S0 * ((dir == 0 ? x : y) - x_mid);  // small near the cells checked: H rounds little
    s.h = h0;
    s.c[0] = 1.0;
  };
  SolverParams p;
  p.g = kG;
  p.cfl = 0.9;
  p.manning = n;
  p.variant = variant;
  p.tiling = {16, 4};

  const double G = kG * h0 * S0, k = kG * n * n / h73(h0);
  const double qN = std::pow(h0, 5.0 / 3.0) * std::sqrt(S0) / n;
  const double tau = qN / (2 * G);  // the time scale of the approach: q = qN tanh(t / (2 tau))
  const double T = 24 * tau;        // tanh(12) = 1 - 8e-11
  SingleBlock<DefaultExec> ex;
  Solver<DefaultExec> solver(c.grid, p, c.bc);
  initialize(solver, ex, c.init);
  double q = 0, dt_late = 0;  // dt_late: the largest dt of the last 2 tau
  StepLimit limit(T);
  while (solver.time() < T) {  // whole CFL steps (none clipped)
    const double dt = solver.step(1e300, ex);
    limit.check(solver, dt);
    const double qs = q + dt * G;
    q = qs / (1 + dt * k * std::abs(qs));
    if (solver.time() > T - 2 * tau) dt_late = std::max(dt_late, dt);
  }
  const long steps = solver.steps();
  const int reach = int(steps) + 1;  // cells the ends can have disturbed
  REQUIRE(mid - reach > 10);
  const HostState s = read_back(solver);
  double worst = 0, worst_h = 0, q_mid = 0;
  for (int a = reach; a < len - reach; ++a)
    for (int b = 0; b < 2; ++b) {
      const int i = dir == 0 ? a : b, j = dir == 0 ? b : a;
      const double qa = s.at(dir == 0 ? s.qx : s.qy, i, j), qt = s.at(dir == 0 ? s.qy : s.qx, i, j);
      worst = std::max(worst, std::abs(qa - q) / q);
      worst_h = std::max(worst_h, std::abs(s.at(s.h, i, j) - h0) / h0);
      REQUIRE(qt == 0.0);
      if (a == mid) q_mid = qa;
    }
  INFO(steps << " steps, q " << q_mid << ", recurrence " << q << ", normal flow " << qN
             << ", first-order bound dt G / 2 = " << 0.5 * dt_late * G
             << "; worst relative deviations: q " << worst << ", h " << worst_h);
  // Round-off: a few roundings a step in a contracting recurrence, and the rounding of H (values
  // up to S0 * len * d / 2 = 40 m) in the bathymetry jump of the source, ~1e-13 of it.
  CHECK(worst < rtol(1e-10));
  CHECK(worst_h < rtol(1e-12));
  // Converged to normal flow up to the first-order time error: the recurrence's fixed point for a
  // step dt is q_N - dt G / 2 + O(dt^2) (dt still varies a little with the flow near the ends,
  // which sets the CFL step; tanh(12) leaves 1e-10 of the transient).
  CHECK(q_mid < qN);
  CHECK(qN - q_mid <= 0.5 * dt_late * G * 1.01);
  CHECK(qN - q_mid >= 0.5 * dt_late * G * 0.8);  // and the error is that time error, not less
}
