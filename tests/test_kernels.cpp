// The kernel variants and execution spaces agree; the Roe solver's edge-level properties.
#include "harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace shwa;
using namespace shwa::test;

namespace {

// Wet/dry dam break over a bumpy bottom with an island, a pollutant patch, friction and every
// boundary type: exercises every branch of the kernels.
Case busy_case(int nx, int ny) {
  Case c;
  c.grid = Grid::single(nx, ny, 1.0, 0.8);
  c.init = [](double x, double y, CellInit& s) {
    s.H = 0.8 + 0.3 * std::sin(0.3 * x) * std::cos(0.2 * y) -
          1.5 * std::exp(-((x - 30) * (x - 30) + (y - 15) * (y - 15)) / 15.0);
    s.eta = x < 15 ? 0.6 : 0.0;
    s.c[0] = (y > 10 && y < 20) ? 1.0 : 0.0;
    s.n = 0.02 + 0.001 * x;
  };
  c.bc = Boundaries::all(BcType::Wall);
  c.bc.side_default[East] = BcType::Open;
  BcSegment stage;
  stage.side = North;
  stage.begin = nx / 2;
  stage.type = BcType::Stage;
  stage.stage = Series({0.0, 5.0}, {0.0, 0.3});
  BcSegment river;
  river.side = South;
  river.begin = 2;
  river.end = 6;
  river.type = BcType::Discharge;
  river.discharge = Series(3.0);
  river.concentration = {Series(5.0)};
  c.bc.segments = {stage, river};
  return c;
}

SolverParams params(Variant v, Tiling t) {
  SolverParams p;
  p.variant = v;
  p.tiling = t;
  p.eps_h = 1e-4;
  return p;
}

void require_close(const HostState& a, const HostState& b, double tol) {
  CHECK(max_rel_diff(a.h, b.h) <= tol);
  CHECK(max_rel_diff(a.qx, b.qx) <= tol);
  CHECK(max_rel_diff(a.qy, b.qy) <= tol);
  CHECK(max_rel_diff(a.hc, b.hc) <= tol);
}

}  // namespace

TEST_CASE("recompute and decoupled kernels give the same fields", "[kernels]") {
  const Case c = busy_case(61, 37);
  const HostState ref = run<DefaultExec>(c, params(Variant::Recompute, {32, 8}), 0, 200);
  REQUIRE(ref.h.size() == 61u * 37u);
  for (Tiling t : {Tiling{32, 8}, Tiling{16, 16}, Tiling{7, 5}, Tiling{64, 2}}) {
    CAPTURE(t.tx, t.ty);
    const HostState dec = run<DefaultExec>(c, params(Variant::Decoupled, t), 0, 200);
    require_close(dec, ref, rtol(1e-13));
  }
}

TEST_CASE("the host's vectorizable cube root is within 1 ulp of the exact one", "[kernels]") {
  // Depths from a film to a deep channel, log-spaced, and every power of two in between (the
  // initial guess works on the exponent). Reference: the long double cube root, rounded.
  auto rel_err = [](Real x) {
    const long double exact = std::cbrt(static_cast<long double>(x));
    const Real ref = static_cast<Real>(exact);
    return std::abs(double(detail::cbrt_arith(x)) - double(ref)) / double(ref);
  };
  double worst = 0;
  for (int k = 0; k <= 20000; ++k) worst = std::max(worst, rel_err(Real(std::pow(10.0, -6.0 + 10.0 * k / 20000.0))));
  for (int e = -20; e <= 14; ++e) worst = std::max(worst, rel_err(Real(std::ldexp(1.0, e))));
  CAPTURE(worst / std::numeric_limits<Real>::epsilon());
  CHECK(worst <= std::numeric_limits<Real>::epsilon());
}

TEST_CASE("the kernels' reciprocals and roots are within a few ulp, on the default space", "[kernels]") {
  // The operands the kernels pass: depths from below eps_h to a deep channel and sums of square
  // roots of depths (1 / x, h^(-1/2)), log-spaced, with every power of two between (the device's
  // approximations start from the exponent). On a GPU these are the device's reciprocal and
  // reciprocal square root with their steps (core/math.hpp), elsewhere plain division and roots.
  // Reference: long double, rounded. Bounds, in units of epsilon: the reciprocal within 2
  // (its approximation and one step), the reciprocal square root within CUDA's 2 ulp, 1 / h = r r and
  // sqrt(h) = h r with the roundings of their products, a quotient one more than its reciprocal,
  // the cube root (the friction's) with its Newton steps' and products' roundings, a square root
  // x h^(-1/2) with its product's; sqrt_normal is sqrt_nonneg's bits for these normal operands.
  const double bound[7] = {2, 2, 5, 3, 3, 4, 3};
  std::vector<Real> xs;
  for (int k = 0; k <= 4000; ++k) xs.push_back(Real(std::pow(10.0, -8.0 + 13.0 * k / 4000.0)));
  for (int e = -26; e <= 16; ++e) xs.push_back(Real(std::ldexp(1.0, e)));
  const int n = int(xs.size());
  Kokkos::View<Real*> x("x", n), out("out", 7 * n), normal("normal", n);
  auto hx = Kokkos::create_mirror_view(x);
  for (int k = 0; k < n; ++k) hx(k) = xs[k];
  Kokkos::deep_copy(x, hx);
  Kokkos::parallel_for(
      "math", Kokkos::RangePolicy<DefaultExec>(0, n), KOKKOS_LAMBDA(int k) {
        const Real v = x(k);
        const DepthRoots d = depth_roots(v);
        out(7 * k) = reciprocal(v);
        out(7 * k + 1) = shwa::rsqrt(v);
        out(7 * k + 2) = d.rh;
        out(7 * k + 3) = d.sh;
        out(7 * k + 4) = divide(v, v + Real(1));
        out(7 * k + 5) = cube_root(v);
        out(7 * k + 6) = sqrt_nonneg(v);
        normal(k) = sqrt_normal(v);
      });
  auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), normal);
  int same_roots = 0;
  for (int k = 0; k < n; ++k) same_roots += std::memcmp(&hn(k), &ho(7 * k + 6), sizeof(Real)) == 0;
  CHECK(same_roots == n);
  double worst[7] = {};
  for (int k = 0; k < n; ++k) {
    const long double v = hx(k);
    const long double exact[7] = {1.0L / v, 1.0L / std::sqrt(v), 1.0L / v, std::sqrt(v),
                                  v / static_cast<long double>(Real(hx(k) + Real(1))), std::cbrt(v),
                                  std::sqrt(v)};
    for (int f = 0; f < 7; ++f) {
      const double ref = double(static_cast<Real>(exact[f]));
      worst[f] = std::max(worst[f], std::abs(double(ho(7 * k + f)) - ref) / ref);
    }
  }
  for (int f = 0; f < 7; ++f) {
    CAPTURE(f, worst[f] / std::numeric_limits<Real>::epsilon());
    CHECK(worst[f] <= bound[f] * std::numeric_limits<Real>::epsilon());
  }
  // Zeros: dry land's depth, still water's discharge (exact zeros, no NaN from a reciprocal of 0).
  // A subnormal, such as the square of a discharge of 1e-160 (the friction's |q|), has its root.
  const Real tiny = std::numeric_limits<Real>::denorm_min() * Real(1000);
  Kokkos::View<Real[6]> z("zeros");
  Kokkos::parallel_for(
      "zeros", Kokkos::RangePolicy<DefaultExec>(0, 1), KOKKOS_LAMBDA(int) {
        const DepthRoots d = depth_roots(Real(0));
        z(0) = d.sh;
        z(1) = d.rh;
        z(2) = sqrt_nonneg(Real(0));
        z(3) = divide(Real(0), Real(3));
        z(4) = sqrt_nonneg(tiny);
        z(5) = depth_roots(tiny).sh;
      });
  auto hz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
  CHECK(hz(0) == Real(0));
  CHECK(std::isfinite(hz(1)));  // not read (no concentration without water), but finite
  CHECK(hz(2) == Real(0));
  CHECK(hz(3) == Real(0));
  CHECK(hz(4) == std::sqrt(tiny));
  CHECK(hz(5) == std::sqrt(tiny));
}

