// Test helpers: build a single-block solver for a case, run it, read its fields back.
#pragma once

#include "diagnostics.hpp"
#include "exact.hpp"
#include "init.hpp"
#include "solver.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace shwa::test {

/// A test case: a grid, an initial condition, boundary conditions.
struct Case {
  Grid grid;
  std::function<void(double, double, CellInit&)> init;
  Boundaries bc = Boundaries::all(BcType::Wall);
};

/// The owned cells of W and H on the host.
struct HostState {
  int nx = 0, ny = 0;
  std::vector<double> h, qx, qy, hc, H;
  double at(const std::vector<double>& f, int i, int j) const { return f[size_t(j) * nx + i]; }
};

template <class E>
HostState read_back(const Solver<E>& s) {
  HostState r;
  r.nx = s.grid().nx;
  r.ny = s.grid().ny;
  r.h = owned_to_host(s.state().h, s.grid());
  r.qx = owned_to_host(s.state().qx, s.grid());
  r.qy = owned_to_host(s.state().qy, s.grid());
  r.hc = owned_to_host(s.state().hc[0], s.grid());
  r.H = owned_to_host(s.bathymetry(), s.grid());
  return r;
}

/// The step limit of a run to an end time. A correct scheme reaches t_end in about t_end / dt
/// steps, dt its CFL step, which stays within a small factor of the first one in the tests' cases;
/// a broken one (say, one that lets velocities run away at a wet/dry front) shrinks its step and
/// would run for hours instead of failing. So every run to an end time may take at most
/// kStepFactor times the steps its first CFL step predicts, t_end / dt_1, plus kStepSlack for runs
/// of a few steps, and the test fails as soon as it takes more, saying how far it got. The factor
/// leaves room for the step to shrink as waves speed up in a correct run (docs/method.md
/// section 9).
class StepLimit {
 public:
  static constexpr double kStepFactor = 4;
  static constexpr long kStepSlack = 20;

  explicit StepLimit(double t_end) : t_end_(t_end) {}

  /// Call after every step with the dt it took; fails the test once the run is over its limit.
  /// The first step's dt sets the limit (a step clipped to t_end ends the run anyway).
  template <class E>
  void check(const Solver<E>& s, double dt) {
    if (limit_ < 0) {
      dt1_ = dt;
      limit_ = long(std::ceil(kStepFactor * t_end_ / dt)) + kStepSlack;
    }
    if (s.steps() > limit_)
      FAIL("step limit: " << s.steps() << " steps reached t = " << s.time() << " of t_end = "
                          << t_end_ << " (last dt " << dt << "); the limit is " << limit_ << ", "
                          << kStepFactor << " x t_end / first dt (" << dt1_ << ") + "
                          << kStepSlack << ": the time step has collapsed");
  }

 private:
  double t_end_;
  double dt1_ = 0;
  long limit_ = -1;
};

/// Steps a solver to t_end within its StepLimit.
template <class E>
void advance_to(Solver<E>& s, Exchanger<E>& ex, double t_end) {
  StepLimit limit(t_end);
  while (s.time() < t_end) limit.check(s, s.step(t_end, ex));
}

/// Runs a case to t_end (within its StepLimit), or for max_steps steps when given, on execution
/// space E.
template <class E>
HostState run(const Case& c, const SolverParams& p, double t_end, long max_steps = -1) {
  SingleBlock<E> ex;
  Solver<E> s(c.grid, p, c.bc);
  initialize(s, ex, c.init);
  if (max_steps < 0)
    advance_to(s, ex, t_end);
  else
    while (s.steps() < max_steps) s.step(1e300, ex);
  return read_back(s);
}

/// A round-off tolerance stated for double, scaled to the build's precision: the same number of
/// units in the last place (1e-12 in double is about 5e-4 in float).
inline double rtol(double tol_in_double) {
  return tol_in_double * double(std::numeric_limits<Real>::epsilon()) /
         std::numeric_limits<double>::epsilon();
}

/// max |a - b| / max(|b|, floor) over two equally sized fields.
inline double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b,
                           double floor = 1e-300) {
  REQUIRE(a.size() == b.size());
  double m = 0, s = floor;
  for (size_t k = 0; k < a.size(); ++k) {
    m = std::max(m, std::abs(a[k] - b[k]));
    s = std::max(s, std::abs(b[k]));
  }
  return m / s;
}

/// A 1D problem along x on an nx x 2 strip with walls north and south.
inline Grid strip(int nx, double length) { return Grid::single(nx, 2, length / nx, length / nx); }

}  // namespace shwa::test
