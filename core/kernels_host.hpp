// shwa/core/kernels_host.hpp — the host (Serial, OpenMP) bodies of the kernels of kernels.hpp, written
// so that the compiler vectorizes them (SIMD). Included by kernels.hpp after its detail helpers; the
// `if constexpr (is_host_space<E>())` branches there call these, the device branches do not.
//
// One thread (one Kokkos team of size 1) sweeps a tile row by row. Every loop over a row runs over
// contiguous structure-of-arrays data in team scratch and is marked `#pragma omp simd`:
//   * the primitive values of the tile and of its four neighbouring rows and columns are computed
//     once a cell (make_cell_prim, branch-free);
//   * a row of edges is solved into per-edge arrays D-, D+ (roe_row: the Roe solver of roe.hpp,
//     branch-free, one edge a SIMD lane), which the cell update then adds up, so that no iteration
//     writes what the next one reads (decoupled: a row's x-edges and the y-edges north of it, then
//     the row's update; the D+ of those y-edges waits for the next row). A row is solved first
//     without the rare cases (entropy fix, outflow limit) and again with them only if one of its
//     edges needs one, and without the wet/dry classification where all its cells are wet;
//   * the cell update (update_row: update_values and friction_factor of kernels.hpp, the pieces of
//     update_cell) is one SIMD loop, the flux part then the Manning friction, whose cube root is
//     computed in plain arithmetic (cbrt_arith: libm's cbrt is a call, which does not vectorize).
// The bodies of the recompute and update loops are functions of their own (recompute_sums,
// update_one): GCC gives an `omp simd` body's address-taken locals (fluctuations handed by
// reference) one struct a lane, and with several of them it left the float loops scalar.
// The Roe solver is the one of roe.hpp; no physics is restated here. Additions into a cell are made
// in the order of the device kernels (west D+ then east D-, south D+ then north D-), and without FMA
// contraction (see core/CMakeLists.txt) a SIMD lane computes the same bits as a scalar iteration, so
// the results do not depend on the kernel variant, the tile shape, the vector width or on how the
// blocks of a decomposition fall.
#pragma once
// (Include kernels.hpp, not this header: it needs the helpers declared there before it.)

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "simd.hpp"

