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
  int begin[kMax], end[kMax], type[kMax];
  Real eta[kMax], qn[kMax], c[kMaxTracers][kMax];
  int default_type = 0;

  KOKKOS_INLINE_FUNCTION int find(int gidx) const {
    int k = -1;
    for (int s = 0; s < n; ++s)
      if (gidx >= begin[s] && gidx < end[s]) k = s;  // the last segment listed wins
    return k;
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
      s.type[k] = int(seg.type);
      s.eta[k] = Real(seg.stage.empty() ? 0.0 : seg.stage(t));
      s.qn[k] = Real(seg.discharge.empty() ? 0.0 : seg.discharge(t) / ((s.end[k] - s.begin[k]) * cell));
      for (int tr = 0; tr < kMaxTracers; ++tr) {
        const bool given = tr < int(seg.concentration.size()) && !seg.concentration[tr].empty();
        s.c[tr][k] = Real(given ? seg.concentration[tr](t) : 0.0);
      }
    }
    return s;
  }

  /// Fills the ghost layers of the physical sides of w at time t. H must have its ghosts filled.
  /// West and east, then south and north. The two sides of a pair neither write nor read each
  /// other's cells where the block is at least ng cells across, so each pair is one kernel there
  /// (fewer launches a step); the corners take the values of south and north, as they would in
  /// that order one side at a time.
  template <class E>
  void fill(const Conserved<E>& w, const Field<E>& H, double t, Real g, Real eps_h) const {
    for (int first : {int(West), int(South)}) {
      const int second = first + 1;
      const bool wide = (first == West ? grid_.nx : grid_.ny) >= grid_.ng;
      const bool a = grid_.physical[first], b = grid_.physical[second];
      if (a && b && wide) {
        fill_sides<E>(w, H, first, side_at(first, t), second, side_at(second, t), 2, g, eps_h);
      } else {
        if (a) fill_sides<E>(w, H, first, side_at(first, t), first, detail::SideBc{}, 1, g, eps_h);
        if (b) fill_sides<E>(w, H, second, side_at(second, t), second, detail::SideBc{}, 1, g, eps_h);
      }
    }
  }

  /// Fills the bathymetry (or any static field) ghosts of the physical sides: mirrored at walls,
  /// copied elsewhere.
  template <class E>
  void fill_static(const Field<E>& f) const {
    for (int side = 0; side < kNumSides; ++side)
      if (grid_.physical[side]) fill_static_side<E>(f, side, side_at(side, 0.0));
  }

 // The kernels below are public only because CUDA's extended lambdas may not live in private
 // member functions.
  // Storage indices of ghost layer m of a side, of its mirror and of the first interior layer, for
  // the cell at position p along the side.
  struct Geometry {
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

  Geometry geometry() const { return Geometry{grid_.ng, grid_.nx, grid_.ny, grid_.ioff, grid_.joff}; }
  int extent_along(int side) const {
    return (side == West || side == East) ? grid_.ny_padded() : grid_.nx_padded();
  }

  /// The ghost layers of `nsides` (1 or 2) sides of one orientation (west/east or south/north):
  /// side_a with bc_a, then side_b with bc_b.
  template <class E>
  void fill_sides(const Conserved<E>& w, const Field<E>& H, int side_a, const detail::SideBc bc_a,
                  int side_b, const detail::SideBc bc_b, int nsides, Real g, Real eps_h) const {
    const Geometry geo = geometry();
    const int len = extent_along(side_a), ng = grid_.ng;
    const bool xside = side_a == West || side_a == East;
    Kokkos::parallel_for(
        "shwa::fill_boundary", launch_light(Kokkos::RangePolicy<E>(0, nsides * len * ng)),
        KOKKOS_LAMBDA(const int idx_all) {
          const bool on_b = idx_all >= len * ng;
          const int side = on_b ? side_b : side_a, idx = on_b ? idx_all - len * ng : idx_all;
          const detail::SideBc& bc = on_b ? bc_b : bc_a;
          const Real inward = (side == West || side == South) ? Real(1) : Real(-1);
          const int m = idx / len, p = idx % len;
          int jg, ig, jm, im, jn, in;
          geo.cells(side, m, p, jg, ig, jm, im, jn, in);
          const int k = bc.find(geo.global(side, p));
          const int type = k < 0 ? bc.default_type : bc.type[k];
          // Normal and tangential discharge views of this side.
          const auto& qn = xside ? w.qx : w.qy;
          const auto& qt = xside ? w.qy : w.qx;
          const int nt = w.ntracers;
          if (type == int(BcType::Wall)) {
            w.h(jg, ig) = w.h(jm, im);
            for (int t = 0; t < nt; ++t) w.hc[t](jg, ig) = w.hc[t](jm, im);
            qn(jg, ig) = -qn(jm, im);
            qt(jg, ig) = qt(jm, im);
          } else if (type == int(BcType::Open)) {
            w.h(jg, ig) = w.h(jn, in);
            for (int t = 0; t < nt; ++t) w.hc[t](jg, ig) = w.hc[t](jn, in);
            qn(jg, ig) = qn(jn, in);
            qt(jg, ig) = qt(jn, in);
          } else if (type == int(BcType::Stage)) {
            const Real hn = w.h(jn, in);
            const Real h = shwa::max(Real(0), bc.eta[k] + H(jg, ig));
            const Real s = hn >= eps_h ? h / hn : Real(0);  // same velocity and concentration
            w.h(jg, ig) = h;
            for (int t = 0; t < nt; ++t) w.hc[t](jg, ig) = s * w.hc[t](jn, in);
            qn(jg, ig) = s * qn(jn, in);
            qt(jg, ig) = s * qt(jn, in);
          } else {  // discharge
            const Real q = bc.qn[k];
            const Real hcrit = shwa::cbrt(q * q / g);
            const Real h = shwa::max(w.h(jn, in), hcrit);
            w.h(jg, ig) = h;
            for (int t = 0; t < nt; ++t) w.hc[t](jg, ig) = h * bc.c[t][k];
            qn(jg, ig) = inward * q;
            qt(jg, ig) = Real(0);
          }
        });
  }

  template <class E>
  void fill_static_side(const Field<E>& f, int side, const detail::SideBc bc) const {
    const Geometry geo = geometry();
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
  Grid grid_;
  Boundaries bc_;
};

}  // namespace shwa
