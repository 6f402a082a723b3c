// shwa/core/kernels.hpp — the two kernels of a step (SPEC section 6):
//   cfl_min_dt      the CFL reduction over W^n (parallel_reduce; on devices the max of Z_i, each
//                   edge's speed computed once in team scratch)
//   flux_update_*   the Roe fluxes and the update W^n -> W^{n+1}, in two variants that give the same
//                   answer:
//     recompute  one thread a cell; each cell solves its four edges (interior edges twice).
//     decoupled  ghost-cell decoupling (Viñas et al. 2013): one team a TX x TY tile; each cell
//                solves its west and south edges once, keeps D+ for itself and hands D- to its
//                neighbour through team scratch; only the edges on the tile's east column and north
//                row are solved a second time, by the tile that owns them.
// Both variants tile the box in the same way and call the same Roe solver and the same cell update,
// so they differ only in which thread solves an edge. Host spaces (Serial, OpenMP) run the SIMD row
// sweeps of kernels_host.hpp instead of one thread a cell.
//
// The update is fused with the flux: W^{n+1} is written to a second set of Views (the caller swaps).
// Manning friction is applied semi-implicitly in the same pass.
#pragma once

#include "fields.hpp"
#include "roe.hpp"
#include "types.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace shwa {

/// The constants of a step, copied into each kernel.
struct StepConstants {
  Real g = Real(9.81);
  Real sqrt_g = Real(3.1320919526731650);
  Real eps_h = Real(1e-4);
  Real gn2 = 0;  // g * n^2 (Manning), used when no per-cell field is given
  Real dx = 1, dy = 1;
};

/// Sum of the depths set to zero from below zero (see update_cell), on the device.
template <class E>
using ClipCounter = Kokkos::View<double, typename E::memory_space>;

/// Tile shape of the TeamPolicy kernels.
struct Tiling {
  int tx = 32, ty = 8;
};

/// The most threads of a device kernel's team, hence cells of a device tile (one thread a cell).
#ifndef SHWA_DEVICE_MAX_TEAM
#define SHWA_DEVICE_MAX_TEAM 256
#endif

/// The most cells a tile may have on execution space E: on a GPU a team holds a tile, one thread a
/// cell; on a host one thread sweeps it, with team scratch that grows with it.
template <class E>
constexpr int max_tile_cells() {
  return is_host_space<E>() ? 65536 : SHWA_DEVICE_MAX_TEAM;
}