namespace shwa {
namespace detail {

/// One row of cell primitive values in an edge's frame: six arrays (h, H, un, ut, c, sqrt h).
struct PrimRow {
  const Real *h, *H, *un, *ut, *c, *sh;
  KOKKOS_INLINE_FUNCTION Prim operator[](int i) const { return Prim{h[i], H[i], un[i], ut[i], c[i], sh[i]}; }
};

/// One row of fluctuations: four arrays (h, qn, qt, hc).
struct FluctRow {
  Real *h, *qn, *qt, *hc;
  KOKKOS_INLINE_FUNCTION void set(int i, const Fluct& f) const {
    h[i] = f.h;
    qn[i] = f.qn;
    qt[i] = f.qt;
    hc[i] = f.hc;
  }
  KOKKOS_INLINE_FUNCTION Fluct get(int i) const { return Fluct{h[i], qn[i], qt[i], hc[i]}; }
};

/// Rows of the tracers after the first, one array each, tracer t's at [t] (as More).
template <int NT, class T>
struct MoreRows {
  T* v[NT > 1 ? NT - 1 : 1];
  KOKKOS_INLINE_FUNCTION T* operator[](int t) const { return v[t - 1]; }
  KOKKOS_INLINE_FUNCTION T*& operator[](int t) { return v[t - 1]; }
};

/// PrimRow and FluctRow of NT tracers: with the other tracers' concentrations (cm) or h c
/// fluctuations (hcm). With one tracer they are PrimRow and FluctRow.
template <int NT>
struct PrimRowN : PrimRow {
  MoreRows<NT, const Real> cm;
};
template <>
struct PrimRowN<1> : PrimRow {};
template <int NT>
struct FluctRowN : FluctRow {
  MoreRows<NT, Real> hcm;
};
template <>
struct FluctRowN<1> : FluctRow {};

/// The FluctRowN of the 3 + NT arrays of n values from `a` on.
template <int NT>
KOKKOS_FORCEINLINE_FUNCTION FluctRowN<NT> fluct_row(Real* a, size_t n) {
  FluctRowN<NT> r{{a, a + n, a + 2 * n, a + 3 * n}};
  if constexpr (NT > 1) {
    for (int t = 1; t < NT; ++t) r.hcm[t] = a + (3 + t) * n;
  }
  return r;
}

/// Whether every cell on both sides of the n edges is wet (then the rows skip the wet/dry
/// classification, which is a fifth of the branch-free solver's instructions).
inline bool all_wet(const PrimRow L, const PrimRow R, int n, Real eps) {
  Real hmin = std::numeric_limits<Real>::max();
  SHWA_SIMD_MIN(hmin)
  for (int e = 0; e < n; ++e) hmin = shwa::min(hmin, shwa::min(L.h[e], R.h[e]));
  return hmin >= eps;
}

/// Edge e of rows of NT > 1 tracers: roe_solve (the water and the first tracer), then the other
/// tracers from its EdgeMass (tracer_fluct); returns whether the edge needed a rare case. The body
/// of roe_row_impl's SIMD loop, as a function of its own (see recompute_sums).
template <bool MaybeDry, bool Rare, int NT>
KOKKOS_FORCEINLINE_FUNCTION bool roe_edge(const PrimRowN<NT>& L, const PrimRowN<NT>& R, int e, Real g,
                                          Real sg, Real eps, const FluctRowN<NT>& dm,
                                          const FluctRowN<NT>& dp) {
  Fluct m, p;
  bool r;
  EdgeMass em;
  roe_solve<MaybeDry, Rare>(L[e], R[e], g, sg, eps, m, p, r, em);
  dm.set(e, m);
  dp.set(e, p);
  for (int t = 1; t < NT; ++t) tracer_fluct(em, L.cm[t][e], R.cm[t][e], dm.hcm[t][e], dp.hcm[t][e]);
  return r;
}

/// Solves the row with roe_solve<MaybeDry, Rare>; returns whether an edge needed a rare case
/// (always false with Rare). With one tracer the loop's body holds roe_solve's outputs as its own
/// locals, the form GCC vectorizes; with more, the body is roe_edge.
template <bool MaybeDry, bool Rare, int NT>
bool roe_row_impl(const PrimRowN<NT> L, const PrimRowN<NT> R, int n, Real g, Real sg, Real eps,
                  const FluctRowN<NT> dm, const FluctRowN<NT> dp) {
  int rare = 0;
  SHWA_SIMD_OR(rare)
  for (int e = 0; e < n; ++e) {
    if constexpr (NT == 1) {
      Fluct m, p;
      bool r;
      roe_solve<MaybeDry, Rare>(L[e], R[e], g, sg, eps, m, p, r);
      dm.set(e, m);
      dp.set(e, p);
      rare |= int(r & !Rare);
    } else {
      rare |= int(roe_edge<MaybeDry, Rare, NT>(L, R, e, g, sg, eps, dm, dp) & !Rare);
    }
  }
  return rare != 0;
}

template <bool MaybeDry, int NT>
void roe_row_dispatch(const PrimRowN<NT> L, const PrimRowN<NT> R, int n, Real g, Real sg, Real eps,
                      const FluctRowN<NT> dm, const FluctRowN<NT> dp) {
  if (roe_row_impl<MaybeDry, false>(L, R, n, g, sg, eps, dm, dp))
    roe_row_impl<MaybeDry, true>(L, R, n, g, sg, eps, dm, dp);
}

/// Solves the n edges between L[e] and R[e], e in [0, n): D- into dm[e], D+ into dp[e], for the
/// water and the NT tracers. First without the rare cases (roe_solve<*, false>), again with them
/// if an edge of the row needed one; and without the wet/dry classification where all cells are
/// wet.
template <int NT>
inline void roe_row(const PrimRowN<NT> L, const PrimRowN<NT> R, int n, Real g, Real sg, Real eps,
                    const FluctRowN<NT> dm, const FluctRowN<NT> dp) {
  if (all_wet(L, R, n, eps))
    roe_row_dispatch<false>(L, R, n, g, sg, eps, dm, dp);
  else
    roe_row_dispatch<true>(L, R, n, g, sg, eps, dm, dp);
}

template <bool MaybeDry>
void speed_row_impl(const PrimRow L, const PrimRow R, int n, Real g, Real eps, Real* sp) {
  SHWA_SIMD
  for (int e = 0; e < n; ++e) sp[e] = edge_speed<MaybeDry>(L[e], R[e], g, eps);
}

/// The wave-speed bounds of the n edges between L[e] and R[e] into sp[e].
inline void speed_row(const PrimRow L, const PrimRow R, int n, Real g, Real eps, Real* sp) {
  if (all_wet(L, R, n, eps))
    speed_row_impl<false>(L, R, n, g, eps, sp);
  else
    speed_row_impl<true>(L, R, n, g, eps, sp);
}

/// The cube root of x > 0 in plain arithmetic and without a division, so that it vectorizes and
/// keeps the divider free (libm's cbrt is a call, a vector math library would give other bits in
/// SIMD lanes than in the scalar remainder, and divisions are the slowest SIMD instructions of the
/// step, shared with the Roe loops' own):
/// y ~ x^(-1/3) from the bits (minus the exponent over 3, about 5 bits), Newton's iteration for
/// the inverse cube root y <- y (4 - x y^3) / 3, which doubles the correct bits each time and
/// divides by nothing (3 iterations in double, 2 in float), then cbrt x = x y^2 with a last
/// Newton step c - (c^3 - x) y^2 / 3 (y^2 / 3 stands for 1 / (3 c^2)): within 1 ulp of the
/// correctly rounded cube root (tested). The same operations in every lane, so the result does not
/// depend on where a cell falls in a row.
KOKKOS_INLINE_FUNCTION Real cbrt_arith(Real x) {
  static_assert(sizeof(Real) == 8 || sizeof(Real) == 4, "Real is double or float");
  using Bits = std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>;
  Bits b;
  std::memcpy(&b, &x, sizeof b);
  Real y;
  // Bits of x^(-1/3) ~ K - bits(x) / 3, b / 3 as (b * ceil(2^32 / 3)) >> 32 (exact for b < 2^31;
  // in double on the high word). K minimizes the guess's largest error (3.4 % double, 4.7 % float).
  if constexpr (sizeof(Real) == 8) {
    const std::uint64_t hi = std::uint64_t(b) >> 32;  // (a no-op cast that keeps float builds' shift defined)
    const std::uint64_t g = (1430188254u - ((hi * 1431655766u) >> 32)) << 32;
    std::memcpy(&y, &g, sizeof y);
  } else {
    const std::uint32_t g = 1420069755u - std::uint32_t((std::uint64_t(b) * 1431655766u) >> 32);
    std::memcpy(&y, &g, sizeof y);
  }
  const Real third = Real(1) / Real(3);
  for (int it = 0; it < (sizeof(Real) == 8 ? 3 : 2); ++it) y = y * (Real(4) - x * (y * y * y)) * third;
  const Real y2 = y * y, c = x * y2;
  return c - (c * c * c - x) * y2 * third;
}

/// The sums of a row's fluctuations as update_row reads them, cell tx: x (west D+ plus east D-) and
/// y (south D+ plus north D-); x_more, y_more: tracer t's (t >= 1, NT > 1). Recompute: rows of
/// sums its loop has formed.
template <int NT>
struct SumRows {
  FluctRowN<NT> mx, my;
  KOKKOS_INLINE_FUNCTION Fluct x(int tx) const { return mx.get(tx); }
  KOKKOS_INLINE_FUNCTION Fluct y(int tx) const { return my.get(tx); }
  KOKKOS_INLINE_FUNCTION Real x_more(int tx, int t) const { return mx.hcm[t][tx]; }
  KOKKOS_INLINE_FUNCTION Real y_more(int tx, int t) const { return my.hcm[t][tx]; }
};

/// Decoupled: the rows of edges themselves, x-edge e between cells e - 1 and e (D- xm, D+ xp), the
/// y-edges south (their D+) and north (their D-) of the row; summed as the device kernels sum.
template <int NT>
struct EdgeRows {
  FluctRowN<NT> xm, xp, south, north;
  KOKKOS_INLINE_FUNCTION Fluct x(int tx) const { return add(xp.get(tx), xm.get(tx + 1)); }
  KOKKOS_INLINE_FUNCTION Fluct y(int tx) const { return add(south.get(tx), north.get(tx)); }
  KOKKOS_INLINE_FUNCTION Real x_more(int tx, int t) const { return add_rn(xp.hcm[t][tx], xm.hcm[t][tx + 1]); }
  KOKKOS_INLINE_FUNCTION Real y_more(int tx, int t) const { return add_rn(south.hcm[t][tx], north.hcm[t][tx]); }
};

/// The rows update_row reads (W^n, g n^2 if per cell) and writes (W^{n+1}).
struct UpdateRows {
  const Real *h0, *qx0, *qy0, *hc0, *gn2;
  Real *h1, *qx1, *qy1, *hc1;
};
/// With NT tracers: the other tracers' h c, read (hc0m) and written (hc1m).
template <int NT>
struct UpdateRowsN : UpdateRows {
  MoreRows<NT, const Real> hc0m;
  MoreRows<NT, Real> hc1m;
};
template <>
struct UpdateRowsN<1> : UpdateRows {};

/// W^{n+1} of cell tx of the row: the flux part (update_values), then the Manning friction
/// (friction_factor) where Friction, with g n^2 from the field's row where PerCell, else gn2c. The
/// body of update_row's SIMD loop, as a function of its own so that its fluctuation sums are plain
/// values (see recompute_sums).
template <bool Friction, bool PerCell, int NT, class Sums>
KOKKOS_FORCEINLINE_FUNCTION void update_one(const UpdateRowsN<NT>& r, int tx, const Sums& sums, Real gn2c,
                                            Real fx, Real fy, Real dt, Real eps, Real& clip) {
  Real h = r.h0[tx], qx = r.qx0[tx], qy = r.qy0[tx], hc = r.hc0[tx];
  bool empty;
  update_values(h, qx, qy, hc, sums.x(tx), sums.y(tx), fx, fy, eps, clip, empty);
  if constexpr (NT > 1) {
    for (int t = 1; t < NT; ++t)
      r.hc1m[t][tx] = update_tracer(r.hc0m[t][tx], sums.x_more(tx, t), sums.y_more(tx, t), fx, fy, empty);
  }
  if constexpr (Friction) {
    const Real gn2 = PerCell ? r.gn2[tx] : gn2c;
    const bool use = (h >= eps) & (gn2 > Real(0));
    const Real f = friction_factor(use, h, qx, qy, cbrt_arith(select(use, h, Real(1))), dt, gn2);
    qx = select(use, qx * f, qx);
    qy = select(use, qy * f, qy);
  }
  r.h1[tx] = h;
  r.qx1[tx] = qx;
  r.qy1[tx] = qy;
  r.hc1[tx] = hc;
}

template <bool Friction, bool PerCell, int NT, class Sums>
void update_row_impl(const UpdateRowsN<NT> r, int ntx, const Sums sums, Real gn2c, Real fx, Real fy,
                     Real dt, Real eps, Real* clip) {
  SHWA_SIMD
  for (int tx = 0; tx < ntx; ++tx)
    update_one<Friction, PerCell, NT>(r, tx, sums, gn2c, fx, fy, dt, eps, clip[tx]);
}

/// The squares of the QuietMap that a host tile's rows found active (update_row), or'ed over its
/// rows: bit b for the square column i0 / kCells + b of the tile's first column i0. A tile wider
/// than kMost squares has kAll where any is active. Marking these squares alone, not the whole
/// width the tile computed, keeps the dry land beside the water of a wide tile quiet: marked, it
/// would make the next step compute it, and mark it again.
struct ActiveSquares {
  static constexpr int kMost = 64;
  static constexpr std::uint64_t kAll = ~std::uint64_t(0);
  /// Marks `squares` over rows [j0, j1) of the tile [i0, i0 + ntx).
  template <class E>
  static void mark(const QuietMap<E>& q, std::uint64_t squares, int i0, int ntx, int j0, int j1) {
    constexpr int K = QuietMap<E>::kCells;
    if (squares == kAll) return q.mark(i0, i0 + ntx, j0, j1);
    const int s0 = i0 / K;
    for (; squares != 0; squares &= squares - 1) {
      const int sq = s0 + __builtin_ctzll(squares);
      q.mark(sq * K, sq * K + 1, j0, j1);
    }
  }
};

/// W^{n+1} of the ntx cells of row j from i0 on (update_cell, a row at a time), one SIMD loop
/// (update_one), the water and NT tracers. The clipped water goes to the scratch row `clip` and is
/// counted cell by cell, as update_cell does. Sums: SumRows or EdgeRows. Returns which of the
/// QuietMap's squares hold an active cell of the row (ActiveSquares) where `squares_wanted`
/// (skipping is on), else 1. A row all wet answers for all its squares without comparing bits.
template <int NT, class E, class Sums>
std::uint64_t update_row(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& gn2_field,
                bool has_n, Real gn2c, int j, int i0, int ntx, const Sums sums, Real fx, Real fy,
                Real dt, Real eps, Real* clip, const ClipCounter<E>& clipped, bool squares_wanted) {
  UpdateRowsN<NT> r{{&w.h(j, i0),   &w.qx(j, i0),   &w.qy(j, i0),   &w.hc[0](j, i0),
                      has_n ? &gn2_field(j, i0) : nullptr,
                      &out.h(j, i0), &out.qx(j, i0), &out.qy(j, i0), &out.hc[0](j, i0)}};
  if constexpr (NT > 1) {
    for (int t = 1; t < NT; ++t) r.hc0m[t] = &w.hc[t](j, i0), r.hc1m[t] = &out.hc[t](j, i0);
  }
  if (has_n)
    update_row_impl<true, true>(r, ntx, sums, gn2c, fx, fy, dt, eps, clip);
  else if (gn2c > Real(0))
    update_row_impl<true, false>(r, ntx, sums, gn2c, fx, fy, dt, eps, clip);
  else
    update_row_impl<false, false>(r, ntx, sums, gn2c, fx, fy, dt, eps, clip);
  // clip_max almost always 0: then no cell needs counting. -dry_max, the row's least depth.
  Real clip_max = 0, dry_max = -std::numeric_limits<Real>::max();
  SHWA_SIMD_MAX2(clip_max, dry_max)
  for (int tx = 0; tx < ntx; ++tx) {
    clip_max = shwa::max(clip_max, clip[tx]);
    dry_max = shwa::max(dry_max, -r.h1[tx]);
  }
  if (clip_max > Real(0))
    for (int tx = 0; tx < ntx; ++tx)
      if (clip[tx] > Real(0)) Kokkos::atomic_add(&clipped(), double(clip[tx]));
  if (!squares_wanted) return 1;
  constexpr int K = QuietMap<E>::kCells;
  const int s0 = i0 / K, s1 = (i0 + ntx - 1) / K;
  // A row all wet has an active cell in each of its squares.
  if (-dry_max >= eps)
    return s1 - s0 + 1 >= ActiveSquares::kMost ? ActiveSquares::kAll : (std::uint64_t(1) << (s1 - s0 + 1)) - 1;
  // Else each cell's activity, 1 or 0, into the clip row (counted above): wet (or NaN), or else
  // changed in any field; then each square's.
  Real* const act = clip;
  SHWA_SIMD
  for (int tx = 0; tx < ntx; ++tx)
    act[tx] = select(active_cell(r.h1[tx], r.qx1[tx], r.qy1[tx], r.hc1[tx], r.h0[tx], r.qx0[tx], r.qy0[tx],
                                 r.hc0[tx], eps),
                     Real(1), Real(0));
  if constexpr (NT > 1) {
    for (int t = 1; t < NT; ++t) {
      const Real *x = r.hc1m[t], *y = r.hc0m[t];
      SHWA_SIMD
      for (int tx = 0; tx < ntx; ++tx) act[tx] = select(same_bits(x[tx], y[tx]), act[tx], Real(1));
    }
  }
  auto any_in = [act](int a, int b) {
    Real any = 0;
    for (int tx = a; tx < b; ++tx) any = shwa::max(any, act[tx]);
    return any > Real(0);
  };
  if (s1 - s0 >= ActiveSquares::kMost) return any_in(0, ntx) ? ActiveSquares::kAll : 0;
  std::uint64_t squares = 0;
  for (int sq = s0; sq <= s1; ++sq)
    if (any_in(std::max(sq * K, i0) - i0, std::min((sq + 1) * K, i0 + ntx) - i0))
      squares |= std::uint64_t(1) << (sq - s0);
  return squares;
}

/// Shrinks a host tile to the part of it that is not skipped (QuietMap::active_part); false where
/// none is. The tile's sweep then runs on that part as on a smaller tile: its fields do not depend
/// on the tiles.
template <class E>
KOKKOS_INLINE_FUNCTION bool active_part(const QuietMap<E>& q, Tile& tl) {
  int i1 = tl.i0 + tl.ntx, j1 = tl.j0 + tl.nty;
  if (!q.active_part(tl.i0, i1, tl.j0, j1)) return false;
  tl.ntx = i1 - tl.i0;
  tl.nty = j1 - tl.j0;
  return true;
}

/// Team scratch of the host sweeps (flat, structure of arrays), for NT tracers (the CFL pass: 1):
///   p      5 + NT arrays (h, H, u, v, c, sqrt h, then the other tracers' c) over the
///          (TX+2) x (TY+2) block of the tile and its four neighbouring rows and columns (corners
///          unused);
///   edges  5 rows of 3 + NT arrays (h, qn, qt, hc, then the other tracers' hc) over TX + 1
///          edges: the D- and D+ of the rows of edges being solved (the CFL pass keeps edge speeds
///          in their first arrays);
///   clip   1 array over TX + 1: update_row's clipped water.
template <class E, int NT = 1>
struct HostTileScratch {
  static constexpr int kPrims = 5 + NT, kFlucts = 3 + NT;
  int TX, px, npos;
  Real* base;

