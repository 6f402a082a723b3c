// shwa/core/kernels.hpp — the two kernels of a step (SPEC section 6):
//   cfl_min_dt      the CFL reduction over W^n (parallel_reduce; on devices the max of Z_i), each
//                   edge's speed computed once
//   flux_update_*   the Roe fluxes and the update W^n -> W^{n+1}, in two variants that give the same
//                   answer:
//     recompute  one thread a cell; each cell solves its four edges (interior edges twice).
//     decoupled  ghost-cell decoupling (Viñas et al. 2013): every edge is solved once, its D- and
//                D+ go to its two cells. On devices a team of threads sweeps a band of columns up
//                a run of rows (detail::Column): D+ of an x-edge travels to the next thread through
//                team scratch, D- of a y-edge stays in the thread's registers for the cell below.
//                Host spaces (Serial, OpenMP) sweep tiles a row of edges at a time, SIMD
//                (kernels_host.hpp).
// Both variants call the same Roe solver and the same cell update, so they differ only in which
// thread solves an edge.
//
// The update is fused with the flux: W^{n+1} is written to a second set of Views (the caller swaps).
// Manning friction is applied semi-implicitly in the same pass.
#pragma once

#include "fields.hpp"
#include "quiet.hpp"
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

/// Tile shapes of the kernels. tx x ty cells: the host sweeps' tiles (one thread a tile) and the
/// device recompute kernel's teams (one thread a cell). `rows`: how many rows a team of the device
/// decoupled and CFL kernels sweeps (detail::Column below); 0: chosen from the box's size, so that
/// small blocks still give every multiprocessor teams to run (detail::column_rows).
struct Tiling {
  int tx = 32, ty = 8;
  int rows = 0;
};

/// The most threads of a team of the device recompute kernel, hence cells of its tile (one thread a
/// cell).
#ifndef SHWA_DEVICE_MAX_TEAM
#define SHWA_DEVICE_MAX_TEAM 256
#endif

/// The most cells a tile (tx x ty) may have on execution space E: on a GPU a team of the recompute
/// kernel holds a tile, one thread a cell (the column kernels do not use tx, ty); on a host one
/// thread sweeps it, with team scratch that grows with it.
template <class E>
constexpr int max_tile_cells() {
  return is_host_space<E>() ? 65536 : SHWA_DEVICE_MAX_TEAM;
}

