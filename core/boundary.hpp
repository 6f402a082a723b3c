// shwa/core/boundary.hpp — boundary conditions: the ghost layers outside the domain (docs/method.md section 5).
//
// Each side of the domain takes a default type and any number of segments (ranges of cells along the
// side) that override it. Ghost layer m (m = 0 next to the domain) of a side is filled from the
// interior:
//   wall       mirror image of interior layer m: same h, tracers and tangential discharge, opposite
//              normal discharge (the bathymetry ghosts are mirrored the same way, once);
//   open       zero gradient: a copy of the first interior layer;
//   stage      free-surface level eta(t): h = max(0, eta + H_ghost), velocity and concentration of
//              the first interior layer;
//   discharge  inflow Q(t) [m^3/s] spread evenly over the segment's length, entering the domain,
//              with a concentration c(t) of each tracer: q_n = Q / length, q_t = 0, and the depth of the first
//              interior layer, raised to the critical depth (q_n^2/g)^(1/3) if that is less, so a
//              river can flow into a dry channel.
// Each physical side fills its ghost layers over the whole padded extent along the side, so that the
// ghost cells next to a neighbour block's halo hold what one block covering the domain would hold.
#pragma once

#include "fields.hpp"
#include "grid.hpp"
#include "host_tiles.hpp"
#include "math.hpp"
#include "params.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace shwa {

inline const char* side_name(int s) {
  static const char* names[kNumSides] = {"west", "east", "south", "north"};
  return names[s];
}

namespace detail {

/// The segments of one side as a kernel sees them at one time (values evaluated on the host).
struct SideBc {
  static constexpr int kMax = 16;
  int n = 0;
  int default_type = 0;
  int begin[kMax], end[kMax];
  signed char type[kMax];         // BcType
  Real v[kMax];                   // a stage segment's level eta, a discharge segment's q_n [m^2/s]
  Real c[kMaxTracers][kMax];      // a discharge segment's inflow concentration of each tracer

  KOKKOS_INLINE_FUNCTION int find(int gidx) const {
    int k = -1;
    for (int s = 0; s < n; ++s)
      if (gidx >= begin[s] && gidx < end[s]) k = s;  // the last segment listed wins
    return k;
  }
};

/// Storage indices of ghost layer m of a side, of its mirror and of the first interior layer, for
/// the cell at storage position p along the side.
struct SideGeometry {
  int ng, nx, ny, ioff, joff;
  KOKKOS_INLINE_FUNCTION void cells(int side, int m, int p, int& jg, int& ig, int& jm, int& im,
                                    int& jn, int& in) const {
    if (side == West || side == East) {
      jg = jm = jn = p;
      ig = side == West ? ng - 1 - m : ng + nx + m;
      im = side == West ? ng + m : ng + nx - 1 - m;
      in = side == West ? ng : ng + nx - 1;
    } else {
      ig = im = in = p;
      jg = side == South ? ng - 1 - m : ng + ny + m;
      jm = side == South ? ng + m : ng + ny - 1 - m;
      jn = side == South ? ng : ng + ny - 1;
    }
  }
  /// Global index along the side of storage position p.
  KOKKOS_INLINE_FUNCTION int global(int side, int p) const {
    return (side == West || side == East) ? joff + p - ng : ioff + p - ng;
  }
};

/// The ghost layers of a block whose four sides are physical and each a wall or open over its whole
/// length, written by the update kernel as it writes the cells they are made of, so that no fill
/// runs before the next step (docs/kernels.md). Those rules do not depend on time, and each ghost
/// cell is one interior cell's values, its normal discharge negated at a wall: ghost layer m of a
/// wall mirrors interior layer m, every ghost layer of an open side copies layer 0, and a corner
/// cell takes the south or north rule applied to the west or east ghost cell beside it, as
/// FillGhosts computes it. So write() gives, for the cell just written, every ghost cell made of
/// it, with the fill's values bit for bit (tested), from the values in the update's registers.
struct StaticGhosts {
  SideGeometry geo{};
  bool on = false;
  bool wall[kNumSides] = {false, false, false, false};  // else open