  static size_t reals(const Tiling& t) {
    return kPrims * size_t(t.tx + 2) * (t.ty + 2) + (5 * kFlucts + 1) * size_t(t.tx + 1);
  }
  static size_t bytes(const Tiling& t) { return ScratchArray<E>::shmem_size(reals(t)); }

  HostTileScratch(const typename HostTilePolicy<E>::member_type& m, const Tiling& t)
      : TX(t.tx),
        px(t.tx + 2),
        npos((t.tx + 2) * (t.ty + 2)),
        base(ScratchArray<E>(m.team_scratch(0), reals(t)).data()) {}

  // Position of tile cell (tx, ty), tx, ty >= -1, in the primitive arrays.
  int pos(int tx, int ty) const { return (ty + 1) * px + tx + 1; }
  Real* prim(int field) const { return base + size_t(field) * npos; }
  /// The row of primitive values that starts at tile cell (tx, ty), in the frame of direction Dir
  /// (0: x-edges, un = u; 1: y-edges, un = v).
  PrimRowN<NT> row(int Dir, int tx, int ty) const {
    const int q = pos(tx, ty);
    const Real *u = prim(2) + q, *v = prim(3) + q;
    PrimRowN<NT> r{{prim(0) + q, prim(1) + q, Dir == 0 ? u : v, Dir == 0 ? v : u, prim(4) + q,
                    prim(5) + q}};
    if constexpr (NT > 1) {
      for (int t = 1; t < NT; ++t) r.cm[t] = prim(5 + t) + q;
    }
    return r;
  }
  /// update_row's scratch row.
  Real* clip() const { return base + kPrims * size_t(npos) + 5 * kFlucts * (size_t(TX) + 1); }
  /// Row s (0 to 4) of fluctuations of the edges being solved.
  FluctRowN<NT> edges(int s) const {
    const size_t ne = size_t(TX) + 1;
    return fluct_row<NT>(base + kPrims * size_t(npos) + size_t(s) * kFlucts * ne, ne);
  }