TEST_CASE("the device reciprocal's step reaches double precision from rcp.approx's error", "[kernels]") {
  // rcp.approx.ftz.f64 reads the upper 32 bits of its operand: its result may be off by up to
  // about 2^-19. From seeds off by 2^-18, either way, the step must land within 2 ulp; a plain
  // Newton step (error d^2, 2^-36) would not.
  double worst = 0;
  for (int k = 0; k <= 2000; ++k)
    for (double off : {-0x1p-18, 0x1p-18}) {
      const double x = std::pow(10.0, -8.0 + 13.0 * k / 2000.0);
      const long double exact = 1.0L / x;
      const double r = reciprocal_step(x, double(exact) * (1 + off));
      worst = std::max(worst, double(std::abs((r - exact) / exact)));
    }
  CAPTURE(worst / std::numeric_limits<double>::epsilon());
  CHECK(worst <= 2 * std::numeric_limits<double>::epsilon());
}

TEST_CASE("the device root steps reach double precision from rsqrt.approx's error", "[kernels]") {
  // The same for rsqrt.approx.ftz.f64's seed of x^(-1/2): the reciprocal square root's step and the
  // square root's (a plain Newton step, error 1.5 d^2 = 2^-35, would miss both by far).
  double worst_r = 0, worst_s = 0;
  for (int k = 0; k <= 2000; ++k)
    for (double off : {-0x1p-18, 0x1p-18}) {
      const double x = std::pow(10.0, -8.0 + 13.0 * k / 2000.0);
      const long double r = 1.0L / std::sqrt(static_cast<long double>(x)), s = std::sqrt(static_cast<long double>(x));
      const double seed = double(r) * (1 + off);
      worst_r = std::max(worst_r, double(std::abs((rsqrt_step(x, seed) - r) / r)));
      worst_s = std::max(worst_s, double(std::abs((sqrt_step(x, seed) - s) / s)));
    }
  CAPTURE(worst_r / std::numeric_limits<double>::epsilon(), worst_s / std::numeric_limits<double>::epsilon());
  CHECK(worst_r <= 2 * std::numeric_limits<double>::epsilon());
  CHECK(worst_s <= std::numeric_limits<double>::epsilon());
}

TEST_CASE("a solver refuses eps_h outside [kMinEpsH, 1] and g below kMinGravity", "[kernels]") {
  // Below kMinEpsH the GPU's friction arithmetic would leave the normal numbers (core/params.hpp).
  const Case c = busy_case(8, 8);
  for (double eps : {1e-13, 0.0, 2.0}) {
    CAPTURE(eps);
    SolverParams p = params(Variant::Decoupled, {});
    p.eps_h = eps;
    CHECK_THROWS_AS(run<DefaultExec>(c, p, 0, 1), std::invalid_argument);
  }
  SolverParams p = params(Variant::Decoupled, {});
  p.eps_h = kMinEpsH;
  CHECK_NOTHROW(run<DefaultExec>(c, p, 0, 1));
  // Below kMinGravity an edge's g (h_L + h_R) / 2 could leave the normal numbers.
  for (double g : {1e-7, 0.0, -9.81}) {
    CAPTURE(g);
    SolverParams pg = params(Variant::Decoupled, {});
    pg.g = g;
    CHECK_THROWS_AS(run<DefaultExec>(c, pg, 0, 1), std::invalid_argument);
  }
  p.g = kMinGravity;
  CHECK_NOTHROW(run<DefaultExec>(c, p, 0, 1));
}

TEST_CASE("one position addresses every field of a block's shape; other shapes are refused", "[kernels]") {
  const Grid g = Grid::single(13, 7, 1.0, 1.0, 0, 0, 2);
  const Grid wider = Grid::single(14, 7, 1.0, 1.0, 0, 0, 2);
  // cell_at is the position f(j, i) takes, in every field of the shape (host memory, to compare
  // addresses).
  Conserved<HostExec> h("h", g, 2);
  Field<HostExec> Hh("H", g.ny_padded(), g.nx_padded());
  for (int j : {0, 3, g.ny_padded() - 1})
    for (int i : {0, 5, g.nx_padded() - 1}) {
      CAPTURE(j, i);
      const size_t o = cell_at(h.h, j, i);
      for (int k = 0; k < h.size(); ++k) CHECK(&h[k](j, i) == h[k].data() + o);
      CHECK(&Hh(j, i) == Hh.data() + o);
    }
  // The kernels check before they launch: every field of w and out, the bottom and a friction
  // field with cells share w.h's layout.
  Conserved<DefaultExec> w("w", g, 2), out("out", g, 2), other("other", wider, 2);
  Field<DefaultExec> H("H", g.ny_padded(), g.nx_padded()), H_wide("H", wider.ny_padded(), wider.nx_padded());
  Field<DefaultExec> n_field("n", g.ny_padded(), g.nx_padded()), none;
  CHECK_NOTHROW(detail::check_layouts(w, H, &out, n_field));
  CHECK_NOTHROW(detail::check_layouts(w, H, &out, none));
  CHECK_THROWS_AS(detail::check_layouts(w, H_wide), std::invalid_argument);
  CHECK_THROWS_AS(detail::check_layouts(w, H, &other), std::invalid_argument);
  CHECK_THROWS_AS(detail::check_layouts(w, H, &out, H_wide), std::invalid_argument);
  Conserved<DefaultExec> mixed("mixed", g, 2);
  mixed.hc[1] = Field<DefaultExec>("hc2", wider.ny_padded(), wider.nx_padded());
  CHECK_THROWS_AS(detail::check_layouts(w, H, &mixed), std::invalid_argument);
  CHECK_THROWS_AS(detail::check_layouts(mixed, H), std::invalid_argument);
  // Where devices compute positions in 32 bits (kCellAt32), a field of more than 2^32 positions
  // is refused; unmanaged Views give the shapes without the memory.
  using Shape = Kokkos::View<Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  CHECK(fits_cell_at(Shape(nullptr, 65536, 65536)));
  CHECK_FALSE(fits_cell_at(Shape(nullptr, 65537, 65536)));
  CHECK_FALSE(fits_cell_at(Shape(nullptr, 65536, 65537)));
  CHECK(fits_cell_at(Shape(nullptr, 1, 4294967296ull)));
}