  /// Interior layer of side s that storage cell (j, i) lies in (0: next to the ghosts).
  KOKKOS_INLINE_FUNCTION int layer(int s, int j, int i) const {
    return s == West ? i - geo.ng : s == East ? geo.ng + geo.nx - 1 - i : s == South ? j - geo.ng : geo.ng + geo.ny - 1 - j;
  }
  /// The ghost layers [m0, m1) of side s made of interior layer d.
  KOKKOS_INLINE_FUNCTION void made_of(int s, int d, int& m0, int& m1) const {
    m0 = wall[s] ? d : 0;
    m1 = wall[s] ? (d < geo.ng ? d + 1 : d) : (d == 0 ? geo.ng : 0);
  }
  /// Whether a team's cells, storage columns [i0, i1) and rows [j0, j1), reach a layer that ghost
  /// cells are made of (so that write() is called for them, and only for them).
  KOKKOS_INLINE_FUNCTION bool near(int i0, int i1, int j0, int j1) const {
    return on && (i0 < 2 * geo.ng || i1 > geo.nx || j0 < 2 * geo.ng || j1 > geo.ny);
  }
  /// Writes to w the ghost cells made of storage cell (j, i), whose new values the caller has just
  /// written: h, qx, qy, the first tracer's h c in hc0 and the others' in hcm[1..NT).
  template <int NT, class W, class Tracers>
  KOKKOS_INLINE_FUNCTION void write(const W& w, int j, int i, Real h, Real qx, Real qy, Real hc0,
                                    const Tracers& hcm) const {
    const int ng = geo.ng;
    if (!on || (i >= 2 * ng && i < geo.nx && j >= 2 * ng && j < geo.ny)) return;  // no layer < ng
    const auto put = [&](int jg, int ig, Real gqx, Real gqy) {
      w.h(jg, ig) = h, w.qx(jg, ig) = gqx, w.qy(jg, ig) = gqy, w.hc[0](jg, ig) = hc0;
      for (int t = 1; t < NT; ++t) w.hc[t](jg, ig) = hcm[t];
    };
    int jg, ig, jm, im, jn, in, m0, m1, n0, n1;
    for (int sx = West; sx <= East; ++sx) {
      made_of(sx, layer(sx, j, i), m0, m1);
      const Real gqx = wall[sx] ? -qx : qx;
      for (int m = m0; m < m1; ++m) {
        geo.cells(sx, m, j, jg, ig, jm, im, jn, in);
        put(jg, ig, gqx, qy);
        for (int sy = South; sy <= North; ++sy) {  // the corners next to this ghost cell
          made_of(sy, layer(sy, j, i), n0, n1);
          for (int n = n0; n < n1; ++n) {
            int cj, ci;
            geo.cells(sy, n, ig, cj, ci, jm, im, jn, in);
            put(cj, ci, gqx, wall[sy] ? -qy : qy);
          }
        }
      }
    }
    for (int sy = South; sy <= North; ++sy) {
      made_of(sy, layer(sy, j, i), m0, m1);
      for (int m = m0; m < m1; ++m) {
        geo.cells(sy, m, i, jg, ig, jm, im, jn, in);
        put(jg, ig, qx, wall[sy] ? -qy : qy);
      }
    }
  }
};

/// The ghost layers of the sides listed, one thread a ghost cell, in one launch.
///
/// The result is that of filling the sides listed one after the other in the order west, east,
/// south, north, each reading what the ones before wrote. Only the corners (ghost cells of two
/// sides) tie them: where south or north is listed, its rule writes the corners, and west and
/// east leave them; where west or east is listed, the south and north rules read the cells of its
/// ghost columns next to the domain, which this launch writes, and so compute those cells' values
/// from the west or east rule themselves, from the interior cells that rule reads. Listing more
/// than one side needs a block at least ng cells across: then the west and east rules read only
/// interior columns, and south and north read only interior rows.
///
/// The tracer loops run to kMaxTracers and test t < ntracers inside: with a constant trip count
/// the compiler unrolls them and keeps a Cell in registers, where a loop to ntracers indexes its
/// array at run time and puts every Cell on the stack (on a GPU, local memory).
template <class E>
struct FillGhosts {
  struct Cell {
    Real h, qx, qy, hc[kMaxTracers];
  };

  Conserved<E> w;
  Field<E> H;
  SideGeometry geo;
  Real g, eps_h;
  int count = 0;                          // sides listed
  int side[kNumSides], len[kNumSides];    // listed side s: its id, its cells along the side
  int first[kNumSides + 1] = {0};         // listed side s's threads: [first[s], first[s + 1])
  bool listed[kNumSides] = {false, false, false, false};
  SideBc bc[kNumSides];                   // by side id