namespace detail {

/// The primitives of cell (j, i).
template <class E>
KOKKOS_FORCEINLINE_FUNCTION CellPrim load_prim(const Conserved<E>& w, const Field<E>& H, int j, int i,
                                               Real eps_h) {
  return make_cell_prim(w.h(j, i), w.qx(j, i), w.qy(j, i), w.hc(j, i), H(j, i), eps_h);
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
/// q <- r q = q / (1 + dt g n^2 |u| / h^(4/3)), |u| / h^(4/3) = |q| / h^(7/3), written with one
/// division as r = h^(7/3) / (h^(7/3) + dt g n^2 |q|); cbrt_h = cbrt(h). `use` false (a dry cell,
/// no friction) gives a finite value that the caller does not use.
KOKKOS_FORCEINLINE_FUNCTION Real friction_factor(bool use, Real h, Real qx, Real qy, Real cbrt_h,
                                                 Real dt, Real gn2) {
  const Real qn = shwa::sqrt_nonneg(qx * qx + qy * qy);
  const Real h73 = select(use, h * h * cbrt_h, Real(1));
  return h73 / (h73 + dt * gn2 * qn);
}

/// Z_i of a cell from the wave-speed bounds of its west, east, south and north edges. The CFL pass
/// and the update that computes Z_i of its new state (flux_update_decoupled with a ZPart) sum them
/// here, in this one order, so that they agree to the bit.
KOKKOS_FORCEINLINE_FUNCTION Real cell_z(Real dx, Real dy, Real w, Real e, Real s, Real n) {
  return dy * (w + e) + dx * (s + n);
}

/// W^{n+1} of one cell from W^n (h0, qx0, qy0, hc0) and the sums of its edge fluctuations
/// (update_values), then the Manning friction (friction_factor); written to `out` and to h, qx, qy.
/// Returns whether the new state is active (QuietMap).
template <class E>
KOKKOS_FORCEINLINE_FUNCTION bool update_cell(Real h0, Real qx0, Real qy0, Real hc0, const Conserved<E>& out,
                                             int j, int i, const Fluct& Mx, const Fluct& My, Real fx,
                                             Real fy, Real dt, Real gn2, Real eps_h,
                                             const ClipCounter<E>& clipped, Real& h, Real& qx, Real& qy) {
  Real hc = hc0, clip;
  h = h0, qx = qx0, qy = qy0;
  update_values(h, qx, qy, hc, Mx, My, fx, fy, eps_h, clip);
  // Before the friction, which changes only wet cells (active anyway): W^n is not kept past here.
  const bool active = active_cell_branch(h, qx, qy, hc, h0, qx0, qy0, hc0, eps_h);
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
  return active;
}

template <class E>
KOKKOS_FORCEINLINE_FUNCTION bool update_cell(Real h0, Real qx0, Real qy0, Real hc0, const Conserved<E>& out,
                                             int j, int i, const Fluct& Mx, const Fluct& My, Real fx,
                                             Real fy, Real dt, Real gn2, Real eps_h,
                                             const ClipCounter<E>& clipped) {
  Real h, qx, qy;
  return update_cell(h0, qx0, qy0, hc0, out, j, i, Mx, My, fx, fy, dt, gn2, eps_h, clipped, h, qx, qy);
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

/// The host sweeps' tiles, handed out to threads as they come free: a tile of skipped dry land
/// takes no time, so contiguous shares would leave the threads that hold the water doing the work.
template <class E>
using HostTilePolicy = Kokkos::TeamPolicy<E, Kokkos::Schedule<Kokkos::Dynamic>>;

template <class E>
HostTilePolicy<E> tile_policy(const Box& box, const Tiling& t, int team_size) {
  const int ntiles = ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
  return HostTilePolicy<E>(ntiles, team_size);
}

/// The device recompute kernel: one thread a cell of the tile, team size TX * TY (max_tile_cells at
/// most).
/// SHWA_DEVICE_MIN_TEAMS is the launch bound's minimum of resident teams of that size per
/// multiprocessor: it caps the registers a thread may use (65536 / (max team x min teams)).
#ifndef SHWA_DEVICE_MIN_TEAMS
#define SHWA_DEVICE_MIN_TEAMS 2
#endif
template <class E>
using DevicePolicy =
    Kokkos::TeamPolicy<E, Kokkos::LaunchBounds<SHWA_DEVICE_MAX_TEAM, SHWA_DEVICE_MIN_TEAMS>>;

template <class E>
auto device_tile_policy(const Box& box, const Tiling& t) {
  if (t.tx * t.ty > max_tile_cells<E>())
    throw std::invalid_argument("tile " + std::to_string(t.tx) + "x" + std::to_string(t.ty) +
                                " has more cells than a device tile may (" +
                                std::to_string(max_tile_cells<E>()) + ")");
  const int ntiles = ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
  return launch_light(DevicePolicy<E>(ntiles, t.tx * t.ty));
}

/// The device decoupled and CFL kernels sweep the box with teams of kLanes threads ("columns"):
/// lane l of a team holds column i0 - 1 + l, so a team owns the kLanes - 2 columns i0 .. i0 +
/// kLanes - 3, lane 0 holds the western neighbour column and lane kLanes - 1 the eastern one. The
/// team walks up `rows` rows, one row at a time, starting one row below its first and ending one
/// row above its last. In a row, each lane solves the x-edge east of its cell and the y-edge south
/// of it, once:
///   x-edge: D- stays with the lane's cell, D+ goes to the next lane's cell through team scratch;
///   y-edge: D+ stays with the cell, D- goes to the cell below it, which the same lane held in the
///           previous row and now completes.
/// So every edge inside a team's columns is solved once; an edge on a team's border is solved
/// again by the neighbouring team, by the same line of code on the same bits, hence with the same
/// result whichever team (tile, block) solves it, and the fields do not depend on the decomposition.
/// Each lane reads one cell a row, the next row's while it works on this one (the loads' latency,
/// not the arithmetic, limited these kernels before), and keeps W^n of the row below for its update.
/// Team scratch: the lanes' primitives of the current row and the D+ (or speeds) they hand east.
inline constexpr int kLanes = 32;

#ifndef SHWA_DEVICE_COLUMN_MIN_TEAMS
#define SHWA_DEVICE_COLUMN_MIN_TEAMS 8
#endif
template <class E>
using ColumnPolicy =
    Kokkos::TeamPolicy<E, Kokkos::LaunchBounds<kLanes, SHWA_DEVICE_COLUMN_MIN_TEAMS>>;

/// The Roe problem of the edge between L and R in the frame of direction Dir, on a device: where
/// both cells are wet (almost every edge of most flows) without the wet/dry classification
/// (roe_fluctuations<false>, which gives the same values), so that warps of wet edges skip it.
template <int Dir>
KOKKOS_FORCEINLINE_FUNCTION void device_roe(const CellPrim& L, const CellPrim& R, Real g, Real sg,
                                            Real eps, Fluct& dm, Fluct& dp) {
  if ((L.h >= eps) & (R.h >= eps))
    roe_fluctuations<false>(edge_prim<Dir>(L), edge_prim<Dir>(R), g, sg, eps, dm, dp);
  else
    roe_fluctuations<true>(edge_prim<Dir>(L), edge_prim<Dir>(R), g, sg, eps, dm, dp);
}

/// The edge's wave-speed bound, on a device, likewise.
template <int Dir>
KOKKOS_FORCEINLINE_FUNCTION Real device_speed(const CellPrim& L, const CellPrim& R, Real g, Real eps) {
  return (L.h >= eps) & (R.h >= eps) ? edge_speed<false>(edge_prim<Dir>(L), edge_prim<Dir>(R), g, eps)
                                     : edge_speed<true>(edge_prim<Dir>(L), edge_prim<Dir>(R), g, eps);
}

/// W^n and the bottom of one cell as a column kernel reads them.
struct RawCell {
  Real h, qx, qy, hc, H;
};

template <class E>
struct Column {
  using Member = typename ColumnPolicy<E>::member_type;
  static constexpr int kOwned = kLanes - 2;
  /// Values a lane keeps in team scratch: 6 primitives and 4 values handed east; an update that
  /// also computes Z_i of its new state (kZSlots) adds the 4 primitives an x-edge's speed reads
  /// and the speed it hands east.
  static constexpr int kSlots = 10, kZSlots = 15;
  static size_t scratch_bytes(int slots) { return ScratchArray<E>::shmem_size(slots * kLanes); }
  static long teams(const Box& box, int rows) {
    return long(ceil_div(box.nx(), kOwned)) * ceil_div(box.ny(), rows);
  }
  /// `rows` (resolved by column_rows) a team.
  static auto policy(const Box& box, int rows, int slots = kSlots) {
    if (rows < 1) throw std::invalid_argument("the device kernels need at least one row a team");
    return launch_light(ColumnPolicy<E>(int(teams(box, rows)), kLanes))
        .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes(slots)));
  }

  ScratchArray<E> s;
  int lane, i, j0, nrows;  // the team's cells: columns [i0(), i1(b)), rows [j0, j0 + nrows)
  bool owned, loads;  // owns its cell (updates it, counts it); its column exists in memory
  KOKKOS_INLINE_FUNCTION Column(const Member& m, const Box& b, int rows, int slots = kSlots)
      : s(m.team_scratch(0), slots * kLanes), lane(m.team_rank()) {
    const int ncols = (b.nx() + kOwned - 1) / kOwned;
    const int i0 = b.i0 + (m.league_rank() % ncols) * kOwned;
    j0 = b.j0 + (m.league_rank() / ncols) * rows;
    nrows = b.j1 - j0 < rows ? b.j1 - j0 : rows;
    i = i0 - 1 + lane;
    owned = lane > 0 && lane <= kOwned && i < b.i1;
    loads = i <= b.i1;
  }
  KOKKOS_INLINE_FUNCTION int i0() const { return i + 1 - lane; }
  KOKKOS_INLINE_FUNCTION int i1(const Box& b) const { return b.i1 - i0() < kOwned ? b.i1 : i0() + kOwned; }

  /// Marks the squares of the QuietMap under the team's columns that hold an active cell: each
  /// lane passes whether its cell was active in any row, and the first lane of each square's
  /// columns marks the team's rows of that square column where one of its lanes was. (Tracking
  /// which rows were active, per lane and row, costs instructions in every wet cell; whole runs of
  /// rows are marked instead, which skips less only next to fronts.)
  KOKKOS_INLINE_FUNCTION void mark_active(const Member& m, const QuietMap<E>& q, const Box& b,
                                          bool active) const {
    constexpr int K = QuietMap<E>::kCells;
    s(6 * kLanes + lane) = active ? Real(1) : Real(0);
    m.team_barrier();
    if (!owned || !(lane == 1 || i % K == 0)) return;
    const int end = i1(b);
    for (int c = i + 1; c < end && c % K != 0; ++c) active |= s(6 * kLanes + c - i0() + 1) > Real(0);
    if (active) q.mark(i, i + 1, j0, j0 + nrows);
  }
  /// W^n of this lane's cell in row j (zeros where its column lies beyond the box's ghosts).
  /// WithC = false leaves hc out (the CFL pass).
  template <bool WithC = true>
  KOKKOS_FORCEINLINE_FUNCTION RawCell load(const Conserved<E>& w, const Field<E>& H, int j) const {
    if (!loads) return RawCell{0, 0, 0, 0, 0};
    return RawCell{w.h(j, i), w.qx(j, i), w.qy(j, i), WithC ? w.hc(j, i) : Real(0), H(j, i)};
  }
  /// Speeds = true (the CFL pass): only what an x-edge's speed reads (h, H, u, sqrt h).
  template <bool Speeds = false>
  KOKKOS_INLINE_FUNCTION void put_prim(const CellPrim& c) const {
    s(lane) = c.h, s(kLanes + lane) = c.H, s(2 * kLanes + lane) = c.u, s(5 * kLanes + lane) = c.sh;
    if (!Speeds) s(3 * kLanes + lane) = c.v, s(4 * kLanes + lane) = c.c;
  }
  /// The next lane's primitives (the last lane, which owns nothing, gets its own).
  KOKKOS_INLINE_FUNCTION CellPrim east_prim() const {
    const int q = lane + 1 < kLanes ? lane + 1 : lane;
    return CellPrim{s(q), s(kLanes + q), s(2 * kLanes + q), s(3 * kLanes + q), s(4 * kLanes + q),
                    s(5 * kLanes + q)};
  }
  KOKKOS_INLINE_FUNCTION void put_east(const Fluct& f) const {
    s(6 * kLanes + lane) = f.h, s(7 * kLanes + lane) = f.qn, s(8 * kLanes + lane) = f.qt;
    s(9 * kLanes + lane) = f.hc;
  }
  /// The CFL pass hands east one speed.
  KOKKOS_INLINE_FUNCTION void put_east(Real speed) const { s(6 * kLanes + lane) = speed; }
  KOKKOS_INLINE_FUNCTION Real speed_from_west() const { return s(6 * kLanes + (lane > 0 ? lane - 1 : 0)); }
  /// The new state of the lane's cell, as an x-edge's speed reads it (the update that computes Z_i).
  KOKKOS_INLINE_FUNCTION void put_new(const CellPrim& c) const {
    s(10 * kLanes + lane) = c.h, s(11 * kLanes + lane) = c.H, s(12 * kLanes + lane) = c.u;
    s(13 * kLanes + lane) = c.sh;
  }
  /// The next lane's new state (v and c, which an x-edge's speed does not read, are zero).
  KOKKOS_INLINE_FUNCTION CellPrim east_new() const {
    const int q = lane + 1 < kLanes ? lane + 1 : lane;
    return CellPrim{s(10 * kLanes + q), s(11 * kLanes + q), s(12 * kLanes + q), Real(0), Real(0),
                    s(13 * kLanes + q)};
  }
  /// The speed of the new state's x-edge east of the lane's cell, handed to the next lane.
  KOKKOS_INLINE_FUNCTION void put_new_speed(Real speed) const { s(14 * kLanes + lane) = speed; }
  KOKKOS_INLINE_FUNCTION Real new_speed_from_west() const { return s(14 * kLanes + (lane > 0 ? lane - 1 : 0)); }
  /// What the western lane handed east (lane 0, which owns nothing, gets its own).
  KOKKOS_INLINE_FUNCTION Fluct from_west() const {
    const int q = lane > 0 ? lane - 1 : 0;
    return Fluct{s(6 * kLanes + q), s(7 * kLanes + q), s(8 * kLanes + q), s(9 * kLanes + q)};
  }
};

/// Rows a team of the column kernels sweeps over `box`: `rows` where the deck sets it, else the
/// most, from 64 down to 4 by halving, that still gives the device at least a team for every
/// SHWA_DEVICE_COLUMN_FILL resident warps it can hold, so that a small block keeps every
/// multiprocessor busy. A team loads two rows and solves one row of y-edges more than it updates:
/// fewer rows cost (rows + 2) / rows of the loads, more rows leave multiprocessors idle. (Shorter
/// runs where many teams skip dry land were slower: docs/kernels.md.)
#ifndef SHWA_DEVICE_COLUMN_FILL
#define SHWA_DEVICE_COLUMN_FILL 2
#endif
template <class E>
int column_rows(const Box& box, int rows) {
  if (rows > 0) return rows;
  const long target = long(E().concurrency()) / kLanes / SHWA_DEVICE_COLUMN_FILL;
  int r = 64;
  while (r > 4 && Column<E>::teams(box, r) < target) r /= 2;
  return r;
}

}  // namespace detail

}  // namespace shwa