TEST_CASE("the fields do not depend on the tiling, bit for bit", "[kernels]") {
  // Tile boundaries move with the tile shape as they do with the decomposition (tests/comm): an
  // edge solved inside one tile here is solved on a tile's border there, by both tiles. Tiles of
  // one row or one column have more boundary edges than cells; the device column kernels' teams
  // (61 columns: three teams across) sweep 64 rows (one team up), 5 or 1 at a time, and the CFL
  // pass's teams other runs of rows (so the time steps, too, must not depend on them).
  const Case c = busy_case(61, 37);
  for (Variant v : {Variant::Recompute, Variant::Decoupled}) {
    CAPTURE(to_string(v));
    const HostState ref = run<DefaultExec>(c, params(v, {32, 8}), 0, 200);
    for (Tiling t : {Tiling{16, 16, 5, 3}, Tiling{7, 5, 1, 64}, Tiling{64, 2}, Tiling{32, 1, 2, 1},
                     Tiling{1, 16, 36, 7}}) {
      CAPTURE(t.tx, t.ty, t.rows, t.cfl_rows);
      require_close(run<DefaultExec>(c, params(v, t), 0, 200), ref, 0.0);
    }
  }
}

namespace {

// A water mound collapsing in a bowl: the wave runs up the slopes in every direction, over land
// that is partly skipped (QuietMap) and partly not, so its fronts cross tile and square borders
// of every alignment; with a pollutant and friction.
Case bowl_case() {
  Case c;
  c.grid = Grid::single(97, 70, 1.0, 1.0);
  c.init = [](double x, double y, CellInit& s) {
    const double r2 = (x - 48) * (x - 48) + (y - 35) * (y - 35);
    s.H = 1.0 - r2 / 500.0;
    s.eta = (x - 42) * (x - 42) + (y - 33) * (y - 33) < 64 ? 0.8 : 0.0;
    s.c[0] = y > 30 ? 1.0 : 0.0;
    s.n = 0.02;
  };
  c.bc = Boundaries::all(BcType::Wall);
  return c;
}

/// The owned cells of a solver's state, bit for bit.
bool same_bits(const HostState& a, const HostState& b) {
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  return same(a.h, b.h) && same(a.qx, b.qx) && same(a.qy, b.qy) && same(a.hc, b.hc);
}

/// `t`, or, where the execution space's tiles hold fewer cells than t (a GPU's: one team a tile),
/// the widest tile of t's height that it allows. The wide host tiles, which skip part of
/// themselves, have no device counterpart; the device runs the narrower tile instead.
Tiling fitted(Tiling t) {
  constexpr int most = max_tile_cells<DefaultExec>();
  if (t.tx * t.ty > most) t.tx = most / t.ty;
  return t;
}

/// A case run twice in step, skipping dry land (`on`) and computing every cell (`off`).
struct SkipOnOff {
  SingleBlock<DefaultExec> ex;
  Solver<DefaultExec> on, off;
  SkipOnOff(const Case& c, Variant v, Tiling t)
      : on(c.grid, with_skip(v, t, true), c.bc), off(c.grid, with_skip(v, t, false), c.bc) {
    initialize(on, ex, c.init);
    initialize(off, ex, c.init);
  }
  static SolverParams with_skip(Variant v, Tiling t, bool skip) {
    SolverParams p = params(v, t);
    p.skip_dry = skip;
    return p;
  }
  void step(double t_end) {
    on.step(t_end, ex);
    off.step(t_end, ex);
    REQUIRE(on.time() == off.time());
  }
};

}  // namespace

TEST_CASE("skipping dry land gives the fields of computing everything, bit for bit", "[kernels]") {
  // Every 40 steps of 400 the states with and without skipping are compared bit for bit, for both
  // variants and several tilings and team heights (tiles that straddle the fronts, tiles smaller
  // and larger than the QuietMap's squares, host tiles that skip part of themselves and touch the
  // walls); the runs with skipping must skip a good part of the land, or the comparison would show
  // nothing.
  const Case c = bowl_case();
  for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
    for (Tiling t0 : {Tiling{32, 8}, Tiling{7, 5, 3}, Tiling{64, 2, 64}, Tiling{16, 16, 1}, Tiling{60, 30}}) {
      const Tiling t = fitted(t0);
      CAPTURE(to_string(v), t.tx, t.ty, t.rows);
      SkipOnOff r(c, v, t);
      double quiet_min = 1;
      for (int k = 0; k < 10; ++k) {
        for (int n = 0; n < 40; ++n) r.step(1e300);
        REQUIRE(same_bits(read_back(r.on), read_back(r.off)));
        quiet_min = std::min(quiet_min, r.on.quiet_fraction());
      }
      CAPTURE(quiet_min);
      CHECK(quiet_min > 0.1);  // (the device kernels mark whole tiles or runs of rows)
      CHECK(r.off.quiet_fraction() == 0);
    }
  }
}

TEST_CASE("a host tile wider than the squares a mask holds skips land, bit for bit", "[kernels]") {
  // A host tile marks the squares of its active cells (ActiveSquares), and one whose part to
  // compute spans more than 64 squares marks that part's whole width. Three pools along a
  // 1200-cell strip, each with a collapsing mound, dry banks between them. With 560-cell tiles
  // the middle tile holds two pools more than 64 squares apart and touches no side, so only its
  // own marks keep its water computed; 200-cell tiles mark by the mask. (The device runs its own
  // narrower tiles.)
  Case c;
  c.grid = Grid::single(1200, 24, 1.0, 1.0);
  c.init = [](double x, double y, CellInit& s) {
    double r2 = 1e9;
    for (double cx : {150.0, 580.0, 1100.0}) r2 = std::min(r2, (x - cx) * (x - cx) + (y - 12) * (y - 12));
    s.H = 0.6 - r2 / 400.0;
    s.eta = r2 < 25 ? 0.5 : 0.0;
    s.c[0] = x < 600 ? 1.0 : 0.0;
  };
  for (Tiling t0 : {Tiling{560, 4}, Tiling{200, 8}}) {
    const Tiling t = fitted(t0);
    CAPTURE(t.tx, t.ty);
    SkipOnOff r(c, Variant::Decoupled, t);
    double quiet_min = 1;
    for (int k = 0; k < 5; ++k) {
      for (int n = 0; n < 40; ++n) r.step(1e300);
      REQUIRE(same_bits(read_back(r.on), read_back(r.off)));
      quiet_min = std::min(quiet_min, r.on.quiet_fraction());
    }
    // (The 560-cell tiles mark most of the strip: the whole width of each part they compute.)
    if (t.tx < 512) CHECK(quiet_min > 0.1);
  }
}