  void add(int id, const SideBc& b, int length) {
    side[count] = id;
    len[count] = length;
    bc[id] = b;
    listed[id] = true;
    first[count + 1] = first[count] + length * geo.ng;
    ++count;
  }
  int threads() const { return first[count]; }

  KOKKOS_INLINE_FUNCTION Cell stored(int j, int i) const {
    Cell c;
    c.h = w.h(j, i);
    c.qx = w.qx(j, i);
    c.qy = w.qy(j, i);
    for (int t = 0; t < kMaxTracers; ++t)
      if (t < w.ntracers) c.hc[t] = w.hc[t](j, i);
    return c;
  }

  /// The value of cell (j, i) that the rules of the sides after west and east read.
  KOKKOS_INLINE_FUNCTION Cell source(int j, int i) const {
    int jg, ig;
    if (listed[West] && i < geo.ng) return ghost<false>(West, geo.ng - 1 - i, j, jg, ig);
    if (listed[East] && i >= geo.ng + geo.nx) return ghost<false>(East, i - geo.ng - geo.nx, j, jg, ig);
    return stored(j, i);
  }

  /// Ghost cell m, p of `s` (storage indices jg, ig) by its side's rule (see the top of this file).
  template <bool kCorners>
  KOKKOS_INLINE_FUNCTION Cell ghost(int s, int m, int p, int& jg, int& ig) const {
    int jm, im, jn, in;
    geo.cells(s, m, p, jg, ig, jm, im, jn, in);
    const SideBc& b = bc[s];
    const int k = b.find(geo.global(s, p));
    const int type = k < 0 ? b.default_type : b.type[k];
    const bool xside = s == West || s == East;
    const int nt = w.ntracers;
    const bool mirror = type == int(BcType::Wall);
    const int jr = mirror ? jm : jn, ir = mirror ? im : in;  // the cell the rule reads
    const Cell from = kCorners ? source(jr, ir) : stored(jr, ir);
    Cell c = from;
    // Normal and tangential discharge of this side.
    Real& qn = xside ? c.qx : c.qy;
    Real& qt = xside ? c.qy : c.qx;
    const Real qn_from = xside ? from.qx : from.qy, qt_from = xside ? from.qy : from.qx;
    if (mirror) {
      qn = -qn_from;
    } else if (type == int(BcType::Stage)) {
      const Real h = shwa::max(Real(0), b.v[k] + H(jg, ig));
      const Real r = from.h >= eps_h ? h / from.h : Real(0);  // same velocity and concentration
      c.h = h;
      for (int t = 0; t < kMaxTracers; ++t)
        if (t < nt) c.hc[t] = r * from.hc[t];
      qn = r * qn_from;
      qt = r * qt_from;
    } else if (type == int(BcType::Discharge)) {
      const Real q = b.v[k];
      const Real hcrit = shwa::cbrt(q * q / g);
      const Real h = shwa::max(from.h, hcrit);
      const Real inward = (s == West || s == South) ? Real(1) : Real(-1);
      c.h = h;
      for (int t = 0; t < kMaxTracers; ++t)
        if (t < nt) c.hc[t] = h * b.c[t][k];
      qn = inward * q;
      qt = Real(0);
    }  // open: a copy of the first interior layer
    return c;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int idx) const {
    int l = 0;
    while (idx >= first[l + 1]) ++l;
    const int local = idx - first[l];
    cell(l, local / len[l], local % len[l]);
  }

  /// Ghost cell m, p of listed side l.
  KOKKOS_INLINE_FUNCTION void cell(int l, int m, int p) const {
    const int s = side[l];
    const bool xside = s == West || s == East;
    if (xside && ((p < geo.ng && listed[South]) || (p >= geo.ng + geo.ny && listed[North]))) return;
    int jg, ig;
    const Cell c = xside ? ghost<false>(s, m, p, jg, ig) : ghost<true>(s, m, p, jg, ig);
    w.h(jg, ig) = c.h;
    w.qx(jg, ig) = c.qx;
    w.qy(jg, ig) = c.qy;
    for (int t = 0; t < kMaxTracers; ++t)
      if (t < w.ntracers) w.hc[t](jg, ig) = c.hc[t];
  }
};

}  // namespace detail