// The host (Serial, OpenMP) bodies of the kernels below, vectorized: detail::host_*.
#include "kernels_host.hpp"

namespace shwa {

/// The CFL step from the largest Z_i: 2 CFL dx dy / zmax; the largest Real when no cell limits it.
inline Real cfl_step(Real zmax, Real cfl, const StepConstants& k) {
  const Real num = Real(2) * cfl * Real(k.dx) * Real(k.dy);
  return zmax > Real(0) ? num / zmax : std::numeric_limits<Real>::max();
}

/// The CFL time step over `box` (SPEC section 3): min over its cells of 2 CFL dx dy / Z_i,
/// Z_i = sum over the cell's edges of |E| (|un~| + a~). Infinity when no cell limits the step.
/// Cells of a QuietMap's quiet squares have Z_i = 0 and are skipped.
template <class E>
Real cfl_min_dt(const Conserved<E>& w, const Field<E>& H, const Box& box, const StepConstants& k,
                Real cfl, const Tiling& tiling, const QuietMap<E>& quiet) {
  Real result = std::numeric_limits<Real>::max();
  if (box.empty()) return result;
  const Real g = k.g, eps = k.eps_h, dx = Real(k.dx), dy = Real(k.dy);
  const Box b = box;
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile, each edge's speed computed once, SIMD over rows (kernels_host.hpp);
    // the same sums in the same order as the device path below.
    return detail::host_cfl_min_dt(w, H, box, k, cfl, tiling, quiet);
  } else {
    // Device: teams of columns (detail::Column), each edge's speed computed once, by the same line
    // of code for every x-edge and every y-edge; each cell then sums its four edges in the host
    // path's order. The reduction is the max of Z_i: min_i (num / Z_i) = num / max_i Z_i exactly (cfl_step)
    // (a correctly rounded division is monotone), and it saves a division a cell.
    using Col = detail::Column<E>;
    const int rows = detail::column_rows<E>(box, tiling.rows);
    const QuietMap<E> q = quiet;
    Real zmax = 0;
    Kokkos::parallel_reduce(
        "shwa::cfl_max_z", Col::policy(box, rows),
        KOKKOS_LAMBDA(const typename Col::Member& m, Real& lmax) {
          const Col col(m, b, rows);
          if (team_quiet(m, q, col.i0(), col.i1(b), col.j0, col.j0 + col.nrows)) return;
          CellPrim below{0, 0, 0, 0, 0, 0};
          Real west = 0, east = 0, south = 0;  // speeds of the row below's edges
          detail::RawCell next = col.template load<false>(w, H, col.j0 - 1);
#pragma unroll 1
          for (int r = -1; r <= col.nrows; ++r) {
            const detail::RawCell raw = next;
            if (r < col.nrows) next = col.template load<false>(w, H, col.j0 + r + 1);
            const CellPrim c = make_cell_prim(raw.h, raw.qx, raw.qy, Real(0), raw.H, eps);
            col.template put_prim<true>(c);
            m.team_barrier();
            Real sy = 0, sx = 0, sw = 0;
            if (r >= 0) {
              sy = detail::device_speed<1>(below, c, g, eps);  // south of row r
              if (r >= 1 && col.owned) {
                const Real z = detail::cell_z(dx, dy, west, east, south, sy);
                if (z > lmax) lmax = z;
              }
            }
            if (r >= 0 && r < col.nrows) {
              sx = detail::device_speed<0>(c, col.east_prim(), g, eps);  // east of the cell
              col.put_east(sx);
              m.team_barrier();
              sw = col.speed_from_west();
            }
            below = c, west = sw, east = sx, south = sy;
          }
        },
        Kokkos::Max<Real>(zmax));
    return cfl_step(zmax, cfl, k);
  }
}