TEST_CASE("skipping dry land follows a boundary that floods quiet land, bit for bit", "[kernels]") {
  // A shore dry from the start, quiet after the first steps; the west side's stage then rises
  // above its bed and floods it. The ghost cells change while the cells next to them are quiet:
  // a tile that skips part of itself must still compute the cells next to the boundary. Tiles
  // that touch the west side only, the east side only, both, and neither.
  Case c;
  c.grid = Grid::single(97, 30, 1.0, 1.0);
  c.init = [](double x, double, CellInit& s) {
    s.H = 0.5 - x / 40.0;  // 0.5 m below the datum at the west side, above it east of x = 20 m
    s.eta = -1.0;          // dry everywhere
    s.c[0] = 1.0;
  };
  c.bc = Boundaries::all(BcType::Wall);
  BcSegment stage;
  stage.side = West;
  stage.type = BcType::Stage;
  stage.stage = Series({0.0, 10.0, 40.0}, {-1.0, -1.0, 0.3});
  c.bc.segments = {stage};
  for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
    for (Tiling t0 : {Tiling{40, 8}, Tiling{16, 4, 2}, Tiling{97, 30}}) {
      const Tiling t = fitted(t0);
      CAPTURE(to_string(v), t.tx, t.ty);
      SkipOnOff r(c, v, t);
      double quiet_before = 0;
      for (int k = 1; k <= 120; ++k) {
        const double t_end = 0.5 * k;  // (a dry grid sets no CFL limit)
        while (r.on.time() < t_end) r.step(t_end);
        if (k == 18) quiet_before = r.on.quiet_fraction();  // t = 9 s: before the stage reaches the bed
        if (k % 10 == 0) REQUIRE(same_bits(read_back(r.on), read_back(r.off)));
      }
      CHECK(quiet_before > 0.9);
      const HostState s = read_back(r.on);
      CHECK(*std::max_element(s.h.begin(), s.h.end()) > 0.1);  // the shore flooded
    }
  }
}

TEST_CASE("skipped land is not computed: a cell changed behind the QuietMap's back is not seen",
          "[kernels]") {
  // The bit-for-bit tests above would pass if no kernel ever skipped anything. Here a pool at the
  // west side sloshes inside its banks while the land east of them stays dry and quiet. Then one
  // land cell far from the water and from the sides is given fast water in both runs, behind the
  // QuietMap's back. Computing everything, the CFL pass sees it (a much shorter step) and the
  // update carries it downstream; skipping, the CFL pass and the update both pass it by. The grid
  // is wider than a host's default tile (256 cells in single precision), so that the tile of the
  // poked cell does not reach both sides: a tile computes the box around its active parts and
  // the cells next to the sides it touches.
  Case c;
  c.grid = Grid::single(320, 128, 1.0, 1.0);
  c.init = [](double x, double, CellInit& s) {
    s.H = x < 40 ? 1.0 : -1.0;  // the pool's bed 1 m below the datum, the land 1 m above it
    s.eta = x < 20 ? 0.5 : 0.0;
    s.c[0] = 1.0;
  };
  constexpr int pi = 140, pj = 64;  // the poked cell, owned indices
  for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
    for (Tiling t0 : {Tiling{}, Tiling{32, 8}, Tiling{16, 4, 2}}) {
      const Tiling t = fitted(t0);
      CAPTURE(to_string(v), t.tx, t.ty, t.rows);
      SkipOnOff r(c, v, t);
      for (int n = 0; n < 10; ++n) r.step(1e300);
      REQUIRE(same_bits(read_back(r.on), read_back(r.off)));
      const Box o = c.grid.owned();
      const double dt_before = double(r.on.local_dt(o));
      for (Solver<DefaultExec>* s : {&r.on, &r.off}) {
        auto h = s->state().h;
        auto qx = s->state().qx;
        Kokkos::deep_copy(Kokkos::subview(h, o.j0 + pj, o.i0 + pi), Real(1.0));
        Kokkos::deep_copy(Kokkos::subview(qx, o.j0 + pj, o.i0 + pi), Real(30.0));
      }
      // A cell 1 m deep at 30 m/s limits the step to about cfl / 33 s; the pool to several times that.
      const double dt_on = double(r.on.local_dt(o)), dt_off = double(r.off.local_dt(o));
      CHECK(dt_on == dt_before);
      CHECK(dt_off < 0.5 * dt_on);
      r.on.step(1e300, r.ex);
      r.off.step(1e300, r.ex);
      // The flow is supercritical: in one step the water reaches the cell downstream only.
      const HostState on = read_back(r.on), off = read_back(r.off);
      CHECK(on.at(on.h, pi + 1, pj) == 0.0);
      CHECK(off.at(off.h, pi + 1, pj) > 0.0);
    }
  }
}

namespace {

/// One block, seen as a block among others: the step brings the CFL step to the host before the
/// update, as with MPI.
template <class E>
class OneOfMany final : public Exchanger<E> {
 public:
  void exchange_field(const Field<E>&) override {}
  double min_all(double local) override { return local; }
  double sum_all(double local) override { return local; }

 protected:
  void begin(const Conserved<E>&, const E&, Send) override {}
  void end(const Conserved<E>&) override {}
};

}  // namespace

TEST_CASE("a block of many teams takes the capped update, same bits", "[kernels]") {
  // On a GPU, the one-tracer decoupled update of a block of at least capped_update_teams() column
  // teams launches with a launch bound that caps its registers and teams of kCappedLanes lanes
  // (another compilation of the same code; on CUDA two warps a team against one). One row a team
  // makes this small block one of many teams; eight rows, one of few. The two must give the same
  // bits (the tiling test's invariant), so the capped kernel is checked against the uncapped one.
  using Col = detail::Column<DefaultExec, 1, detail::kCappedLanes>;
  const long capped = detail::capped_update_teams<DefaultExec>();
  const int nx = 300, strips = detail::ceil_div(nx, Col::kOwned);
  const int ny = std::max(40, int(capped / strips) + 2);  // one row a team: at least `capped` teams
  const Case c = busy_case(nx, ny);
  const Box owned = c.grid.owned();
  INFO("teams with 1 row: " << Col::teams(owned, 1) << ", capped from " << capped);
  if (!is_host_space<DefaultExec>()) {
    REQUIRE(Col::teams(owned, 1) >= capped);
    REQUIRE(Col::teams(owned, 8) < capped);
  }
  const HostState few = run<DefaultExec>(c, params(Variant::Decoupled, {32, 8, 8}), 0, 60);
  const HostState many = run<DefaultExec>(c, params(Variant::Decoupled, {32, 8, 1}), 0, 60);
  CHECK(same_bits(many, few));
}