/// Fills the ghost layers of the physical sides of a block.
class BoundaryFiller {
 public:
  BoundaryFiller() = default;
  BoundaryFiller(const Grid& grid, Boundaries bc) : grid_(grid), bc_(std::move(bc)) {
    for (const auto& s : bc_.segments) {
      const int len = (s.side == West || s.side == East) ? grid.ny_global : grid.nx_global;
      const int e = s.end < 0 ? len : s.end;
      if (s.begin < 0 || e > len || s.begin >= e)
        throw std::invalid_argument(std::string("boundary segment on the ") + side_name(s.side) +
                                    " side: cells [" + std::to_string(s.begin) + ", " +
                                    std::to_string(e) + ") do not lie within [0, " +
                                    std::to_string(len) + ")");
    }
    for (int side = 0; side < kNumSides; ++side) {
      // A cell of no segment (and the corners, beyond every segment) takes the side's default,
      // which has no values to take.
      const BcType d = bc_.side_default[side];
      if (d == BcType::Stage || d == BcType::Discharge)
        throw std::invalid_argument(std::string("the ") + side_name(side) +
                                    " side's default type needs values (a stage or a discharge): "
                                    "give it as a segment, with wall or open as the default");
      int n = 0;
      for (const auto& s : bc_.segments) n += s.side == side;
      if (n > detail::SideBc::kMax)
        throw std::invalid_argument(std::string("too many boundary segments on the ") +
                                    side_name(side) + " side (at most " +
                                    std::to_string(detail::SideBc::kMax) + ")");
    }
  }

  const Boundaries& boundaries() const { return bc_; }

  /// The update's ghost writes (detail::StaticGhosts), on where every side of the block is physical
  /// and a wall or open over its whole length, and the block at least ng cells across (as for
  /// fill's one launch); else off.
  detail::StaticGhosts static_ghosts() const {
    detail::StaticGhosts s;
    s.geo = geometry();
    s.on = bc_.segments.empty() && grid_.nx >= grid_.ng && grid_.ny >= grid_.ng;
    for (int side = 0; side < kNumSides; ++side) {
      const BcType d = bc_.side_default[side];
      s.on = s.on && grid_.physical[side] && (d == BcType::Wall || d == BcType::Open);
      s.wall[side] = d == BcType::Wall;
    }
    return s;
  }

  /// The side's conditions at time t.
  detail::SideBc side_at(int side, double t) const {
    detail::SideBc s;
    s.default_type = int(bc_.side_default[side]);
    const bool xside = side == West || side == East;
    const double cell = xside ? grid_.dy : grid_.dx;
    const int len = xside ? grid_.ny_global : grid_.nx_global;
    for (const auto& seg : bc_.segments) {
      if (seg.side != side) continue;
      const int k = s.n++;
      s.begin[k] = seg.begin;
      s.end[k] = seg.end < 0 ? len : seg.end;
      s.type[k] = static_cast<signed char>(seg.type);
      s.v[k] = Real(seg.type == BcType::Stage     ? (seg.stage.empty() ? 0.0 : seg.stage(t))
                    : seg.type == BcType::Discharge ? (seg.discharge.empty() ? 0.0
                                                        : seg.discharge(t) / ((s.end[k] - s.begin[k]) * cell))
                                                  : 0.0);
      for (int tr = 0; tr < kMaxTracers; ++tr) {
        const bool given = tr < int(seg.concentration.size()) && !seg.concentration[tr].empty();
        s.c[tr][k] = Real(given ? seg.concentration[tr](t) : 0.0);
      }
    }
    return s;
  }

  /// Fills the ghost layers of the physical sides of w at time t. H must have its ghosts filled.
  /// The result is that of filling west, east, south and north one after the other, each reading
  /// what the ones before wrote (the corners take the values of south and north). Where the block
  /// is at least ng cells across, that is one launch (detail::FillGhosts); narrower blocks take
  /// one launch a side.
  template <class E>
  void fill(const Conserved<E>& w, const Field<E>& H, double t, Real g, Real eps_h) const {
    if (grid_.nx < grid_.ng || grid_.ny < grid_.ng) {
      fill_each_side(w, H, t, g, eps_h);
      return;
    }
    detail::FillGhosts<E> f = ghosts(w, H, g, eps_h);
    for (int side = 0; side < kNumSides; ++side)
      if (grid_.physical[side]) f.add(side, side_at(side, t), extent_along(side));
    launch(f);
  }

