// The pollutant's discrete maximum principle through wetting and drying (issue 13, item 1).
//
// The pollutant flux through an edge is the edge's mass flux times the concentration of the cell
// it comes from (core/roe.hpp), so a cell's new pollutant is its old concentration times the water
// it keeps plus its upwind neighbours' concentrations times the water they send: while no cell
// sends out more water than it holds, c^{n+1} is a convex combination of c^n values and no new
// extremum appears.
#include "harness.hpp"

#include <algorithm>
#include <cmath>

using namespace shwa;
using namespace shwa::test;

TEST_CASE("a concentration pattern through wetting and drying creates no new extrema",
          "[maxprinciple]") {
  // Thacker's planar oscillation in a paraboloid: the shoreline sweeps across a band of cells
  // twice a period, drying and re-wetting them. Stripes of concentration (0.1 and 0.9 with
  // smooth ramps between) put extrema everywhere along the shoreline. Every step, every cell at
  // least eps_h deep must hold a concentration within [0.1, 0.9] up to round-off: a few roundings
  // of the update, relative 1e-12 of the range (the bound). Cells below eps_h that hold
  // water (films) too, to 1e-9: a film that has just lost most of its water has h and hc from a
  // cancellation, c relative errors of about 1e-16 h^n / h^{n+1}, 1e-9 for a cell drained to
  // 1e-7 of its depth in one step. Two CFL numbers (0.45, for which the outflow bound of roe.hpp
  // keeps every cell from sending more than it holds, and 0.9) and two dry thresholds.
  const double cfl = GENERATE(0.45, 0.9);
  const double eps_h = GENERATE(1e-3, 1e-5);
  const Variant variant = GENERATE(Variant::Recompute, Variant::Decoupled);
  CAPTURE(cfl, eps_h, to_string(variant));
  const double L = 4, a = 1, h0 = 0.1, eta = 0.5;
  const exact::ThackerPlanar ex(L, a, h0, eta, 9.81);
  const int n = 40;
  const double cmin = 0.1, cmax = 0.9;
  Case c;
  c.grid = Grid::single(n, n, L / n, L / n);
  c.init = [&](double x, double y, CellInit& s) {
    s.H = ex.bottom_depth(x, y);
    ex.eval(x, y, 0.0, s.h, s.u, s.v);
    // Stripes 0.4 m wide along a diagonal, so that the moving shoreline crosses them.
    const double z = std::sin(2 * 3.14159265358979323846 * (x + 0.7 * y) / 0.8);
    s.c[0] = 0.5 + 0.4 * std::max(-1.0, std::min(1.0, 3 * z));
  };
  SolverParams p;
  p.cfl = cfl;
  p.eps_h = eps_h;
  p.variant = variant;
  p.tiling = {16, 4};
  SingleBlock<DefaultExec> exch;
  Solver<DefaultExec> solver(c.grid, p, c.bc);
  initialize(solver, exch, c.init);
  const double T = ex.period();
  const double tol = rtol(1e-12) * (cmax - cmin);
  double over = 0, under = 0;  // largest excursions above cmax and below cmin, wet cells
  double film = 0;             // largest excursion either way, films
  long rewetted = 0;           // cells wet after having been dry (below eps_h)
  std::vector<char> was_dry(size_t(n) * n, 0);
  StepLimit limit(T);
  while (solver.time() < T) {
    limit.check(solver, solver.step(T, exch));
    const HostState s = read_back(solver);
    for (size_t k = 0; k < s.h.size(); ++k) {
      if (s.h[k] < eps_h) {
        was_dry[k] = 1;
        if (s.h[k] > 0) film = std::max({film, s.hc[k] / s.h[k] - cmax, cmin - s.hc[k] / s.h[k]});
        continue;
      }
      if (was_dry[k]) ++rewetted, was_dry[k] = 0;
      const double cc = s.hc[k] / s.h[k];
      over = std::max(over, cc - cmax);
      under = std::max(under, cmin - cc);
    }
  }
  INFO(solver.steps() << " steps, " << rewetted << " cells re-wetted; worst excursion above "
                      << cmax << ": " << over << ", below " << cmin << ": " << under
                      << "; in films " << film);
  REQUIRE(rewetted > 50);
  CHECK(over <= tol);
  CHECK(under <= tol);
  CHECK(film <= rtol(1e-9) * (cmax - cmin));
}