TEST_CASE("host passes hand every tile to exactly one thread", "[kernels]") {
  using H = Kokkos::DefaultHostExecutionSpace;
  using Member = detail::HostTilePolicy<H>::member_type;
  const int threads = H().concurrency();
  for (int ntiles : {0, 1, 7, 1000, 4097}) {
    // More ranges than threads too: the ranges no thread owns are taken by the others. More than
    // TileTaker::kInline ranges: kept on the heap.
    for (int ranges : {threads, 3 * threads + 1, detail::TileTaker::kInline + 5}) {
      CAPTURE(ntiles, ranges, threads);
      Kokkos::View<int*, Kokkos::HostSpace> visits("visits", ntiles + 1);  // how often tile t was taken
      detail::TileTaker taker(ntiles, ranges);
      detail::TileTaker* const tiles = &taker;
      Kokkos::parallel_for(detail::host_tile_policy<H>(), [=](const Member& m) {
        for (int tile; (tile = tiles->next(m.league_rank())) >= 0;) Kokkos::atomic_increment(&visits(tile));
      });
      int once = 0;
      for (int t = 0; t < ntiles; ++t) once += visits(t) == 1;
      CHECK(once == ntiles);
      CHECK(visits(ntiles) == 0);
    }
  }
}

TEST_CASE("a host thread takes its own tiles front to back, then the back half of another's", "[kernels]") {
  // One thread alone, so that the order is certain: 10 tiles in ranges [0, 3), [3, 6), [6, 10).
  detail::TileTaker taker(10, 3);
  std::vector<int> order;
  for (int tile; (tile = taker.next(0)) >= 0;) order.push_back(tile);
  CHECK(order == std::vector<int>{0, 1, 2, 4, 5, 3, 8, 9, 7, 6});
  // A thread that finds every range empty takes nothing, however often it asks.
  CHECK(taker.next(1) == -1);
  CHECK(taker.next(0) == -1);
}

TEST_CASE("the step the update reads from the device is the host's, bit for bit", "[kernels]") {
  // On a device, a single block's update computes the step from the CFL pass's result in device
  // memory (StepDt) and the host learns it from what the update reports; a block among others, or
  // one larger than device_step_max_cells(), brings it to the host first. Same steps, same
  // fields, to the last bit, both variants, with runs that end on a time (the last step clipped)
  // and skipped dry land: walls; every boundary type, with one and with two ghost layers.
  INFO((DeviceReport<DefaultExec>::kAvailable ? "device path against host path"
                                              : "this space has no device path: both runs take the host path"));
  Case two_layers = busy_case(97, 70);
  two_layers.grid = Grid::single(97, 70, 1.0, 0.8, 0, 0, 2);
  const Case cases[] = {bowl_case(), busy_case(97, 70), two_layers};
  long longer_rows = 0;
  for (int ci = 0; ci < 3; ++ci) {
    for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
      const Case& c = cases[ci];
      CAPTURE(ci, to_string(v));
      SingleBlock<DefaultExec> single;
      OneOfMany<DefaultExec> many;
      REQUIRE(single.single_block());
      REQUIRE(!many.single_block());
      Solver<DefaultExec> a(c.grid, params(v, {32, 8}), c.bc), b(c.grid, params(v, {32, 8}), c.bc),
          large(c.grid, params(v, {32, 8}), c.bc), switching(c.grid, params(v, {32, 8}), c.bc),
          waves(c.grid, params(v, {32, 8}), c.bc);
      REQUIRE(a.device_step_max_cells() >= c.grid.owned().size());
      large.set_device_step_max_cells(c.grid.owned().size() - 1);
      // A device that holds two thirds of the pass's teams at once: where more than that ran, the
      // next pass takes longer rows (detail::cfl_rows).
      const int auto_rows = detail::cfl_rows<DefaultExec>(c.grid.owned(), Tiling{32, 8});
      waves.set_cfl_resident_teams(detail::Column<DefaultExec>::teams(c.grid.owned(), auto_rows) * 2 / 3);
      initialize(a, single, c.init);
      initialize(b, many, c.init);
      initialize(large, single, c.init);
      initialize(switching, single, c.init);
      initialize(waves, single, c.init);
      long n = 0;
      for (double t_stop : {0.37, 1.0, 4.0}) {
        while (a.time() < t_stop) {
          const double da = a.step(t_stop, single), db = b.step(t_stop, many);
          REQUIRE(da == db);
          REQUIRE(large.step(t_stop, single) == da);
          // Three steps on the device path, two on the host path, and so on: the device path's
          // maximum (two slots used in turn, each cleared by the update that reads the other) must
          // start from zero whatever the steps before it took.
          switching.set_device_step_max_cells(n % 5 < 3 ? a.device_step_max_cells() : 0);
          REQUIRE(switching.step(t_stop, single) == da);
          REQUIRE(waves.step(t_stop, single) == da);
          if (waves.last_cfl_rows() > auto_rows) ++longer_rows;
          REQUIRE(a.time() == b.time());
          ++n;
        }
        REQUIRE(a.time() == t_stop);
        REQUIRE(same_bits(read_back(a), read_back(b)));
        REQUIRE(same_bits(read_back(large), read_back(b)));
        REQUIRE(same_bits(read_back(switching), read_back(b)));
        REQUIRE(same_bits(read_back(waves), read_back(b)));
      }
      CHECK(n > 20);
    }
  }
  // The passes with longer rows ran (on a device: busy_case has few dry teams).
  if (DeviceReport<DefaultExec>::kAvailable) CHECK(longer_rows > 0);
}

TEST_CASE("the CFL step the host takes starts from zero, whatever the pass before found", "[kernels]") {
  // On a device the pass whose step the host takes (local_dt) raises a maximum in device memory,
  // which cfl_min_dt clears once read: a fast flow's maximum must not outlive it into a calm
  // flow's step. Host spaces reduce into a fresh value: there it holds trivially.
  const Case fast = busy_case(97, 70);
  const auto calm = [](double, double, CellInit& s) {
    s.H = 0.1;
    s.h = 0.1;
  };
  // The pass does not depend on the kernel variant: one is enough.
  SingleBlock<DefaultExec> single;
  const SolverParams p = params(Variant::Decoupled, {32, 8});
  Solver<DefaultExec> s(fast.grid, p, fast.bc), fresh(fast.grid, p, fast.bc);
  const Box owned = fast.grid.owned();
  initialize(s, single, fast.init);
  const Real fast_dt = s.local_dt(owned);
  REQUIRE(fast_dt > Real(0));
  REQUIRE(s.local_dt(owned) == fast_dt);
  initialize(s, single, calm);
  initialize(fresh, single, calm);
  const Real calm_dt = fresh.local_dt(owned);
  CHECK(calm_dt > Real(2) * fast_dt);
  CHECK(s.local_dt(owned) == calm_dt);
}