namespace detail {

/// The primitives of cell (j, i). WithC = false leaves the pollutant out (c = 0): the CFL pass
/// does not need it, and so does not read hc.
template <bool WithC = true, class E>
KOKKOS_FORCEINLINE_FUNCTION CellPrim load_prim(const Conserved<E>& w, const Field<E>& H, int j, int i,
                                               Real eps_h) {
  return make_cell_prim(w.h(j, i), w.qx(j, i), w.qy(j, i), WithC ? w.hc(j, i) : Real(0), H(j, i),
                        eps_h);
}

/// The flux part of a cell's update, branch-free (one statement for the device's update_cell and
/// the host's SIMD rows): h, qx, qy, hc hold W^n and become W^n - the fluctuations, then the dry
/// rule below. Mx: west D+ plus east D- (x-edge frame: qn = qx, qt = qy); My: south D+ plus north D-
/// (y-edge frame: qn = qy, qt = qx). Dry cells (h < eps_h) keep their water and pollutant but lose
/// their momentum. A depth driven below zero is set to zero with its pollutant, and the water so
/// added is returned in `clip` (0 otherwise), which the caller counts (the outflow limit of
/// roe_fluctuations keeps this from happening in every case the tests run; the counter proves it
/// and the run summary reports it).
KOKKOS_FORCEINLINE_FUNCTION void update_values(Real& h, Real& qx, Real& qy, Real& hc,
                                               const Fluct& Mx, const Fluct& My, Real fx, Real fy,
                                               Real eps_h, Real& clip) {
  h = h - (fx * Mx.h + fy * My.h);
  qx = qx - (fx * Mx.qn + fy * My.qt);
  qy = qy - (fx * Mx.qt + fy * My.qn);
  hc = hc - (fx * Mx.hc + fy * My.hc);
  const bool dry = h < eps_h, empty = dry & (h <= Real(0));
  clip = select(h < Real(0), -h, Real(0));
  h = select(empty, Real(0), h);
  hc = select(empty, Real(0), hc);
  qx = select(dry, Real(0), qx);
  qy = select(dry, Real(0), qy);
}

/// Manning friction, semi-implicit, of a wet cell (h >= eps_h, gn2 > 0): the factor r of
/// q <- r q = q / (1 + dt g n^2 |u| / h^(4/3)), |u| / h^(4/3) = |q| / h^(7/3); cbrt_h = cbrt(h).
/// `use` false (a dry cell, no friction) gives a finite value that the caller does not use.
KOKKOS_FORCEINLINE_FUNCTION Real friction_factor(bool use, Real h, Real qx, Real qy, Real cbrt_h,
                                                 Real dt, Real gn2) {
  const Real qn = shwa::sqrt(qx * qx + qy * qy);
  return Real(1) / (Real(1) + dt * gn2 * qn / safe_den(use, h * h * cbrt_h));
}

/// W^{n+1} of one cell from W^n and the sums of its edge fluctuations (update_values), then the
/// Manning friction (friction_factor).
template <class E>
KOKKOS_FORCEINLINE_FUNCTION void update_cell(const Conserved<E>& w, const Conserved<E>& out, int j,
                                             int i, const Fluct& Mx, const Fluct& My, Real fx,
                                             Real fy, Real dt, Real gn2, Real eps_h,
                                             const ClipCounter<E>& clipped) {
  Real h = w.h(j, i), qx = w.qx(j, i), qy = w.qy(j, i), hc = w.hc(j, i), clip;
  update_values(h, qx, qy, hc, Mx, My, fx, fy, eps_h, clip);
  if (clip > Real(0)) Kokkos::atomic_add(&clipped(), double(clip));
  if (h >= eps_h && gn2 > Real(0)) {
    const Real r = friction_factor(true, h, qx, qy, shwa::cbrt(h), dt, gn2);
    qx *= r;
    qy *= r;
  }
  out.h(j, i) = h;
  out.qx(j, i) = qx;
  out.qy(j, i) = qy;
  out.hc(j, i) = hc;
}

KOKKOS_FORCEINLINE_FUNCTION Fluct add(const Fluct& a, const Fluct& b) {
  return Fluct{a.h + b.h, a.qn + b.qn, a.qt + b.qt, a.hc + b.hc};
}

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The tile a team works on: its first cell (i0, j0) and its size, clipped to the box.
struct Tile {
  int i0, j0, ntx, nty;
  KOKKOS_INLINE_FUNCTION Tile(const Box& b, int league_rank, int ntx_tiles, int TX, int TY)
      : i0(b.i0 + (league_rank % ntx_tiles) * TX),
        j0(b.j0 + (league_rank / ntx_tiles) * TY),
        ntx(b.i1 - i0 < TX ? b.i1 - i0 : TX),
        nty(b.j1 - j0 < TY ? b.j1 - j0 : TY) {}
};

/// A cell and its four neighbours, as the per-cell kernels load them.
struct Stencil {
  CellPrim c, w, e, s, n;
  template <class E>
  KOKKOS_FORCEINLINE_FUNCTION Stencil(const Conserved<E>& f, const Field<E>& H, int j, int i,
                                      Real eps)
      : c(load_prim(f, H, j, i, eps)),
        w(load_prim(f, H, j, i - 1, eps)),
        e(load_prim(f, H, j, i + 1, eps)),
        s(load_prim(f, H, j - 1, i, eps)),
        n(load_prim(f, H, j + 1, i, eps)) {}
};

template <class E>
Kokkos::TeamPolicy<E> tile_policy(const Box& box, const Tiling& t, int team_size) {
  const int ntiles = ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
  return Kokkos::TeamPolicy<E>(ntiles, team_size);
}

/// Device kernels: one thread a cell of the tile, team size TX * TY (max_tile_cells at most).
/// SHWA_DEVICE_MIN_TEAMS is the launch bound's minimum of resident teams of that size per
/// multiprocessor: it caps the registers a thread may use (65536 / (max team x min teams)).
#ifndef SHWA_DEVICE_MIN_TEAMS
#define SHWA_DEVICE_MIN_TEAMS 2
#endif
template <class E>
using DevicePolicy =
    Kokkos::TeamPolicy<E, Kokkos::LaunchBounds<SHWA_DEVICE_MAX_TEAM, SHWA_DEVICE_MIN_TEAMS>>;

template <class E>
DevicePolicy<E> device_tile_policy(const Box& box, const Tiling& t) {
  if (t.tx * t.ty > max_tile_cells<E>())
    throw std::invalid_argument("tile " + std::to_string(t.tx) + "x" + std::to_string(t.ty) +
                                " has more cells than a device tile may (" +
                                std::to_string(max_tile_cells<E>()) + ")");
  const int ntiles = ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
  return DevicePolicy<E>(ntiles, t.tx * t.ty);
}

/// An edge of a tile, seen from the cell on its positive side: for dir 0 the x-edge between
/// (cx - 1, cy) and (cx, cy), for dir 1 the y-edge between (cx, cy - 1) and (cx, cy) (tile
/// coordinates; -1 and ntx / nty are the neighbouring rows and columns).
struct TileEdge {
  int dir, cx, cy;
};

/// The edges thread t of the device kernels solves, k = first_edge() while has_edge(k): k = 0, 1 are the
/// west and south edges of its own cell (if it has one), k >= 2 the tile's east-column and
/// north-row edges, dealt round-robin over the team. Every edge is then solved by the same line
/// of code (the loop over k is not unrolled), so its bits cannot depend on which thread, which
/// tile or which decomposition solves it: a GPU compiler contracts a * b + c into an FMA per call
/// site, and two inlined calls could round differently.
struct TileEdges {
  int t, nthreads, tx, ty, ntx, nty;
  KOKKOS_INLINE_FUNCTION bool active() const { return tx < ntx && ty < nty; }
  KOKKOS_INLINE_FUNCTION int first_edge() const { return active() ? 0 : 2; }
  /// Whether edge k (k >= first_edge()) is one of this thread's (no integer division: a GPU
  /// divides by a run-time value in about twenty instructions).
  KOKKOS_INLINE_FUNCTION bool has_edge(int k) const {
    return k < 2 || t + (k - 2) * nthreads < ntx + nty;
  }
  KOKKOS_INLINE_FUNCTION TileEdge edge(int k) const {
    if (k < 2) return TileEdge{k, tx, ty};
    const int x = t + (k - 2) * nthreads;
    return x < nty ? TileEdge{0, ntx, x} : TileEdge{1, x - nty, nty};
  }
};

/// Team scratch of the device kernels, structure of arrays:
///   prims  6 arrays (h, H, u, v, c, sqrt h) over the (TX+2) x (TY+2) block of the tile and its
///          four neighbouring rows and columns;
///   DX, DY 4 arrays each over the TX x TY tile: in the update, the D- that a cell's east (DX) and
///          north (DY) edge sends it; in the CFL pass, the x-edge and y-edge speeds.
/// (The host sweeps use HostTileScratch, kernels_host.hpp.)
template <class E>
struct DecoupledScratch {
  static constexpr int kPad = 2;
  int px, npos, ncell;
  ScratchArray<E> p, dx, dy;