/// Flux + update, recomputation variant: one thread a cell, four Roe problems a cell.
/// Tiles of quiet squares are skipped (QuietMap); the squares of active cells are marked.
template <class E>
void flux_update_recompute(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                           const Field<E>& gn2_field, const Box& box, Real dt,
                           const StepConstants& k, const Tiling& tiling,
                           const ClipCounter<E>& clipped, const QuietMap<E>& quiet) {
  if (box.empty()) return;
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile, one cell a SIMD lane (kernels_host.hpp).
    detail::host_flux_update_recompute(w, out, H, gn2_field, box, dt, k, tiling, clipped, quiet);
    return;
  } else {
    const int TX = tiling.tx, TY = tiling.ty;
    const int ntx_tiles = detail::ceil_div(box.nx(), TX);
    const Real g = k.g, sg = k.sqrt_g, eps = k.eps_h, gn2c = k.gn2;
    const Real fx = dt / Real(k.dx), fy = dt / Real(k.dy);
    const bool has_n = gn2_field.extent(0) > 0;
    const Box b = box;
    const QuietMap<E> q = quiet;
    Kokkos::parallel_for(
        "shwa::flux_update_recompute", detail::device_tile_policy<E>(box, tiling),
        KOKKOS_LAMBDA(const typename detail::DevicePolicy<E>::member_type& m) {
          const detail::Tile tl(b, m.league_rank(), ntx_tiles, TX, TY);
          const int i0 = tl.i0, j0 = tl.j0, ntx = tl.ntx, nty = tl.nty;
          if (team_quiet(m, q, i0, i0 + ntx, j0, j0 + nty)) return;
          int active = 0;
          Kokkos::parallel_reduce(Kokkos::TeamThreadRange(m, TX * TY), [&](const int t, int& act) {
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
            if (detail::update_cell(w.h(j, i), w.qx(j, i), w.qy(j, i), w.hc(j, i), out, j, i, Mx, My, fx,
                                    fy, dt, has_n ? gn2_field(j, i) : gn2c, eps, clipped))
              act = 1;
          }, Kokkos::Max<int>(active));
          // The whole tile's squares: more active squares than needed, never fewer.
          if (q.on && active > 0 && m.team_rank() == 0) q.mark(i0, i0 + ntx, j0, j0 + nty);
        });
  }
}