namespace {

/// Every field of a state, ghost layers included, bit for bit.
bool same_padded_bits(const Conserved<DefaultExec>& a, const Conserved<DefaultExec>& b) {
  if (a.size() != b.size()) return false;
  for (int f = 0; f < a.size(); ++f) {
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[f]);
    const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b[f]);
    if (x.span() != y.span() || std::memcmp(x.data(), y.data(), x.span() * sizeof(Real)) != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the ghost cells the update writes are the boundary fill's, bit for bit", "[kernels][boundary]") {
  // detail::StaticGhosts, the ghost layers a single block's update writes where every side is a
  // wall or open: each owned cell writes the ghost cells made of it, a team's run of a column at a
  // time. Over an arbitrary state,
  // writing them from every owned cell must give the fill's ghost layers and corners to the last
  // bit, for every mix of wall and open, one to three ghost layers, and blocks as narrow as the
  // layers are deep.
  const int shapes[][3] = {{9, 7, 1}, {9, 7, 2}, {3, 2, 2}, {5, 4, 3}, {1, 1, 1}};
  for (const auto& shape : shapes) {
    const Grid g = Grid::single(shape[0], shape[1], 1.0, 1.0, 0, 0, shape[2]);
    for (int mix = 0; mix < 16; ++mix) {
      CAPTURE(shape[0], shape[1], shape[2], mix);
      Boundaries bc;
      for (int side = 0; side < kNumSides; ++side) bc.side_default[side] = (mix >> side) & 1 ? BcType::Open : BcType::Wall;
      const BoundaryFiller filler(g, bc);
      const detail::StaticGhosts ghosts = filler.static_ghosts();
      REQUIRE(ghosts.on);
      Conserved<DefaultExec> filled("filled", g, 2), written("written", g, 2), before("before", g, 2);
      // Distinct values everywhere, signed discharges, old values in the ghosts.
      for (int f = 0; f < before.size(); ++f) {
        auto m = Kokkos::create_mirror_view(before[f]);
        for (int j = 0; j < g.ny_padded(); ++j)
          for (int i = 0; i < g.nx_padded(); ++i) m(j, i) = Real(0.1 + 0.37 * f + 0.011 * j - 0.007 * i * (f % 2 ? 1 : -1));
        Kokkos::deep_copy(before[f], m);
        Kokkos::deep_copy(filled[f], before[f]);
        Kokkos::deep_copy(written[f], before[f]);
      }
      Field<DefaultExec> H("H", g.ny_padded(), g.nx_padded());
      filler.fill(filled, H, 0.0, Real(9.81), Real(1e-4));
      // As update_cell calls it, with the values it has just written, where near() holds.
      const Box o = g.owned();
      Kokkos::parallel_for(
          "test::static_ghosts", Kokkos::MDRangePolicy<DefaultExec, Kokkos::Rank<2>>({o.j0, o.i0}, {o.j1, o.i1}),
          KOKKOS_LAMBDA(int j, int i) {
            if (!ghosts.near(i, i + 1, j, j + 1)) return;
            detail::More<2> hcm;
            hcm[1] = written.hc[1](j, i);
            ghosts.write<2>(written, j, i, written.h(j, i), written.qx(j, i), written.qy(j, i), written.hc[0](j, i), hcm);
          });
      REQUIRE(same_padded_bits(filled, written));
      REQUIRE(!same_padded_bits(before, written));
    }
  }
  // Off where a rule depends on time or on the cell along the side, where a side faces another
  // block, and where a block is narrower than its ghost layers are deep.
  const Grid g = Grid::single(9, 7, 1.0, 1.0, 0, 0, 2);
  Boundaries segmented = Boundaries::all(BcType::Wall);
  BcSegment stage;
  stage.side = North;
  stage.type = BcType::Stage;
  stage.stage = Series(0.5);
  segmented.segments = {stage};
  CHECK(!BoundaryFiller(g, segmented).static_ghosts().on);
  Grid inner = g;
  inner.physical[East] = false;
  CHECK(!BoundaryFiller(inner, Boundaries::all(BcType::Open)).static_ghosts().on);
  CHECK(!BoundaryFiller(Grid::single(1, 7, 1.0, 1.0, 0, 0, 2), Boundaries::all(BcType::Wall)).static_ghosts().on);
}

TEST_CASE("a step whose update writes the ghost layers gives the fill's state, bit for bit", "[kernels][boundary]") {
  // On a device, a single block with walls and open sides takes its step from the device, its
  // update writes the ghost layers of the new state, and the next step launches no fill
  // (Solver::step). After every step the whole state, ghost layers included, must be that of a run
  // that fills them, both variants, one and two ghost layers, and where the run switches between
  // the device's step and the host's. Host backends always fill.
  const bool device = DeviceReport<DefaultExec>::kAvailable;
  if (!device) WARN("this execution space takes the step on the host: the update writes no ghost layers, both runs fill");
  Case walls = busy_case(97, 70);
  walls.bc.segments.clear();
  Case open = walls;
  open.bc = Boundaries::all(BcType::Open);
  open.bc.side_default[South] = BcType::Wall;
  Case deep = walls;
  deep.grid = Grid::single(97, 70, 1.0, 0.8, 0, 0, 2);
  const Case cases[] = {walls, open, deep};
  for (int ci = 0; ci < 3; ++ci) {
    for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
      const Case& c = cases[ci];
      CAPTURE(ci, to_string(v));
      SingleBlock<DefaultExec> ex;
      Solver<DefaultExec> a(c.grid, params(v, {32, 8}), c.bc), b(c.grid, params(v, {32, 8}), c.bc),
          switching(c.grid, params(v, {32, 8}), c.bc);
      REQUIRE(a.update_ghosts_max_cells() >= c.grid.owned().size());
      b.set_update_ghosts_max_cells(0);
      initialize(a, ex, c.init);
      initialize(b, ex, c.init);
      initialize(switching, ex, c.init);
      long n = 0, fused = 0, device_steps = 0;
      while (a.time() < 3.0) {
        const double da = a.step(3.0, ex);
        REQUIRE(b.step(3.0, ex) == da);
        switching.set_device_step_max_cells(n % 5 < 3 ? a.device_step_max_cells() : 0);
        device_steps += n % 5 < 3;
        REQUIRE(switching.step(3.0, ex) == da);
        REQUIRE(a.ghosts_from_update() == device);
        REQUIRE(!b.ghosts_from_update());
        fused += switching.ghosts_from_update();
        b.fill_boundaries();
        if (!a.ghosts_from_update()) a.fill_boundaries();
        REQUIRE(same_padded_bits(a.state(), b.state()));
        if (!switching.ghosts_from_update()) switching.fill_boundaries();
        REQUIRE(same_padded_bits(switching.state(), b.state()));
        ++n;
      }
      CHECK(n > 20);
      CHECK(fused == (device ? device_steps : 0));
    }
  }
}

