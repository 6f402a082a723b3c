// shwa/app/problems.cpp — the built-in initial conditions; see problems.hpp.
#include "problems.hpp"

#include "exact.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

namespace shwa::app {

using io::Deck;
using io::Range;
using io::require_in;
using io::require_nonnegative;
using io::require_positive;

namespace {

/// The field of f(x, y, H, h, u, v) at the cell centres, from zeros (c = 0). f is kept: it
/// captures by value.
template <class F>
InitialField cells(const Domain& g, F f) {
  InitialField field;
  field.at = [g, f](int i, int j, InitialCell& c) {
    c = InitialCell{};
    f(g.xc(i), g.yc(j), c.H, c.h, c.u, c.v);
  };
  return field;
}

InitialField dam_break(Deck& d, RunConfig& cfg) {
  const Domain& g = cfg.grid;
  for (const char* k : {"initial.h_left", "initial.h_right", "initial.x_dam"}) d.declare(k);  // (Deck's typo hint)
  const double hl = d.get_double("initial.h_left", require_in(0, kMaxDepth, Range::Ends::open_closed));
  const double hr = d.get_double("initial.h_right", 0.0, require_in(0, hl, Range::Ends::closed_open));
  const double x_dam = d.get_double("initial.x_dam", g.x0 + 0.5 * g.nx * g.dx,
                                    require_in(g.x0, g.x0 + g.nx * g.dx));
  const double grav = cfg.params.g;
  if (hr > 0) {
    auto s = std::make_shared<exact::Stoker>(hl, hr, grav);
    cfg.exact = [s, x_dam](double x, double, double t, double& h, double& u, double& v) {
      s->eval(x, t, x_dam, h, u);
      v = 0;
    };
  } else {
    auto s = std::make_shared<exact::Ritter>(hl, grav);
    cfg.exact = [s, x_dam](double x, double, double t, double& h, double& u, double& v) {
      s->eval(x, t, x_dam, h, u);
      v = 0;
    };
  }
  return cells(g, [=](double x, double, double& H, double& h, double&, double&) {
    H = 0;  // flat bottom at the reference level
    h = x < x_dam ? hl : hr;
  });
}

/// Bumps of the bottom, in coordinates relative to the domain (0..1 on each axis); heights as a
/// fraction of the still-water depth, so the two > 1 rise above the surface as islands.
struct Bump {
  double s, t, width, height;
};
constexpr Bump kBumps[] = {
    {0.30, 0.30, 0.10, 0.6}, {0.70, 0.60, 0.08, 1.5}, {0.45, 0.80, 0.06, 1.3}, {0.20, 0.75, 0.12, 0.8}};

InitialField lake_at_rest(Deck& d, RunConfig& cfg) {
  const Domain& g = cfg.grid;
  const double level = d.get_double("initial.level", 0.0);
  const double depth = d.get_double("initial.depth", 1.0, require_in(0, kMaxDepth, Range::Ends::open_closed));
  const double Lx = g.nx * g.dx, Ly = g.ny * g.dy;
  // Bottom depth below the reference level: `depth` below the still surface, less the bumps.
  auto bottom_depth = [=](double x, double y) {
    double bumps = 0;
    for (const Bump& b : kBumps) {
      const double ds = (x - g.x0) / Lx - b.s, dt = (y - g.y0) / Ly - b.t;
      bumps += b.height * depth * std::exp(-(ds * ds + dt * dt) / (b.width * b.width));
    }
    return depth - level - bumps;
  };
  cfg.exact = [=](double x, double y, double, double& h, double& u, double& v) {
    h = std::max(0.0, level + bottom_depth(x, y));
    u = v = 0;
  };
  return cells(g, [=](double x, double y, double& H, double& h, double&, double&) {
    H = bottom_depth(x, y);
    h = std::max(0.0, level + H);
  });
}

InitialField thacker(Deck& d, RunConfig& cfg) {
  const Domain& g = cfg.grid;
  const double L = g.nx * g.dx;
  if (std::abs(g.ny * g.dy - L) > 1e-9 * L) throw d.error("grid.ny", "thacker needs a square domain (nx dx = ny dy)");
  const double a = d.get_double("initial.a", 0.4 * L, require_positive());
  const double h0 = d.get_double("initial.h0", 0.1, require_in(0, kMaxDepth, Range::Ends::open_closed));
  const double eta = d.get_double("initial.amplitude", 0.1 * a, require_in(0, kMaxDepth));
  std::shared_ptr<exact::ThackerPlanar> t;
  try {
    t = std::make_shared<exact::ThackerPlanar>(L, a, h0, eta, cfg.params.g);
  } catch (const std::invalid_argument& e) {
    throw d.error("initial.a", e.what());
  }
  const double x0 = g.x0, y0 = g.y0;
  cfg.exact = [t, x0, y0](double x, double y, double time, double& h, double& u, double& v) {
    t->eval(x - x0, y - y0, time, h, u, v);
  };
  return cells(g, [=](double x, double y, double& H, double& h, double& u, double& v) {
    H = t->bottom_depth(x - x0, y - y0);
    t->eval(x - x0, y - y0, 0.0, h, u, v);
  });
}

/// The pollutant's background (initial.concentration) and spill are any run's (config.cpp).
InitialField pollutant_patch(Deck& d, RunConfig& cfg) {
  const double depth = d.get_double("initial.depth", 1.0, require_in(0, kMaxDepth, Range::Ends::open_closed));
  const double u0 = d.get_double("initial.u", 0.0), v0 = d.get_double("initial.v", 0.0);
  cfg.exact = [=](double, double, double, double& h, double& u, double& v) { h = depth, u = u0, v = v0; };
  return cells(cfg.grid, [=](double, double, double& H, double& h, double& u, double& v) {
    H = depth;
    h = depth;
    u = u0;
    v = v0;
  });
}

}  // namespace

const std::vector<ProblemInfo>& problems() {
  static const std::vector<ProblemInfo> table = {
      {"dam_break",
       "flat bottom, water h_left west of x_dam and h_right east of it, at rest: Stoker's wet-bed solution "
       "(h_right > 0) or Ritter's dry-bed one (h_right = 0)",
       "`h_left` > 0, `h_right` in [0, h_left) (0: dry bed, Ritter; else Stoker), `x_dam` (default: the middle)",
       dam_break},
      {"lake_at_rest",
       "still water at the level level over a bumpy bottom whose highest bumps rise above it as islands: stays at rest "
       "to round-off",
       "`level` (0), `depth` (1, below the level; four bumps, two of which are islands)", lake_at_rest},
      {"thacker", "Thacker's planar surface oscillating in a paraboloid (a moving wet/dry front)",
       "square domain; `a` (0.4 L), `h0` (0.1), `amplitude` (0.1 a)", thacker},
      {"pollutant_patch",
       "a uniform depth, velocity and background concentration over a flat bottom, carrying the patch of a "
       "[pollutant] spill (the transport test); without a spill, a constant c stays constant exactly",
       "`depth` (1), `u`, `v` (0), `concentration` (0, the background)", pollutant_patch},
  };
  return table;
}

std::vector<std::string> problem_names() {
  std::vector<std::string> names;
  for (const ProblemInfo& p : problems()) names.push_back(p.name);
  return names;
}

InitialField setup_problem(const std::string& name, Deck& d, RunConfig& cfg) {
  for (const ProblemInfo& p : problems())
    if (p.name == name) return p.setup(d, cfg);
  throw d.error("initial.problem", "unknown problem " + name);
}

}  // namespace shwa::app