  /// Primitive values of the tile and of its four neighbouring rows and columns.
  /// WithC = false (the CFL pass, whose speeds do not read it) leaves the concentration out.
  template <bool WithC = true>
  void load(const Conserved<E>& w, const Field<E>& H, const Tile& tl, Real eps) const {
    for (int ty = -1; ty <= tl.nty; ++ty) {
      const bool inner = ty >= 0 && ty < tl.nty;
      const int a = inner ? -1 : 0, b = inner ? tl.ntx + 1 : tl.ntx;  // [a, b)
      const int j = tl.j0 + ty;
      const Real *h = &w.h(j, tl.i0), *qx = &w.qx(j, tl.i0), *qy = &w.qy(j, tl.i0),
                 *hc = &w.hc[0](j, tl.i0), *Hb = &H(j, tl.i0);
      const int q = pos(0, ty);
      Real *ph = prim(0) + q, *pH = prim(1) + q, *pu = prim(2) + q, *pv = prim(3) + q,
           *pc = prim(4) + q, *psh = prim(5) + q;
      MoreRows<NT, const Real> hcm;  // the other tracers (NT > 1)
      MoreRows<NT, Real> pcm;
      if constexpr (NT > 1) {
        for (int t = 1; t < NT; ++t) hcm[t] = &w.hc[t](j, tl.i0), pcm[t] = prim(5 + t) + q;
      }
      SHWA_SIMD
      for (int tx = a; tx < b; ++tx) {
        const CellPrim c = make_cell_prim(h[tx], qx[tx], qy[tx], WithC ? hc[tx] : Real(0), Hb[tx], eps);
        ph[tx] = c.h;
        pH[tx] = c.H;
        pu[tx] = c.u;
        pv[tx] = c.v;
        if (WithC) pc[tx] = c.c;
        psh[tx] = c.sh;
        if constexpr (NT > 1) {
          for (int t = 1; t < NT; ++t) pcm[t][tx] = concentration(h[tx], hcm[t][tx]);
        }
      }
    }
  }
};

/// Host body of cfl_min_dt: each edge's speed is computed once and added to both of its cells, in
/// the order of the device kernel (west + east, south + north).
template <class E, class Obs>
Real host_cfl_min_dt(const Conserved<E>& w, const Field<E>& H, const Box& box,
                     const StepConstants& k, Real cfl, const Tiling& tiling, const QuietMap<E>& q,
                     const Obs& obs) {
  using Scr = HostTileScratch<E>;
  Real zmax = 0;
  const int ntx_tiles = ceil_div(box.nx(), tiling.tx);
  const Real g = k.g, eps = k.eps_h, dx = Real(k.dx), dy = Real(k.dy);
  const Real num = Real(2) * cfl * dx * dy;
  const Box b = box;
  const Tiling t = tiling;
  TileTaker taker(tile_count(box, tiling), E().concurrency());
  TileTaker* const tiles = &taker;
  Kokkos::parallel_reduce(
      "shwa::cfl_min_dt", host_tile_policy<E>().set_scratch_size(0, Kokkos::PerTeam(Scr::bytes(tiling))),
      [=](const typename HostTilePolicy<E>::member_type& m, Real& lmax) {
        const Scr s(m, t);
        Real tmax = lmax;
        for (int tile; (tile = tiles->next(m.league_rank())) >= 0;) {
          Tile tl(b, tile, ntx_tiles, t.tx, t.ty);
          if (!active_part(q, tl)) continue;
          const int ntx = tl.ntx, nty = tl.nty;
          s.template load<false>(w, H, tl, eps);
          // Row by row, as the update: the speeds of the row's x-edges and of the y-edges north of
          // it, then the row's Z_i; the y-edges north of a row are the next row's south.
          Real *sx = s.edges(0).h, *south = s.edges(1).h, *north = s.edges(2).h;
          speed_row(s.row(1, 0, -1), s.row(1, 0, 0), ntx, g, eps, south);
          for (int ty = 0; ty < nty; ++ty) {
            speed_row(s.row(0, -1, ty), s.row(0, 0, ty), ntx + 1, g, eps, sx);
            speed_row(s.row(1, 0, ty), s.row(1, 0, ty + 1), ntx, g, eps, north);
            SHWA_SIMD_MAX(tmax)
            for (int tx = 0; tx < ntx; ++tx)
              tmax = shwa::max(tmax, dy * (sx[tx] + sx[tx + 1]) + dx * (south[tx] + north[tx]));
            std::swap(south, north);
          }
          if constexpr (Obs::kActive) obs.rect(tl.j0, tl.j0 + nty, tl.i0, tl.i0 + ntx);
        }
        lmax = tmax;
      },
      Kokkos::Max<Real>(zmax));
  // min_i num / Z_i = num / max_i Z_i exactly (a correctly rounded division is monotone), as on
  // the device; no Z_i > 0: no cell limits the step.
  return cfl_step(zmax, num);
}

/// Host body of flux_update_decoupled: every edge of the tile is solved once, a row at a time; the
/// water and NT tracers.
template <int NT, class E>
void host_flux_update_decoupled(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                                const Field<E>& gn2_field, const Box& box, Real dt,
                                const StepConstants& k, const Tiling& tiling,
                                const ClipCounter<E>& clipped, const QuietMap<E>& q) {
  using Scr = HostTileScratch<E, NT>;
  const int ntx_tiles = ceil_div(box.nx(), tiling.tx);
  const Real g = k.g, sg = k.sqrt_g, eps = k.eps_h, gn2c = k.gn2;
  const Real fx = dt / Real(k.dx), fy = dt / Real(k.dy);
  const bool has_n = gn2_field.extent(0) > 0;
  const Box b = box;
  const Tiling t = tiling;
  TileTaker taker(tile_count(box, tiling), E().concurrency());
  TileTaker* const tiles = &taker;
  Kokkos::parallel_for(
      "shwa::flux_update_decoupled",
      host_tile_policy<E>().set_scratch_size(0, Kokkos::PerTeam(Scr::bytes(tiling))),
      [=](const typename HostTilePolicy<E>::member_type& m) {
        const Scr s(m, t);
        for (int tile; (tile = tiles->next(m.league_rank())) >= 0;) {
          Tile tl(b, tile, ntx_tiles, t.tx, t.ty);
          if (!active_part(q, tl)) continue;
          const int ntx = tl.ntx, nty = tl.nty;
          s.load(w, H, tl, eps);
          // Row by row: the x-edges of row ty (edge e between cells e - 1 and e), the y-edges north
          // of it, then its update; the D+ of the y-edges north of a row is the next row's south.
          const FluctRowN<NT> xm = s.edges(0), xp = s.edges(1), ym = s.edges(2);
          FluctRowN<NT> south = s.edges(3), north = s.edges(4);
          roe_row(s.row(1, 0, -1), s.row(1, 0, 0), ntx, g, sg, eps, ym, south);
          Real* const clip = s.clip();
          int lo = nty, hi = -1;  // the tile's first and last rows with an active cell
          std::uint64_t squares = 0;  // and the squares of those cells (ActiveSquares)
          for (int ty = 0; ty < nty; ++ty) {
            roe_row(s.row(0, -1, ty), s.row(0, 0, ty), ntx + 1, g, sg, eps, xm, xp);
            roe_row(s.row(1, 0, ty), s.row(1, 0, ty + 1), ntx, g, sg, eps, ym, north);
            if (const std::uint64_t a =
                    update_row<NT>(w, out, gn2_field, has_n, gn2c, tl.j0 + ty, tl.i0, ntx,
                                   EdgeRows<NT>{xm, xp, south, ym}, fx, fy, dt, eps, clip, clipped, q.on))
              lo = std::min(lo, ty), hi = ty, squares |= a;
            std::swap(south, north);
          }
          if (q.on && lo <= hi) ActiveSquares::mark(q, squares, tl.i0, ntx, tl.j0 + lo, tl.j0 + hi + 1);
        }
      });
}

/// Recompute: cell (j, i) solves its four edges and writes the sums of their fluctuations to
/// mx[t] (west D+ plus east D-) and my[t] (south D+ plus north D-); `rare`: whether an edge
/// needed a rare case. A function of its own rather than the body of the `omp simd` loop: GCC gives
/// each local of such a body whose address is taken (an output of roe_solve) one struct a SIMD
/// lane, and it then found the fluctuations' fields strided and left the float loop scalar (4x
/// slower); inside an inlined function they are plain values.
/// NT > 1: the other tracers' sums too, from each edge's EdgeMass.
template <bool MaybeDry, bool Rare, int NT, class E>
KOKKOS_FORCEINLINE_FUNCTION void recompute_sums(const Conserved<E>& w, const Field<E>& H, int j, int i,
                                                Real g, Real sg, Real eps, const FluctRowN<NT> mx,
                                                const FluctRowN<NT> my, int t, bool& rare) {
  const Stencil st(w, H, j, i, eps);
  Fluct mw, pw, me, pe, ms, ps, mn, pn;  // D-, D+ of the west, east, south, north edge
  bool rw, re, rs, rn;
  if constexpr (NT == 1) {
    roe_solve<MaybeDry, Rare>(edge_prim<0>(st.w), edge_prim<0>(st.c), g, sg, eps, mw, pw, rw);
    roe_solve<MaybeDry, Rare>(edge_prim<0>(st.c), edge_prim<0>(st.e), g, sg, eps, me, pe, re);
    roe_solve<MaybeDry, Rare>(edge_prim<1>(st.s), edge_prim<1>(st.c), g, sg, eps, ms, ps, rs);
    roe_solve<MaybeDry, Rare>(edge_prim<1>(st.c), edge_prim<1>(st.n), g, sg, eps, mn, pn, rn);
  } else {
    EdgeMass ew, ee, es, en;
    More<NT> dm, dp, sx, sy;
    const More<NT> cc = load_more_c<NT>(w, j, i, st.c.h);
    roe_solve<MaybeDry, Rare>(edge_prim<0>(st.w), edge_prim<0>(st.c), g, sg, eps, mw, pw, rw, ew);
    more_fluct<NT>(ew, load_more_c<NT>(w, j, i - 1, st.w.h), cc, dm, dp);
    sx = dp;
    roe_solve<MaybeDry, Rare>(edge_prim<0>(st.c), edge_prim<0>(st.e), g, sg, eps, me, pe, re, ee);
    more_fluct<NT>(ee, cc, load_more_c<NT>(w, j, i + 1, st.e.h), dm, dp);
    sx = add(sx, dm);
    roe_solve<MaybeDry, Rare>(edge_prim<1>(st.s), edge_prim<1>(st.c), g, sg, eps, ms, ps, rs, es);
    more_fluct<NT>(es, load_more_c<NT>(w, j - 1, i, st.s.h), cc, dm, dp);
    sy = dp;
    roe_solve<MaybeDry, Rare>(edge_prim<1>(st.c), edge_prim<1>(st.n), g, sg, eps, mn, pn, rn, en);
    more_fluct<NT>(en, cc, load_more_c<NT>(w, j + 1, i, st.n.h), dm, dp);
    sy = add(sy, dm);
    for (int k = 1; k < NT; ++k) mx.hcm[k][t] = sx[k], my.hcm[k][t] = sy[k];
  }
  mx.set(t, add(pw, me));
  my.set(t, add(ps, mn));
  rare = rw | re | rs | rn;
}

/// Host body of flux_update_recompute: one thread a tile; each cell solves its four edges (interior
/// edges twice, as on the device), one cell a SIMD lane; the sums go through a row of scratch to
/// update_row. The water and NT tracers.
template <int NT, class E>
void host_flux_update_recompute(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                                const Field<E>& gn2_field, const Box& box, Real dt,
                                const StepConstants& k, const Tiling& tiling,
                                const ClipCounter<E>& clipped, const QuietMap<E>& q) {
  const int ntx_tiles = ceil_div(box.nx(), tiling.tx);
  const Real g = k.g, sg = k.sqrt_g, eps = k.eps_h, gn2c = k.gn2;
  const Real fx = dt / Real(k.dx), fy = dt / Real(k.dy);
  const bool has_n = gn2_field.extent(0) > 0;
  const Box b = box;
  const Tiling t = tiling;
  const size_t nrow = size_t(tiling.tx);
  // Two rows of sums of 3 + NT arrays (h, qn, qt, hc, the other tracers' hc), the clipped water.
  constexpr size_t kFlucts = 3 + NT, kArrays = 2 * kFlucts + 1;
  TileTaker taker(tile_count(box, tiling), E().concurrency());
  TileTaker* const tiles = &taker;
  Kokkos::parallel_for(
      "shwa::flux_update_recompute",
      host_tile_policy<E>().set_scratch_size(0, Kokkos::PerTeam(ScratchArray<E>::shmem_size(kArrays * nrow))),
      [=](const typename HostTilePolicy<E>::member_type& m) {
        Real* a = ScratchArray<E>(m.team_scratch(0), kArrays * nrow).data();
        const FluctRowN<NT> mxr = fluct_row<NT>(a, nrow), myr = fluct_row<NT>(a + kFlucts * nrow, nrow);
        Real* const clip = a + 2 * kFlucts * nrow;
        for (int tile; (tile = tiles->next(m.league_rank())) >= 0;) {
          Tile tl(b, tile, ntx_tiles, t.tx, t.ty);
          if (!active_part(q, tl)) continue;
          const int ntx = tl.ntx, nty = tl.nty;
          // The row's cells and their four neighbours, all wet or not (MaybeDry), and their edges'
          // rare cases left out or not (Rare), as in roe_row; returns whether an edge needed one.
          auto fluxes_impl = [&](int j, int i0, auto maybe_dry, auto rare_cases) {
            constexpr bool D = decltype(maybe_dry)::value, R = decltype(rare_cases)::value;
            // Locals, not the closure's members: the loop's stores could alias those, which stops
            // the vectorizer. (Read through View copies: with raw row pointers GCC 13 leaves this
            // loop scalar, half the speed on the GPU machine's host.)
            const Real lg = g, lsg = sg, leps = eps;
            const Conserved<E> lw = w;
            const Field<E> lH = H;
            const FluctRowN<NT> mx = mxr, my = myr;
            const int n = ntx;
            int rare = 0;
            SHWA_SIMD_OR(rare)
            for (int tx = 0; tx < n; ++tx) {
              bool r;
              recompute_sums<D, R, NT>(lw, lH, j, i0 + tx, lg, lsg, leps, mx, my, tx, r);
              rare |= int(r & !R);
            }
            return rare != 0;
          };
          auto fluxes = [&](int j, int i0, auto maybe_dry) {
            if (fluxes_impl(j, i0, maybe_dry, std::false_type{})) fluxes_impl(j, i0, maybe_dry, std::true_type{});
          };
          int lo = nty, hi = -1;  // the tile's first and last rows with an active cell
          std::uint64_t squares = 0;  // and the squares of those cells (ActiveSquares)
          for (int ty = 0; ty < nty; ++ty) {
            const int j = tl.j0 + ty, i0 = tl.i0;
            Real hmin = std::numeric_limits<Real>::max();
            for (int dj = -1; dj <= 1; ++dj) {
              const Real* h = &w.h(j + dj, i0 - 1);
              SHWA_SIMD_MIN(hmin)
              for (int q = 0; q < ntx + 2; ++q) hmin = shwa::min(hmin, h[q]);
            }
            if (hmin >= eps)
              fluxes(j, i0, std::false_type{});
            else
              fluxes(j, i0, std::true_type{});
            if (const std::uint64_t a = update_row<NT>(w, out, gn2_field, has_n, gn2c, j, i0, ntx,
                                                       SumRows<NT>{mxr, myr}, fx, fy, dt, eps, clip, clipped, q.on))
              lo = std::min(lo, ty), hi = ty, squares |= a;
          }
          if (q.on && lo <= hi) ActiveSquares::mark(q, squares, tl.i0, ntx, tl.j0 + lo, tl.j0 + hi + 1);
        }
      });
}

}  // namespace detail
}  // namespace shwa