TEST_CASE("the device CFL pass's rows: one wave where the teams that ran need two", "[kernels]") {
  // detail::cfl_rows: rows from the block's size, longer ones (the fewest whose whole league the
  // device holds at once) where the last pass's running teams were more than the device holds at
  // once and at most twice as many; rows set by the deck, or nothing known, keep their choice.
  using Col = detail::Column<DefaultExec>;
  for (const Box box : {Box{0, 1024, 0, 1024}, Box{0, 1200, 0, 850}, Box{3, 500, 7, 97}}) {
    CAPTURE(box.nx(), box.ny());
    const int r0 = detail::cfl_rows<DefaultExec>(box, Tiling{});
    const long teams = Col::teams(box, r0);
    for (const long resident : {teams / 2, teams / 2 + 1, teams * 2 / 3, teams - 1, teams}) {
      for (const long ran : {teams, teams * 3 / 4, teams / 2}) {
        CAPTURE(r0, teams, resident, ran);
        const int r = detail::cfl_rows<DefaultExec>(box, Tiling{}, ran, r0, resident);
        if (ran <= resident || ran > 2 * resident || resident < 1) {
          CHECK(r == r0);
        } else {
          CHECK(r > r0);
          CHECK(Col::teams(box, r) <= resident);
          CHECK(Col::teams(box, r - 1) > resident);
        }
        CHECK(detail::cfl_rows<DefaultExec>(box, Tiling{0, 0, 0, 5}, ran, r0, resident) == 5);
        CHECK(detail::cfl_rows<DefaultExec>(box, Tiling{}, ran, r0, 0) == r0);
        CHECK(detail::cfl_rows<DefaultExec>(box, Tiling{}, 0, r0, resident) == r0);
      }
    }
  }
}

TEST_CASE("the column kernels' balanced rows: the least modelled cost, capped updates", "[kernels]") {
  // detail::balanced_rows: the whole rows r that minimise 2 / r + r x resident / (weight x strips
  // x ny) (the reloaded rows against the last walks), kept to 4..64; the update takes them
  // only where they give a block the capped update's team count, else column_rows.
  using Col = detail::Column<DefaultExec>;
  for (const Box box : {Box{0, 1536, 0, 1536}, Box{0, 4096, 0, 4096}, Box{0, 1200, 0, 850}, Box{3, 500, 7, 97},
                        Box{0, 16384, 0, 16384}}) {
    const double team_rows = double(detail::ceil_div(box.nx(), Col::kOwned)) * box.ny();
    for (const long resident : {1L, 132L * 16, 132L * 28, 5000L}) {
      for (const double weight : {1.0, 2.0}) {
        CAPTURE(box.nx(), box.ny(), resident, weight);
        const auto cost = [&](int r) { return 2.0 / r + r * double(resident) / (weight * team_rows); };
        const int r = detail::balanced_rows<DefaultExec>(box, resident, weight);
        REQUIRE(r >= 4);
        REQUIRE(r <= 64);
        if (r > 4) CHECK(cost(r) <= cost(r - 1));
        if (r < 64) CHECK(cost(r) <= cost(r + 1));
      }
    }
    CAPTURE(box.nx(), box.ny());
    const int ur = detail::update_rows<DefaultExec>(box, 0);
    if (ur != detail::column_rows<DefaultExec>(box, 0)) {
      CHECK(detail::Column<DefaultExec, 1, detail::kCappedLanes>::teams(box, ur) >=
            detail::capped_update_teams<DefaultExec>());
    }
    if (detail::device_multiprocessors<DefaultExec>() == 0) CHECK(ur == detail::column_rows<DefaultExec>(box, 0));
    CHECK(detail::update_rows<DefaultExec>(box, 7) == 7);
  }
}

TEST_CASE("an overlapped step updates the interior on an instance of its own, same bits",
          "[kernels]") {
  // A block among others with overlap updates its interior on OverlapSpaces::interior() (on a GPU
  // another stream than the default one, which the CFL pass and the boundary fill use) and waits
  // for it at the end of the step: the fields are those of the plain step, bit for bit. This
  // block's sides are all physical, so its band is empty: the bands and the exchange on the
  // band's stream are the MPI whole-run tests' (tests/comm/test_runs.cpp).
  const Case c = bowl_case();
  for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
    CAPTURE(to_string(v));
    OneOfMany<DefaultExec> many;
    Solver<DefaultExec> plain(c.grid, params(v, {32, 8}), c.bc), over(c.grid, params(v, {32, 8}), c.bc);
    over.set_overlap(true);
    initialize(plain, many, c.init);
    initialize(over, many, c.init);
    while (plain.time() < 2.0) {
      REQUIRE(plain.step(2.0, many) == over.step(2.0, many));
      if (plain.steps() % 16 == 0) REQUIRE(same_bits(read_back(plain), read_back(over)));
    }
    REQUIRE(same_bits(read_back(plain), read_back(over)));
  }
  Solver<DefaultExec> s(c.grid, params(Variant::Decoupled, {32, 8}), c.bc);
  const OverlapSpaces<DefaultExec>& sp = s.overlap_spaces();
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<DefaultExec, Kokkos::Cuda>::value) {
    // Two non-blocking streams of their own, neither the default one, the band's of higher
    // priority (CUDA numbers higher priorities lower).
    REQUIRE(sp.distinct());
    const cudaStream_t b = sp.band().cuda_stream(), i = sp.interior().cuda_stream();
    CHECK(b != i);
    CHECK(b != DefaultExec().cuda_stream());
    CHECK(i != DefaultExec().cuda_stream());
    int pb = 0, pi = 0, least = 0, greatest = 0;
    REQUIRE(cudaStreamGetPriority(b, &pb) == cudaSuccess);
    REQUIRE(cudaStreamGetPriority(i, &pi) == cudaSuccess);
    REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
    CHECK(pb == greatest);
    CHECK(pi == least);
    if (least != greatest) CHECK(pb < pi);
    // Not ordered with the legacy default stream: the step orders its work itself.
    unsigned fb = 0, fi = 0;
    REQUIRE(cudaStreamGetFlags(b, &fb) == cudaSuccess);
    REQUIRE(cudaStreamGetFlags(i, &fi) == cudaSuccess);
    CHECK((fb & cudaStreamNonBlocking) != 0);
    CHECK((fi & cudaStreamNonBlocking) != 0);
    return;
  }
#endif
  WARN("this execution space has no streams of its own: the band and the interior run in turn");
  CHECK(!sp.distinct());
}

TEST_CASE("Serial and the default execution space give the same fields", "[kernels]") {
#ifdef KOKKOS_ENABLE_SERIAL
  if (std::is_same<Kokkos::Serial, DefaultExec>::value) {
    WARN("the default execution space is Serial: nothing to compare against");
    return;
  }
  if (is_host_space<DefaultExec>()) {
    // Host spaces run the same machine code per cell: bit for bit, on the case that exercises
    // every branch.
    const Case c = busy_case(45, 29);
    for (Variant v : {Variant::Recompute, Variant::Decoupled}) {
      CAPTURE(to_string(v));
      const HostState serial = run<Kokkos::Serial>(c, params(v, {16, 4}), 0, 150);
      const HostState dflt = run<DefaultExec>(c, params(v, {16, 4}), 0, 150);
      require_close(dflt, serial, 0.0);
    }
  } else {
    // A GPU contracts a * b + c into FMAs and has its own cbrt, so results differ from the host's
    // in the last bits; at wet/dry fronts such differences grow (a cell on one side of eps_h or
    // the other), so compare on a smooth, fully wet flow with friction, where they stay at
    // round-off.
    Case c;
    c.grid = Grid::single(64, 40, 1.0, 1.0);
    c.init = [](double x, double y, CellInit& s) {
      s.H = 2.0 + 0.3 * std::sin(0.2 * x) * std::cos(0.3 * y);
      s.eta = 0.3 * std::exp(-((x - 20) * (x - 20) + (y - 20) * (y - 20)) / 50.0);
      s.c[0] = y > 20 ? 1.0 : 0.2;
      s.n = 0.03;
    };
    for (Variant v : {Variant::Recompute, Variant::Decoupled}) {
      CAPTURE(to_string(v));
      const HostState serial = run<Kokkos::Serial>(c, params(v, {16, 4}), 0, 200);
      const HostState dflt = run<DefaultExec>(c, params(v, {16, 4}), 0, 200);
      require_close(dflt, serial, rtol(1e-12));
    }
  }
#else
  FAIL("Kokkos::Serial is not enabled in this Kokkos build");
#endif
}