  static size_t bytes(const Tiling& t) {
    const size_t npos = size_t(t.tx + kPad) * (t.ty + kPad), ncell = size_t(t.tx) * t.ty;
    return ScratchArray<E>::shmem_size(6 * npos) + 2 * ScratchArray<E>::shmem_size(4 * ncell);
  }
  KOKKOS_INLINE_FUNCTION DecoupledScratch(const typename Kokkos::TeamPolicy<E>::member_type& m,
                                          int TX, int TY)
      : px(TX + kPad),
        npos((TX + kPad) * (TY + kPad)),
        ncell(TX * TY),
        p(m.team_scratch(0), 6 * (TX + kPad) * (TY + kPad)),
        dx(m.team_scratch(0), 4 * TX * TY),
        dy(m.team_scratch(0), 4 * TX * TY) {}
  /// The primitives of the tile and of its four neighbouring rows and columns, by the whole team
  /// (device spaces): thread t loads tile cell t, then the ring cells
  /// t, t + TX * TY, ... The caller puts the barrier.
  template <bool WithC>
  KOKKOS_INLINE_FUNCTION void load_tile_and_ring_team(
      const typename Kokkos::TeamPolicy<E>::member_type& m, const Conserved<E>& w,
      const Field<E>& H, int i0, int j0, int ntx, int nty, Real eps) const {
    const int t = m.team_rank(), nt = m.team_size(), TX = px - kPad;
    const int tx = t % TX, ty = t / TX;
    if (tx < ntx && ty < nty) store(pos(tx, ty), load_prim<WithC>(w, H, j0 + ty, i0 + tx, eps));
    const int per_side = nty + ntx;  // west column + south row, then east column + north row
    for (int e = t; e < 2 * per_side; e += nt) {
      const bool high = e >= per_side;
      const int r = high ? e - per_side : e;
      const int ci = r < nty ? (high ? ntx : -1) : r - nty;
      const int cj = r < nty ? r : (high ? nty : -1);
      store(pos(ci, cj), load_prim<WithC>(w, H, j0 + cj, i0 + ci, eps));
    }
  }
  // Position of tile cell (tx, ty), tx, ty >= -1.
  KOKKOS_INLINE_FUNCTION int pos(int tx, int ty) const { return (ty + 1) * px + tx + 1; }
  KOKKOS_INLINE_FUNCTION void store(int q, const CellPrim& c) const {
    p(q) = c.h;
    p(npos + q) = c.H;
    p(2 * npos + q) = c.u;
    p(3 * npos + q) = c.v;
    p(4 * npos + q) = c.c;
    p(5 * npos + q) = c.sh;
  }
  KOKKOS_INLINE_FUNCTION CellPrim get(int q) const {
    return CellPrim{p(q), p(npos + q), p(2 * npos + q), p(3 * npos + q), p(4 * npos + q),
                    p(5 * npos + q)};
  }
  KOKKOS_INLINE_FUNCTION void put(const ScratchArray<E>& a, int c, const Fluct& f) const {
    a(c) = f.h;
    a(ncell + c) = f.qn;
    a(2 * ncell + c) = f.qt;
    a(3 * ncell + c) = f.hc;
  }
  KOKKOS_INLINE_FUNCTION Fluct take(const ScratchArray<E>& a, int c) const {
    return Fluct{a(c), a(ncell + c), a(2 * ncell + c), a(3 * ncell + c)};
  }
};

}  // namespace detail

}  // namespace shwa