/// Where an update that computes Z_i of the new state (the CFL pass fused into the update) keeps its
/// maximum: one device value a launch, written by the launch (no reset needed), and the owned cells,
/// the only ones whose Z_i count.
template <class E>
struct ZPart {
  Kokkos::View<Real, typename E::memory_space, Kokkos::MemoryUnmanaged> zmax;
  Box owned;
};

namespace detail {

/// The device body of flux_update_decoupled. With Fused, the update also computes Z_i of W^{n+1}
/// for the cells whose four neighbours it computes too: an owned cell of the team's columns other
/// than its first and last and of its rows other than its first and last, whose neighbours are
/// owned (not ghosts, which the boundaries and the halo exchange rewrite after the update). The
/// others are the team's borders (BorderCells), which cfl_border_max computes once the ghosts are
/// filled. The speeds are those of the CFL pass (device_speed on make_cell_prim of the same bits)
/// summed by cell_z, so the maximum is the CFL pass's to the bit.
/// In a row's pass, the lane that completes the update of its cell in row m (the row below the
/// one it loads) also: solves the speed of the y-edge between its new cells of rows m - 1 and m;
/// after the x-edge barrier, the speed of the x-edge east of its new cell from the next lane's new
/// cell (put_new before that barrier); and, for row m - 1, now complete, Z_i from the west lane's
/// x-edge speed of the previous pass (handed through scratch), its own, and the two y-edges.
template <bool Fused, class E>
void device_decoupled(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                      const Field<E>& gn2_field, const Box& box, Real dt, const StepConstants& k,
                      const Tiling& tiling, const ClipCounter<E>& clipped, const QuietMap<E>& quiet,
                      const ZPart<E>& zpart) {
  using Col = Column<E>;
  const Real g = k.g, sg = k.sqrt_g, eps = k.eps_h, gn2c = k.gn2;
  const Real fx = dt / Real(k.dx), fy = dt / Real(k.dy), dx = Real(k.dx), dy = Real(k.dy);
  const bool has_n = gn2_field.extent(0) > 0;
  const Box b = box, o = zpart.owned;
  const int rows = column_rows<E>(box, tiling.rows);
  const int slots = Fused ? Col::kZSlots : Col::kSlots;
  const QuietMap<E> q = quiet;
  const auto body = KOKKOS_LAMBDA(const typename Col::Member& m, Real& lmax) {
    const Col col(m, b, rows, slots);
    if (team_quiet(m, q, col.i0(), col.i1(b), col.j0, col.j0 + col.nrows)) return;
    const int i = col.i;
    [[maybe_unused]] const Real zdx = dx, zdy = dy;  // (captured outside the constexpr-ifs, as CUDA requires)
    bool act = false;  // this lane's cell was active in a row
    CellPrim below{0, 0, 0, 0, 0, 0};
    Real qx_below = 0, qy_below = 0, hc_below = 0;     // W^n of the cell below (h: below.h)
    Fluct mx_below{0, 0, 0, 0}, my_below{0, 0, 0, 0};  // its sums so far
    // Fused: W^{n+1} of the row before's cell, its east and south edges' speeds.
    CellPrim nb{0, 0, 0, 0, 0, 0};
    Real east_b = 0, south_b = 0;
    // Fused: the lane's column gets Z_i here (its west and east neighbours are the team's and owned).
    const bool zcol = Fused && col.lane >= 2 && col.lane <= kLanes - 3 && i + 1 < b.i1 && i > o.i0 &&
                      i + 1 < o.i1;
    RawCell next = col.load(w, H, col.j0 - 1);
#pragma unroll 1
    for (int r = -1; r <= col.nrows; ++r) {
      const int j = col.j0 + r;
      const RawCell raw = next;
      if (r < col.nrows) next = col.load(w, H, j + 1);
      const CellPrim c = make_cell_prim(raw.h, raw.qx, raw.qy, raw.hc, raw.H, eps);
      col.put_prim(c);
      m.team_barrier();
      Real west_b = 0;
      if constexpr (Fused) west_b = col.new_speed_from_west();
      Fluct mx{0, 0, 0, 0}, my{0, 0, 0, 0};
      CellPrim nc{0, 0, 0, 0, 0, 0};  // Fused: W^{n+1} of the cell below
      if (r >= 0) {
        // The y-edge south of row r: D- completes the cell below, D+ starts this cell's sum.
        Fluct dm, dp;
        device_roe<1>(below, c, g, sg, eps, dm, dp);
        if (r >= 1 && col.owned) {
          Real nh, nqx, nqy;
          if (update_cell(below.h, qx_below, qy_below, hc_below, out, j - 1, i, mx_below,
                          add(my_below, dm), fx, fy, dt, has_n ? gn2_field(j - 1, i) : gn2c, eps, clipped,
                          nh, nqx, nqy))
            act = true;
          if constexpr (Fused) nc = make_cell_prim(nh, nqx, nqy, Real(0), below.H, eps);
        }
        my = dp;
      }
      if constexpr (Fused) {
        if (r >= 1) {
          // Row j - 1 is new; row j - 2 (nb) is complete: its north edge is this one.
          const Real north_b = r >= 2 ? device_speed<1>(nb, nc, g, eps) : Real(0);
          const int jb = j - 2;
          if (zcol && r >= 3 && jb > o.j0 && jb + 1 < o.j1) {
            const Real z = cell_z(zdx, zdy, west_b, east_b, south_b, north_b);
            if (z > lmax) lmax = z;
          }
          south_b = north_b;
          nb = nc;
          if (r < col.nrows) col.put_new(nc);
        }
      }
      if (r >= 0 && r < col.nrows) {
        // The x-edge east of the cell: D- stays, D+ goes to the next lane.
        Fluct dm, dp;
        device_roe<0>(c, col.east_prim(), g, sg, eps, dm, dp);
        col.put_east(dp);
        m.team_barrier();
        mx = add(col.from_west(), dm);
        if constexpr (Fused) {
          if (r >= 1) {
            east_b = device_speed<0>(nb, col.east_new(), g, eps);
            col.put_new_speed(east_b);
          }
        }
      }
      below = c, qx_below = raw.qx, qy_below = raw.qy, hc_below = raw.hc;
      mx_below = mx, my_below = my;
    }
    if (q.on) col.mark_active(m, q, b, act);
  };
  if constexpr (Fused) {
    Kokkos::parallel_reduce("shwa::flux_update_decoupled_cfl", Col::policy(box, rows, slots), body,
                            Kokkos::Max<Real, typename E::memory_space>(zpart.zmax));
  } else {
    Kokkos::parallel_for(
        "shwa::flux_update_decoupled", Col::policy(box, rows, slots),
        KOKKOS_LAMBDA(const typename Col::Member& m) {
          Real unused = 0;
          body(m, unused);
        });
  }
}

}  // namespace detail