  /// The same as fill, one launch a side in the order west, east, south, north.
  template <class E>
  void fill_each_side(const Conserved<E>& w, const Field<E>& H, double t, Real g, Real eps_h) const {
    for (int side = 0; side < kNumSides; ++side) {
      if (!grid_.physical[side]) continue;
      detail::FillGhosts<E> f = ghosts(w, H, g, eps_h);
      f.add(side, side_at(side, t), extent_along(side));
      launch(f);
    }
  }

  /// Fills the bathymetry (or any static field) ghosts of the physical sides: mirrored at walls,
  /// copied elsewhere.
  template <class E>
  void fill_static(const Field<E>& f) const {
    for (int side = 0; side < kNumSides; ++side)
      if (grid_.physical[side]) fill_static_side<E>(f, side, side_at(side, 0.0));
  }

 // The kernel below is public only because CUDA's extended lambdas may not live in private
 // member functions.
  detail::SideGeometry geometry() const {
    return detail::SideGeometry{grid_.ng, grid_.nx, grid_.ny, grid_.ioff, grid_.joff};
  }
  int extent_along(int side) const {
    return (side == West || side == East) ? grid_.ny_padded() : grid_.nx_padded();
  }

  template <class E>
  void fill_static_side(const Field<E>& f, int side, const detail::SideBc bc) const {
    const detail::SideGeometry geo = geometry();
    const int len = extent_along(side), ng = grid_.ng;
    Kokkos::parallel_for(
        "shwa::fill_static_boundary", launch_light(Kokkos::RangePolicy<E>(0, len * ng)),
        KOKKOS_LAMBDA(const int idx) {
          const int m = idx / len, p = idx % len;
          int jg, ig, jm, im, jn, in;
          geo.cells(side, m, p, jg, ig, jm, im, jn, in);
          const int k = bc.find(geo.global(side, p));
          const int type = k < 0 ? bc.default_type : bc.type[k];
          f(jg, ig) = type == int(BcType::Wall) ? f(jm, im) : f(jn, in);
        });
  }

 private:
  template <class E>
  detail::FillGhosts<E> ghosts(const Conserved<E>& w, const Field<E>& H, Real g, Real eps_h) const {
    detail::FillGhosts<E> f;
    f.w = w;
    f.H = H;
    f.geo = geometry();
    f.g = g;
    f.eps_h = eps_h;
    return f;
  }

  template <class E>
  static void launch(const detail::FillGhosts<E>& f) {
    // Passed as a kernel argument (launch_light) only below CUDA's 4 KB limit; larger, Kokkos
    // would copy it to device memory before every launch.
    static_assert(sizeof(detail::FillGhosts<E>) <= 3840, "the boundary fill's arguments outgrow a kernel's");
    if (f.count == 0) return;
    if constexpr (is_host_space<E>()) {
      // Each thread takes an equal contiguous run of positions along every side, all layers of a
      // position together. The ghost cells of a west or east side lie a row of memory apart, a
      // cache miss each: one range over all the listed cells would give them all to the few
      // threads whose share they fall in (docs/kernels.md).
      const int threads = E().concurrency(), ng = f.geo.ng;
      using Member = typename detail::HostTilePolicy<E>::member_type;
      Kokkos::parallel_for("shwa::fill_boundary", detail::host_tile_policy<E>(), [=](const Member& thread) {
        const long r = thread.league_rank();
        for (int l = 0; l < f.count; ++l) {
          const int p0 = int(f.len[l] * r / threads), p1 = int(f.len[l] * (r + 1) / threads);
          if (f.side[l] == West || f.side[l] == East) {
            for (int p = p0; p < p1; ++p)
              for (int m = 0; m < ng; ++m) f.cell(l, m, p);
          } else {
            for (int m = 0; m < ng; ++m)
              for (int p = p0; p < p1; ++p) f.cell(l, m, p);
          }
        }
      });
    } else {
      Kokkos::parallel_for("shwa::fill_boundary", launch_light(Kokkos::RangePolicy<E>(0, f.threads())), f);
    }
  }

  Grid grid_;
  Boundaries bc_;
};

}  // namespace shwa