// The host (Serial, OpenMP) bodies of the kernels below, vectorized: detail::host_*.
#include "kernels_host.hpp"

namespace shwa {

/// The CFL time step over `box` (SPEC section 3): min over its cells of 2 CFL dx dy / Z_i,
/// Z_i = sum over the cell's edges of |E| (|un~| + a~). Infinity when no cell limits the step.
template <class E>
Real cfl_min_dt(const Conserved<E>& w, const Field<E>& H, const Box& box, const StepConstants& k,
                Real cfl, const Tiling& tiling) {
  Real result = std::numeric_limits<Real>::max();
  if (box.empty()) return result;
  const int TX = tiling.tx, TY = tiling.ty;
  const int ntx_tiles = detail::ceil_div(box.nx(), TX);
  const Real g = k.g, eps = k.eps_h, dx = Real(k.dx), dy = Real(k.dy);
  const Real num = Real(2) * cfl * dx * dy;
  const Box b = box;
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile, each edge's speed computed once, SIMD over rows (kernels_host.hpp);
    // the same dt bit for bit as the device path below.
    return detail::host_cfl_min_dt(w, H, box, k, cfl, tiling);
  } else {
    // Device: one thread a cell. Each edge's speed is computed once (TileEdges), by the same line of
    // code for every edge, into team scratch; each cell then sums its four edges in the host path's
    // order. The reduction is the max of Z_i: min_i (num / Z_i) = num / max_i Z_i exactly (a correctly
    // rounded division is monotone), and it saves a division a cell.
    using Scr = detail::DecoupledScratch<E>;
    Real zmax = 0;
    Kokkos::parallel_reduce(
        "shwa::cfl_max_z",
        detail::device_tile_policy<E>(box, tiling).set_scratch_size(0, Kokkos::PerTeam(Scr::bytes(tiling))),
        KOKKOS_LAMBDA(const typename detail::DevicePolicy<E>::member_type& m, Real& lmax) {
          const detail::Tile tl(b, m.league_rank(), ntx_tiles, TX, TY);
          const int i0 = tl.i0, j0 = tl.j0, ntx = tl.ntx, nty = tl.nty;
          const Scr s(m, TX, TY);
          const int t = m.team_rank();
          const detail::TileEdges te{t, TX * TY, t % TX, t / TX, ntx, nty};
          s.template load_tile_and_ring_team<false>(m, w, H, i0, j0, ntx, nty, eps);
          m.team_barrier();
          // s.dx: x-edge speeds, (TX + 1) per row; s.dy: y-edge speeds, TX per row.
#pragma unroll 1
          for (int k = te.first_edge(); te.has_edge(k); ++k) {
            const detail::TileEdge e = te.edge(k);
            const int qR = s.pos(e.cx, e.cy), qL = e.dir ? s.pos(e.cx, e.cy - 1) : s.pos(e.cx - 1, e.cy);
            const Real sp = edge_speed(edge_prim(s.get(qL), e.dir), edge_prim(s.get(qR), e.dir), g, eps);
            if (e.dir == 0)
              s.dx(e.cy * (TX + 1) + e.cx) = sp;
            else
              s.dy(e.cy * TX + e.cx) = sp;
          }
          m.team_barrier();
          if (te.active()) {
            const int tx = te.tx, ty = te.ty;
            const Real z = dy * (s.dx(ty * (TX + 1) + tx) + s.dx(ty * (TX + 1) + tx + 1)) +
                           dx * (s.dy(ty * TX + tx) + s.dy((ty + 1) * TX + tx));
            if (z > lmax) lmax = z;
          }
        },
        Kokkos::Max<Real>(zmax));
    return zmax > Real(0) ? num / zmax : result;
  }
}