/// Flux + update, ghost-cell decoupling variant (TeamPolicy, team scratch, one team a tile).
/// Tiles of quiet squares are skipped (QuietMap); the squares of active cells are marked.
template <class E>
void flux_update_decoupled(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                           const Field<E>& gn2_field, const Box& box, Real dt,
                           const StepConstants& k, const Tiling& tiling,
                           const ClipCounter<E>& clipped, const QuietMap<E>& quiet) {
  if (box.empty()) return;
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile sweeps it a row of edges at a time, SIMD (kernels_host.hpp); every
    // edge inside the tile is solved once.
    detail::host_flux_update_decoupled(w, out, H, gn2_field, box, dt, k, tiling, clipped, quiet);
  } else {
    // Device: teams of columns (detail::Column). Every x-edge is solved by one line of code and
    // every y-edge by another, each once inside a team; an edge on a team's border is solved by
    // both teams on the same bits, so it gives the same result whichever team (tile, block) solves
    // it, and the fields do not depend on the decomposition.
    detail::device_decoupled<false>(w, out, H, gn2_field, box, dt, k, tiling, clipped, quiet, ZPart<E>{});
  }
}

/// Whether flux_update_decoupled_cfl exists on execution space E (device column kernels only; the
/// host sweeps and the recompute kernel leave Z_i to the CFL pass).
template <class E>
constexpr bool fused_cfl_available() {
  return !is_host_space<E>();
}