TEST_CASE("Roe edge solver: consistency, conservation, wall, symmetry", "[roe]") {
  const Real g = 9.81, sg = std::sqrt(g), eps = 1e-6;
  Fluct dm, dp;
  SECTION("equal states at rest give no fluctuation") {
    const Prim s{1.3, 0.2, 0.0, 0.0, 0.4, std::sqrt(Real(1.3))};
    roe_fluctuations(s, s, g, sg, eps, dm, dp);
    CHECK(dm.h == 0);
    CHECK(dm.qn == 0);
    CHECK(dp.hc == 0);
  }
  SECTION("D- + D+ equals the flux jump minus the bathymetry source") {
    const Prim L{1.2, 0.5, 0.3, -0.1, 0.7, std::sqrt(Real(1.2))};
    const Prim R{0.8, 0.9, -0.2, 0.4, 0.1, std::sqrt(Real(0.8))};
    roe_fluctuations(L, R, g, sg, eps, dm, dp);
    const double hm = 0.5 * (L.h + R.h);
    const double Bh = R.h * R.un - L.h * L.un;
    const double Bn = (R.h * R.un * R.un + 0.5 * g * R.h * R.h) -
                      (L.h * L.un * L.un + 0.5 * g * L.h * L.h) - g * hm * (R.H - L.H);
    const double Bt = R.h * R.un * R.ut - L.h * L.un * L.ut;
    const double Bc = R.h * R.un * R.c - L.h * L.un * L.c;
    CHECK(dm.h + dp.h == Approx(Bh).epsilon(rtol(1e-13)));
    CHECK(dm.qn + dp.qn == Approx(Bn).epsilon(rtol(1e-13)));
    CHECK(dm.qt + dp.qt == Approx(Bt).epsilon(rtol(1e-13)));
    CHECK(dm.hc + dp.hc == Approx(Bc).epsilon(rtol(1e-13)));
  }
  SECTION("mirrored problem gives mirrored fluctuations") {
    const Prim L{1.2, 0.5, 0.3, -0.1, 0.7, std::sqrt(Real(1.2))};
    const Prim R{0.8, 0.9, -0.2, 0.4, 0.1, std::sqrt(Real(0.8))};
    Fluct mm, mp;
    roe_fluctuations(L, R, g, sg, eps, dm, dp);
    const Prim Rm{R.h, R.H, -R.un, R.ut, R.c, R.sh}, Lm{L.h, L.H, -L.un, L.ut, L.c, L.sh};
    roe_fluctuations(Rm, Lm, g, sg, eps, mm, mp);
    // Reflection x -> -x swaps the cells: the mass and pollutant flux change sign, the normal
    // momentum flux does not, so D+' = D- and D-' = D+ for h and hc, and opposite for qn.
    CHECK(mp.h == Approx(dm.h).epsilon(rtol(1e-13)));
    CHECK(mm.h == Approx(dp.h).epsilon(rtol(1e-13)));
    CHECK(mp.qn == Approx(-dm.qn).epsilon(rtol(1e-13)));
    CHECK(mm.qn == Approx(-dp.qn).epsilon(rtol(1e-13)));
    CHECK(mp.hc == Approx(dm.hc).epsilon(rtol(1e-13)));
    CHECK(mp.qt == Approx(dm.qt).epsilon(rtol(1e-13)));
  }
  SECTION("a wet cell below a dry step sees a wall") {
    const Prim L{0.5, 1.0, 0.8, 0.0, 0.0, std::sqrt(Real(0.5))};  // free surface at -0.5
    const Prim R{0.0, 0.2, 0.0, 0.0, 0.0, 0.0};             // bottom at -0.2: above it
    roe_fluctuations(L, R, g, sg, eps, dm, dp);
    // Mass flux through the wall is zero: F* = qn_L + D-_h = 0, and the dry cell gets nothing.
    CHECK(L.h * L.un + dm.h == Approx(0.0).margin(rtol(1e-15)));
    CHECK(dp.h == 0);
    CHECK(dp.qn == 0);
    CHECK(edge_speed(L, R, g, eps) == Approx(std::sqrt(g * L.h)));
  }
  SECTION("two dry cells exchange nothing") {
    const Prim L{1e-8, 0.0, 0.0, 0.0, 0.0, 1e-4}, R{0.0, -1.0, 0.0, 0.0, 0.0, 0.0};
    roe_fluctuations(L, R, g, sg, eps, dm, dp);
    CHECK(dm.h == 0);
    CHECK(dp.h == 0);
    CHECK(edge_speed(L, R, g, eps) == 0);
  }
}

TEST_CASE("KokkosBlas diagnostics agree with host sums and norms", "[kernels]") {
  // Diagnostics works on the owned cells only: fill ghosts with junk that must not count.
  const Grid g = Grid::single(37, 23, 0.5, 2.0, 0, 0, 2);
  Field<DefaultExec> a("a", g.ny_padded(), g.nx_padded()), b("b", g.ny_padded(), g.nx_padded());
  auto ha = Kokkos::create_mirror_view(a);
  auto hb = Kokkos::create_mirror_view(b);
  for (int j = 0; j < g.ny_padded(); ++j)
    for (int i = 0; i < g.nx_padded(); ++i) {
      const bool owned = i >= g.ng && i < g.ng + g.nx && j >= g.ng && j < g.ng + g.ny;
      ha(j, i) = owned ? Real(std::sin(0.3 * i + 0.7 * j)) : Real(1e6);
      hb(j, i) = owned ? Real(std::cos(0.2 * i - 0.5 * j)) : Real(-1e6);
    }
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);
  const auto va = owned_to_host(a, g), vb = owned_to_host(b, g);
  double sum = 0;
  for (double x : va) sum += x;
  const auto ref = exact::error_norms(va.data(), vb.data(), va.size(), g.dx * g.dy);
  Diagnostics<DefaultExec> d(g);
  CHECK(d.integral(a) == Approx(sum * g.dx * g.dy).epsilon(rtol(1e-13)));
  const auto e = d.error(a, b);
  CHECK(e.l1 == Approx(ref.l1).epsilon(rtol(1e-13)));
  CHECK(e.l2 == Approx(ref.l2).epsilon(rtol(1e-13)));
  CHECK(e.linf == Approx(ref.linf).epsilon(rtol(1e-13)));
}