/// Flux + update, recomputation variant: one thread a cell, four Roe problems a cell.
template <class E>
void flux_update_recompute(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                           const Field<E>& gn2_field, const Box& box, Real dt,
                           const StepConstants& k, const Tiling& tiling,
                           const ClipCounter<E>& clipped) {
  if (box.empty()) return;
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile, one cell a SIMD lane (kernels_host.hpp).
    detail::host_flux_update_recompute(w, out, H, gn2_field, box, dt, k, tiling, clipped);
    return;
  } else {
    const int TX = tiling.tx, TY = tiling.ty;
    const int ntx_tiles = detail::ceil_div(box.nx(), TX);
    const Real g = k.g, sg = k.sqrt_g, eps = k.eps_h, gn2c = k.gn2;
    const Real fx = dt / Real(k.dx), fy = dt / Real(k.dy);
    const bool has_n = gn2_field.extent(0) > 0;
    const Box b = box;
    Kokkos::parallel_for(
        "shwa::flux_update_recompute", detail::device_tile_policy<E>(box, tiling),
        KOKKOS_LAMBDA(const typename detail::DevicePolicy<E>::member_type& m) {
          const detail::Tile tl(b, m.league_rank(), ntx_tiles, TX, TY);
          const int i0 = tl.i0, j0 = tl.j0, ntx = tl.ntx, nty = tl.nty;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, TX * TY), [&](const int t) {
            const int tx = t % TX, ty = t / TX;
            if (tx >= ntx || ty >= nty) return;
            const int i = i0 + tx, j = j0 + ty;
            const detail::Stencil st(w, H, j, i, eps);
            const CellPrim &C = st.c, &W = st.w, &Ea = st.e, &S = st.s, &N = st.n;
            Fluct dm, dp, Mx, My;
            roe_fluctuations(edge_prim<0>(W), edge_prim<0>(C), g, sg, eps, dm, dp);
            Mx = dp;
            roe_fluctuations(edge_prim<0>(C), edge_prim<0>(Ea), g, sg, eps, dm, dp);
            Mx = detail::add(Mx, dm);
            roe_fluctuations(edge_prim<1>(S), edge_prim<1>(C), g, sg, eps, dm, dp);
            My = dp;
            roe_fluctuations(edge_prim<1>(C), edge_prim<1>(N), g, sg, eps, dm, dp);
            My = detail::add(My, dm);
            detail::update_cell(w, out, j, i, Mx, My, fx, fy, dt, has_n ? gn2_field(j, i) : gn2c, eps, clipped);
          });
        });
  }
}