/// flux_update_decoupled that also writes to zpart.zmax the maximum of Z_i of W^{n+1} over the
/// owned cells that are not on a border of its teams (detail::device_decoupled); the lowest Real if
/// there are none. Device spaces only (fused_cfl_available).
template <class E>
void flux_update_decoupled_cfl(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                               const Field<E>& gn2_field, const Box& box, Real dt, const StepConstants& k,
                               const Tiling& tiling, const ClipCounter<E>& clipped,
                               const QuietMap<E>& quiet, const ZPart<E>& zpart) {
  static_assert(fused_cfl_available<E>(), "the update computes Z_i only in the device kernels");
  if (box.empty()) return;
  detail::device_decoupled<true>(w, out, H, gn2_field, box, dt, k, tiling, clipped, quiet, zpart);
}

/// The cells whose Z_i the updates of a step with ZParts left out: the borders of their teams (the
/// first and last row of each team's run of rows, the first and last column of its columns) and
/// the owned cells next to ghosts. A list of runs, each the border rows or the border columns of
/// one launch's teams over its box, enumerated as one index range; cells outside the owned ones
/// are skipped when met, and a cell listed twice is harmless (a maximum).
struct BorderCells {
  static constexpr int kMaxRuns = 12;
  struct Run {
    Box box;         // the launch's box (team bands start at its first row and column)
    int period = 1;  // rows (or columns) a band
    bool columns = false;
    long start = 0;  // the index of the run's first cell
  };
  Run run[kMaxRuns];
  int n = 0;
  long total = 0;

