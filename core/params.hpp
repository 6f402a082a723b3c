// shwa/core/params.hpp — what a run sets the solver up with, as plain data without Kokkos: the
// field precision, the sides of a block, the solver's parameters and tilings, and the boundary
// conditions. The kernel headers include it; code that only configures a run or writes its
// results (the app's deck reading and outputs) includes this alone and compiles no kernel.
#pragma once

#include "series.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace shwa {

#ifdef SHWA_USE_FLOAT
using Real = float;
#else
using Real = double;
#endif

/// The least depth whose concentration is computed (below it, c = 0): the smallest normal number,
/// so that 1 / h is finite. A cell that shallow holds no pollutant that matters, but a cell below
/// eps_h may hold plenty, and it must give it up with its water (the pollutant upwinding).
inline constexpr Real kMinDepthForC = std::numeric_limits<Real>::min();

/// The least dry-depth threshold eps_h a solver takes [m]. The device kernels' friction takes the
/// cube root of a wet depth from single precision's range and divides by h^(7/3) without a check
/// for subnormal numbers (core/math.hpp): from 1e-12 m up both hold in either precision (single
/// precision's h^(7/3) is normal from about 5e-17 m).
inline constexpr double kMinEpsH = 1e-12;

/// The least gravity a solver takes [m/s^2]. The device kernels take an edge's celerity from the
/// reciprocal square root of g (h_L + h_R) / 2 without a check for subnormal numbers (core/math.hpp):
/// from 1e-6 up, with a wet side of at least kMinEpsH, that is 1e-18 or more, normal in either
/// precision.
inline constexpr double kMinGravity = 1e-6;

/// The four sides of a block, in the order every per-side array uses.
enum Side : int { West = 0, East = 1, South = 2, North = 3 };
constexpr int kNumSides = 4;

enum class Variant { Recompute, Decoupled };

inline const char* to_string(Variant v) { return v == Variant::Recompute ? "recompute" : "decoupled"; }

/// Tile shapes of the kernels. tx x ty cells: the host sweeps' tiles (one thread a tile) and the
/// device recompute kernel's teams (one thread a cell); 0 x 0: the execution space's
/// (default_tile in kernels.hpp, which the Solver puts in). `rows`: how many rows a team of the device
/// decoupled update sweeps (detail::Column in kernels.hpp), `cfl_rows` likewise for the device CFL
/// pass; 0: chosen from the box's size, so that small blocks still give every multiprocessor
/// teams to run and large ones end with short walks (detail::update_rows, detail::cfl_rows).
struct Tiling {
  int tx = 0, ty = 0;
  int rows = 0;
  int cfl_rows = 0;  // likewise for the device CFL pass (detail::cfl_rows)
};

/// The most passive tracers (pollutants) a block carries: a compile-time maximum, so that the list
/// of fields (Conserved, core/fields.hpp) fits in a kernel's arguments.
inline constexpr int kMaxTracers = 4;

struct SolverParams {
  double g = 9.81;
  double cfl = 0.9;       // 0 < CFL <= 1
  double eps_h = 1e-4;    // dry below this depth [m]
  double manning = 0.0;   // Manning's n where no per-cell field is set [s m^(-1/3)]
  Variant variant = Variant::Decoupled;
  Tiling tiling;
  bool skip_dry = true;   // skip dry land that cannot change (QuietMap); the fields are the same
  int tracers = 1;        // passive tracers (pollutants) carried: Conserved's fields from 3 on

  void validate() const {
    auto fail = [](const std::string& m) { throw std::invalid_argument(m); };
    if (!(g > 0)) fail("g must be positive");
    if (!(cfl > 0 && cfl <= 1)) fail("cfl must lie in (0, 1], got " + std::to_string(cfl));
    if (!(eps_h > 0)) fail("eps_h must be positive");
    if (!(manning >= 0)) fail("manning must not be negative");
    if ((tiling.tx < 1 || tiling.ty < 1) && !(tiling.tx == 0 && tiling.ty == 0))
      fail("tile size must be at least 1 x 1 (0 x 0: the execution space's default)");
    if (tiling.rows < 0) fail("the device kernels' rows a team must be at least 1 (0: automatic)");
    if (tiling.cfl_rows < 0) fail("the device CFL pass's rows a team must be at least 1 (0: automatic)");
    if (tracers < 1 || tracers > kMaxTracers)
      fail("tracers must lie in [1, " + std::to_string(kMaxTracers) + "], got " + std::to_string(tracers));
  }
};

/// The boundary types core/boundary.hpp's filler knows; their names, documentation and deck keys
/// are the app's (boundary_types() in app/config.hpp).
enum class BcType : int { Wall = 0, Open = 1, Stage = 2, Discharge = 3 };

/// One boundary segment: cells [begin, end) along the side, in global cell indices (x for the south
/// and north sides, y for west and east); end < 0 means to the end of the side.
struct BcSegment {
  Side side = West;
  int begin = 0, end = -1;
  BcType type = BcType::Wall;
  Series stage;          // free-surface level eta [m] (type stage)
  Series discharge;      // inflow [m^3/s] (type discharge)
  std::vector<Series> concentration;  // of the inflow, one a tracer (type discharge); missing: 0
};

struct Boundaries {
  BcType side_default[kNumSides] = {BcType::Wall, BcType::Wall, BcType::Wall, BcType::Wall};
  std::vector<BcSegment> segments;

  static Boundaries all(BcType t) {
    Boundaries b;
    for (auto& s : b.side_default) s = t;
    return b;
  }
};

}  // namespace shwa