/// Flux + update, ghost-cell decoupling variant (TeamPolicy, team scratch, one team a tile).
template <class E>
void flux_update_decoupled(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                           const Field<E>& gn2_field, const Box& box, Real dt,
                           const StepConstants& k, const Tiling& tiling,
                           const ClipCounter<E>& clipped) {
  if (box.empty()) return;
  using Scr = detail::DecoupledScratch<E>;
  const int TX = tiling.tx, TY = tiling.ty;
  const int ntx_tiles = detail::ceil_div(box.nx(), TX);
  const Real g = k.g, sg = k.sqrt_g, eps = k.eps_h, gn2c = k.gn2;
  const Real fx = dt / Real(k.dx), fy = dt / Real(k.dy);
  const bool has_n = gn2_field.extent(0) > 0;
  const Box b = box;
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile sweeps it a row of edges at a time, SIMD (kernels_host.hpp); every
    // edge inside the tile is solved once.
    detail::host_flux_update_decoupled(w, out, H, gn2_field, box, dt, k, tiling, clipped);
  } else {
    // Device: one thread a cell. Phase 0 puts the primitives of the tile and of its four
    // neighbouring rows and columns in scratch; every Roe problem reads both its cells from there,
    // and every edge is solved by the same line of code (TileEdges), so an edge gives the same bits
    // whichever thread solves it: the fields do not depend on how tiles fall, hence on the
    // decomposition. D+ of a cell's own west and south edges stays in registers, D- travels to the
    // neighbour through scratch.
    Kokkos::parallel_for(
        "shwa::flux_update_decoupled",
        detail::device_tile_policy<E>(box, tiling).set_scratch_size(0, Kokkos::PerTeam(Scr::bytes(tiling))),
        KOKKOS_LAMBDA(const typename detail::DevicePolicy<E>::member_type& m) {
          const detail::Tile tl(b, m.league_rank(), ntx_tiles, TX, TY);
          const int i0 = tl.i0, j0 = tl.j0, ntx = tl.ntx, nty = tl.nty;
          const Scr s(m, TX, TY);
          const int t = m.team_rank();
          const detail::TileEdges te{t, TX * TY, t % TX, t / TX, ntx, nty};
          s.template load_tile_and_ring_team<true>(m, w, H, i0, j0, ntx, nty, eps);
          m.team_barrier();
          // Phase 1: the edges; D- goes to the cell on the negative side when it is in the tile.
          Fluct ax{0, 0, 0, 0}, ay{0, 0, 0, 0};
#pragma unroll 1
          for (int k = te.first_edge(); te.has_edge(k); ++k) {
            const detail::TileEdge e = te.edge(k);
            const int qR = s.pos(e.cx, e.cy), qL = e.dir ? s.pos(e.cx, e.cy - 1) : s.pos(e.cx - 1, e.cy);
            Fluct dm, dp;
            roe_fluctuations(edge_prim(s.get(qL), e.dir), edge_prim(s.get(qR), e.dir), g, sg, eps, dm, dp);
            if (e.dir == 0) {
              if (e.cx > 0) s.put(s.dx, e.cy * TX + e.cx - 1, dm);
            } else {
              if (e.cy > 0) s.put(s.dy, (e.cy - 1) * TX + e.cx, dm);
            }
            if (k == 0) ax = dp;
            if (k == 1) ay = dp;
          }
          m.team_barrier();
          // Phase 2: gather and update.
          if (te.active()) {
            const int tx = te.tx, ty = te.ty, i = i0 + tx, j = j0 + ty;
            detail::update_cell(w, out, j, i, detail::add(ax, s.take(s.dx, ty * TX + tx)),
                                detail::add(ay, s.take(s.dy, ty * TX + tx)), fx, fy, dt,
                                has_n ? gn2_field(j, i) : gn2c, eps, clipped);
          }
        });
  }
}

}  // namespace shwa