  /// The first and last row of each band of `period` rows of box, across the whole box.
  void add_rows(const Box& box, int period) { add(box, period, false); }
  /// The first and last column of each band of `period` columns of box, up the whole box.
  void add_columns(const Box& box, int period) { add(box, period, true); }
  /// The cells a device decoupled launch over box with `rows` a team leaves to the border pass.
  void add_teams(const Box& box, int rows) {
    add_rows(box, rows);
    add_columns(box, detail::kLanes - 2);  // detail::Column::kOwned
  }
  /// The ring of owned cells next to the ghosts.
  void add_ring(const Box& owned) {
    add_rows(owned, owned.ny());
    add_columns(owned, owned.nx());
  }

  KOKKOS_INLINE_FUNCTION void locate(long idx, int& j, int& i) const {
    int r = 0;
    while (r + 1 < n && idx >= run[r + 1].start) ++r;
    const Run& u = run[r];
    const long x = idx - u.start;
    if (!u.columns) {
      const long w = u.box.nx();
      const int band = int(x / (2 * w)), which = int(x / w % 2);
      const int first = u.box.j0 + band * u.period;
      const int last = (first + u.period < u.box.j1 ? first + u.period : u.box.j1) - 1;
      j = which ? last : first;
      i = u.box.i0 + int(x % w);
    } else {
      const long bands = (u.box.nx() + u.period - 1) / u.period;
      const int band = int(x % (2 * bands) / 2), which = int(x % 2);
      const int first = u.box.i0 + band * u.period;
      const int last = (first + u.period < u.box.i1 ? first + u.period : u.box.i1) - 1;
      i = which ? last : first;
      j = u.box.j0 + int(x / (2 * bands));
    }
  }

 private:
  void add(const Box& box, int period, bool columns) {
    if (box.empty()) return;
    if (n == kMaxRuns) throw std::logic_error("BorderCells: more runs than kMaxRuns");
    const long across = columns ? box.nx() : box.ny(), along = columns ? box.ny() : box.nx();
    const long bands = (across + period - 1) / period;
    run[n] = Run{box, period, columns, total};
    total += bands * 2 * along;
    ++n;
  }
};

/// The largest Z_i of W over the owned cells: the maxima that the update's launches of the step left
/// in zparts(0 .. nparts - 1), and Z_i of the cells they left out (borders), computed here from W,
/// whose ghosts are filled. Device spaces only. The same value, to the bit, as the CFL pass's.
template <class E>
Real cfl_border_max(const Conserved<E>& w, const Field<E>& H, const Box& owned, const StepConstants& k,
                    const BorderCells& cells, const Kokkos::View<Real*, typename E::memory_space>& zparts,
                    int nparts) {
  static_assert(fused_cfl_available<E>(), "device spaces only");
  const Real g = k.g, eps = k.eps_h, dx = Real(k.dx), dy = Real(k.dy);
  const Box o = owned;
  const BorderCells bc = cells;
  const auto parts = zparts;
  Real zmax = 0;
  Kokkos::parallel_reduce(
      "shwa::cfl_border_max", launch_light(Kokkos::RangePolicy<E, Kokkos::IndexType<long>>(0, bc.total)),
      KOKKOS_LAMBDA(const long idx, Real& lmax) {
        if (idx == 0)
          for (int p = 0; p < nparts; ++p)
            if (parts(p) > lmax) lmax = parts(p);
        int j, i;
        bc.locate(idx, j, i);
        if (i < o.i0 || i >= o.i1 || j < o.j0 || j >= o.j1) return;
        auto prim = [&](int jj, int ii) {
          return make_cell_prim(w.h(jj, ii), w.qx(jj, ii), w.qy(jj, ii), Real(0), H(jj, ii), eps);
        };
        const CellPrim c = prim(j, i);
        const Real z = detail::cell_z(dx, dy, detail::device_speed<0>(prim(j, i - 1), c, g, eps),
                                      detail::device_speed<0>(c, prim(j, i + 1), g, eps),
                                      detail::device_speed<1>(prim(j - 1, i), c, g, eps),
                                      detail::device_speed<1>(c, prim(j + 1, i), g, eps));
        if (z > lmax) lmax = z;
      },
      Kokkos::Max<Real>(zmax));
  return zmax;
}

}  // namespace shwa
