// shwa/core/kernels.hpp — the two kernels of a step (docs/method.md section 6):
//   cfl_min_dt      the CFL reduction over W^n (hosts: parallel_reduce; devices: cfl_max_z, the max
//                   of Z_i by atomics), each edge's speed computed once
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

#include "boundary.hpp"
#include "fields.hpp"
#include "host_tiles.hpp"
#include "quiet.hpp"
#include "roe.hpp"
#include "types.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
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

/// The largest finite Real: the CFL step where no cell limits it.
KOKKOS_INLINE_FUNCTION constexpr Real no_step_limit() {
  if constexpr (sizeof(Real) == sizeof(double))
    return DBL_MAX;
  else
    return FLT_MAX;
}

/// The CFL step of the largest Z_i of a block (docs/method.md section 3): 2 CFL dx dy / zmax, with
/// num = 2 CFL dx dy; no_step_limit() where no cell limits the step (zmax <= 0).
KOKKOS_INLINE_FUNCTION Real cfl_step(Real zmax, Real num) {
  return zmax > Real(0) ? num / zmax : no_step_limit();
}

/// A step of dt that must not pass a time `left` away: left where dt would reach it.
KOKKOS_INLINE_FUNCTION double clip_step(double dt, double left) { return dt >= left ? left : dt; }

/// Host memory that the devices of E write and the host reads without a copy (StepDt::report),
/// where E has it; Solver::step brings the CFL step to the host the usual way elsewhere.
template <class E>
struct DeviceReport {
  using space = Kokkos::HostSpace;
  static constexpr bool kAvailable = false;
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct DeviceReport<Kokkos::Cuda> {
  using space = Kokkos::CudaHostPinnedSpace;
  static constexpr bool kAvailable = true;
};
#endif

/// What the device CFL pass leaves in device memory for a step taken from the device (cfl_max_z):
/// the block's largest Z_i and how many of its teams ran (did not skip their cells). Solver::step
/// chooses the next pass's rows from the teams that ran (detail::cfl_rows).
struct PassResult {
  Real zmax;
  int teams_run;
};

/// What the CFL pass shows of the state it reads to a watcher of the run, so that a fold over the
/// state after every step (the app's maxima, app/monitors.hpp) reads it in the pass that reads it
/// anyway instead of in a pass of its own. The pass hands the watcher every cell of its box that
/// it does not skip, once, from the thread that read it: on a device `obs(j, i, h, qx, qy, a)`
/// (storage indices, the cell's W as loaded), where `a = obs.ahead(j, i)`, what else the watcher
/// reads of the cell, was loaded a row of the walk before, so that its loads wait no longer than
/// the pass's own; on a host `obs.rect(j0, j1, i0, i1)` for each part of a tile it computes
/// (storage indices, half-open), whose rows that thread has just read. The cells it skips are quiet
/// with quiet neighbours (quiet.hpp). NoObserver watches nothing and compiles to nothing (kActive).
struct NoObserver {
  static constexpr bool kActive = false;
  struct Ahead {};
  KOKKOS_INLINE_FUNCTION Ahead ahead(int, int) const { return {}; }
  KOKKOS_INLINE_FUNCTION void operator()(int, int, Real, Real, Real, const Ahead&) const {}
  void rect(int, int, int, int) const {}
};

/// The time step an update kernel takes: `value`, known to the host; or, where `pass` is set, the
/// step that the block's largest Z_i gives, which the CFL pass left in device memory:
/// clip_step(cfl_step(zmax, num), left), computed by the kernel with the host's operations. The host
/// then launches the update without waiting for the CFL pass; where `report` is set (the step's
/// first update launch), the first thread of team 0 copies the pass's result there (its Z_i 0 where
/// none limits the step, written last), host memory the device can write, from which the host
/// computes the same step (Solver::step, docs/kernels.md). That thread also zeroes `clear`, where it
/// is set: the other of two result slots, which the next step's CFL pass raises (cfl_max_z), so that
/// no launch a step resets it; the next pass runs after this update on the same stream.
struct StepDt {
  Real value = 0;
  const PassResult* pass = nullptr;
  Real num = 0;
  double left = 0;
  PassResult* report = nullptr;
  PassResult* clear = nullptr;

  bool on_device() const { return pass != nullptr; }
};

/// Orders a thread's writes to host memory as the host sees them (StepDt::report).
KOKKOS_INLINE_FUNCTION void fence_system() {
#if defined(__CUDA_ARCH__)
  __threadfence_system();
#else
  Kokkos::memory_fence();
#endif
}

namespace detail {

/// dt, dt/dx and dt/dy of an update kernel.
struct StepFactors {
  Real dt, fx, fy;
};

/// The update kernels' step where the host knows it: kernel arguments, which cost no registers.
struct HostStep {
  StepFactors f;
  template <class Member>
  KOKKOS_INLINE_FUNCTION StepFactors at(const Member&) const {
    return f;
  }
};

/// The update kernels' step from the CFL pass's result in device memory (StepDt), computed by every
/// thread; the first thread of team 0 reports that result to the host.
struct DeviceStep {
  StepDt s;
  Real dx, dy;
  template <class Member>
  KOKKOS_INLINE_FUNCTION StepFactors at(const Member& m) const {
    const Real zmax = s.pass->zmax;
    if (s.report && m.league_rank() == 0 && m.team_rank() == 0) {
      s.report->teams_run = s.pass->teams_run;
      fence_system();  // the host reads teams_run once it sees zmax
      s.report->zmax = zmax > Real(0) ? zmax : Real(0);
      if (s.clear) s.clear->zmax = Real(0), s.clear->teams_run = 0;
    }
    const Real dt = Real(clip_step(double(cfl_step(zmax, s.num)), s.left));
    return {dt, dt / dx, dt / dy};
  }
};

}  // namespace detail

/// Sum of the depths set to zero from below zero (see update_cell), on the device.
template <class E>
using ClipCounter = Kokkos::View<double, typename E::memory_space>;

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

/// The tile of a Tiling left at 0 x 0. On a GPU, 32 x 8: the recompute kernel's team (the column
/// kernels do not read it). On a host, rows of 1 KiB, 8 high (128 x 8 in double, 256 x 8 in
/// single precision): the sweeps' SIMD loops run over rows of edges one longer than the tile
/// (tx + 1 x-edges, tx + 2 cells loaded), so a narrow tile spends a large share of them in
/// remainders, and the same bytes a row give the same number of vectors a row in either
/// precision. A host tile skips dry land by its parts (QuietMap::active_part), so a wide one
/// loses little of the skipping (perf/results/, sessions 15 and 19).
template <class E>
constexpr Tiling default_tile() {
  return is_host_space<E>() ? Tiling{int(1024 / sizeof(Real)), 8} : Tiling{32, 8};
}

namespace detail {

/// One value for each tracer after the first (a cell's concentrations or h c, an edge's
/// fluctuations), tracer t at [t], 1 <= t < NT. The first tracer travels with the water (CellPrim::c,
/// Fluct::hc, RawCell::hc), so that with one tracer (NT = 1, nothing here is used) a kernel is the
/// kernel of one tracer; each other tracer is a few operations on its edges' EdgeMass.
template <int NT>
struct More {
  Real v[NT > 1 ? NT - 1 : 1] = {};
  KOKKOS_FORCEINLINE_FUNCTION Real& operator[](int t) { return v[t - 1]; }
  KOKKOS_FORCEINLINE_FUNCTION Real operator[](int t) const { return v[t - 1]; }
};

/// The tracers after the first at an edge: their D- (dm) and D+ (dp) from the concentrations of
/// its two cells and what roe_solve left for them.
template <int NT>
KOKKOS_FORCEINLINE_FUNCTION void more_fluct(const EdgeMass& em, const More<NT>& cL, const More<NT>& cR,
                                            More<NT>& dm, More<NT>& dp) {
#pragma unroll
  for (int t = 1; t < NT; ++t) tracer_fluct(em, cL[t], cR[t], dm[t], dp[t]);
}

/// a[t] + b[t] for each tracer after the first (as add(Fluct, Fluct) adds the first's).
template <int NT>
KOKKOS_FORCEINLINE_FUNCTION More<NT> add(const More<NT>& a, const More<NT>& b) {
  More<NT> s;
#pragma unroll
  for (int t = 1; t < NT; ++t) s[t] = add_rn(a[t], b[t]);
  return s;
}

/// The concentrations of the tracers after the first of cell (j, i) of depth h.
template <int NT, class E>
KOKKOS_FORCEINLINE_FUNCTION More<NT> load_more_c(const Conserved<E>& w, int j, int i, Real h) {
  More<NT> c;
#pragma unroll
  for (int t = 1; t < NT; ++t) c[t] = concentration(h, w.hc[t](j, i));
  return c;
}

/// h c^{n+1} - before the dry rule - of a tracer from h c^n and the sums mx, my of its edges'
/// fluctuations, every tracer's (update_values, update_tracer): rounded operation by operation,
/// as the tracers' fluctuations are (roe.hpp, concentration).
KOKKOS_FORCEINLINE_FUNCTION Real tracer_flux_update(Real hc, Real mx, Real my, Real fx, Real fy) {
  return sub_rn(hc, add_rn(mul_rn(fx, mx), mul_rn(fy, my)));
}

/// The primitives of cell (j, i).
template <class E>
KOKKOS_FORCEINLINE_FUNCTION CellPrim load_prim(const Conserved<E>& w, const Field<E>& H, int j, int i,
                                               Real eps_h) {
  const size_t o = cell_at(w.h, j, i);  // every field's (check_layouts)
  return make_cell_prim(w.h.data()[o], w.qx.data()[o], w.qy.data()[o], w.hc[0].data()[o], H.data()[o], eps_h);
}

/// The flux part of a cell's update, branch-free (one statement for the device's update_cell and
/// the host's SIMD rows): h, qx, qy, hc hold W^n and become W^n - the fluctuations, then the dry
/// rule below. Mx: west D+ plus east D- (x-edge frame: qn = qx, qt = qy); My: south D+ plus north D-
/// (y-edge frame: qn = qy, qt = qx). Dry cells (h < eps_h) keep their water and pollutant but lose
/// their momentum. A depth driven below zero is set to zero with its pollutant, and the water so
/// added is returned in `clip` (0 otherwise), which the caller counts (the outflow limit of
/// roe_fluctuations keeps this from happening in every case the tests run; the counter proves it
/// and the run summary reports it).
/// `empty`: whether the depth was set to zero (update_tracer).
KOKKOS_FORCEINLINE_FUNCTION void update_values(Real& h, Real& qx, Real& qy, Real& hc,
                                               const Fluct& Mx, const Fluct& My, Real fx, Real fy,
                                               Real eps_h, Real& clip, bool& empty) {
  h = h - (fx * Mx.h + fy * My.h);
  qx = qx - (fx * Mx.qn + fy * My.qt);
  qy = qy - (fx * Mx.qt + fy * My.qn);
  hc = tracer_flux_update(hc, Mx.hc, My.hc, fx, fy);
  const bool dry = h < eps_h;
  empty = dry & (h <= Real(0));
  clip = select(h < Real(0), -h, Real(0));
  h = select(empty, Real(0), h);
  hc = select(empty, Real(0), hc);
  qx = select(dry, Real(0), qx);
  qy = select(dry, Real(0), qy);
}
KOKKOS_FORCEINLINE_FUNCTION void update_values(Real& h, Real& qx, Real& qy, Real& hc,
                                               const Fluct& Mx, const Fluct& My, Real fx, Real fy,
                                               Real eps_h, Real& clip) {
  bool empty;
  update_values(h, qx, qy, hc, Mx, My, fx, fy, eps_h, clip, empty);
}

/// h c^{n+1} of a tracer after the first, from h c^n and the sums mx, my of its fluctuations, as
/// update_values computes the first's (`empty` from it).
KOKKOS_FORCEINLINE_FUNCTION Real update_tracer(Real hc, Real mx, Real my, Real fx, Real fy, bool empty) {
  return select(empty, Real(0), tracer_flux_update(hc, mx, my, fx, fy));
}

/// Manning friction, semi-implicit, of a wet cell (h >= eps_h, gn2 > 0): the factor r of
/// q <- r q = q / (1 + dt g n^2 |u| / h^(4/3)), |u| / h^(4/3) = |q| / h^(7/3), written with one
/// division as r = h^(7/3) / (h^(7/3) + dt g n^2 |q|); cbrt_h = cbrt(h). `use` false (a dry cell,
/// no friction) gives a finite value that the caller does not use.
KOKKOS_FORCEINLINE_FUNCTION Real friction_factor(bool use, Real h, Real qx, Real qy, Real cbrt_h,
                                                 Real dt, Real gn2) {
  const Real qn = shwa::sqrt_nonneg(qx * qx + qy * qy);
  const Real h73 = select(use, h * h * cbrt_h, Real(1));
  return quotient(h73, h73 + dt * gn2 * qn);
}

/// W^{n+1} of one cell from W^n (h0, qx0, qy0, hc0; the other tracers' h c in hcm0) and the sums
/// of its edge fluctuations (update_values, update_tracer), then the Manning friction
/// (friction_factor); written to `out`, with the ghost cells made of it where `write_ghosts`
/// (StaticGhosts). Returns whether the new state is active (QuietMap).
template <int NT, class E>
KOKKOS_FORCEINLINE_FUNCTION bool update_cell(Real h0, Real qx0, Real qy0, Real hc0, const More<NT>& hcm0,
                                             const Conserved<E>& out, int j, int i, const Fluct& Mx,
                                             const More<NT>& Mxm, const Fluct& My, const More<NT>& Mym,
                                             Real fx, Real fy, Real dt, Real gn2, Real eps_h,
                                             const ClipCounter<E>& clipped, bool write_ghosts = false,
                                             const StaticGhosts& ghosts = {}) {
  Real h = h0, qx = qx0, qy = qy0, hc = hc0, clip;
  bool empty;
  update_values(h, qx, qy, hc, Mx, My, fx, fy, eps_h, clip, empty);
  More<NT> hcm;
#pragma unroll
  for (int t = 1; t < NT; ++t) hcm[t] = update_tracer(hcm0[t], Mxm[t], Mym[t], fx, fy, empty);
  // Before the friction, which changes only wet cells (active anyway): W^n is not kept past here.
  bool active = active_cell_branch(h, qx, qy, hc, h0, qx0, qy0, hc0, eps_h);
#pragma unroll
  for (int t = 1; t < NT; ++t) active = active || !same_bits(hcm[t], hcm0[t]);
  if (clip > Real(0)) Kokkos::atomic_add(&clipped(), double(clip));
  if (h >= eps_h && gn2 > Real(0)) {
    const Real r = friction_factor(true, h, qx, qy, cube_root(h), dt, gn2);
    qx *= r;
    qy *= r;
  }
  const size_t o = cell_at(out.h, j, i);  // every field's (check_layouts)
  out.h.data()[o] = h;
  out.qx.data()[o] = qx;
  out.qy.data()[o] = qy;
  out.hc[0].data()[o] = hc;
#pragma unroll
  for (int t = 1; t < NT; ++t) out.hc[t].data()[o] = hcm[t];
  if (write_ghosts) ghosts.write<NT>(out, j, i, h, qx, qy, hc, hcm);
  return active;
}

KOKKOS_FORCEINLINE_FUNCTION Fluct add(const Fluct& a, const Fluct& b) {
  return Fluct{a.h + b.h, a.qn + b.qn, a.qt + b.qt, add_rn(a.hc, b.hc)};
}

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
auto device_tile_policy(const Box& box, const Tiling& t, const E& space) {
  if (t.tx * t.ty > max_tile_cells<E>())
    throw std::invalid_argument("tile " + std::to_string(t.tx) + "x" + std::to_string(t.ty) +
                                " has more cells than a device tile may (" +
                                std::to_string(max_tile_cells<E>()) + ")");
  const int ntiles = ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
  return launch_light(DevicePolicy<E>(space, ntiles, t.tx * t.ty));
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
/// Each lane reads one cell a row, the next row's while it works on this one (so that the loads'
/// latency hides behind the arithmetic), and keeps W^n of the row below for its update.
/// Team scratch: the lanes' primitives of the current row and the D+ (or speeds) they hand east.
/// A team is one warp: 32 lanes, or on AMD GPUs (HIP) one wavefront of 64. The kernels only
/// synchronise their lanes through team barriers and team scratch, so any width works;
/// SHWA_DEVICE_LANES sets another (a CUDA build with 64 runs each team as two warps, which is how
/// the AMD teams are tested where no AMD GPU is: perf/gpu_session.sh lanes64).
#ifndef SHWA_DEVICE_LANES
#if defined(KOKKOS_ENABLE_HIP)
#define SHWA_DEVICE_LANES 64
#else
#define SHWA_DEVICE_LANES 32
#endif
#endif
inline constexpr int kLanes = SHWA_DEVICE_LANES;
static_assert(kLanes >= 3, "a column team needs two neighbour lanes and an owned one or more");
/// The width of the capped update's teams (capped_update_teams), the kernel of blocks of many
/// teams. On CUDA it is two warps: 62 owned columns a team against 30, so fewer lanes hold
/// neighbour columns. On an H200 that made the capped update faster wherever it runs, while the
/// uncapped update and the CFL pass were not faster with two warps and keep one
/// (docs/kernels.md). SHWA_DEVICE_CAPPED_LANES sets another.
#ifndef SHWA_DEVICE_CAPPED_LANES
#if defined(KOKKOS_ENABLE_CUDA) && SHWA_DEVICE_LANES < 64
#define SHWA_DEVICE_CAPPED_LANES 64
#else
#define SHWA_DEVICE_CAPPED_LANES SHWA_DEVICE_LANES
#endif
#endif
inline constexpr int kCappedLanes = SHWA_DEVICE_CAPPED_LANES;
static_assert(kCappedLanes >= 3, "a column team needs two neighbour lanes and an owned one or more");

/// The launch bound of the column kernels: at least SHWA_DEVICE_COLUMN_MIN_TEAMS teams of 32
/// lanes resident on a multiprocessor (the same threads in half as many teams of 64 lanes), which
/// caps the registers a thread may use. That is CUDA's meaning of Kokkos' LaunchBounds; HIP reads
/// its second argument otherwise, and no AMD GPU has tuned it.
#ifndef SHWA_DEVICE_COLUMN_MIN_TEAMS
#define SHWA_DEVICE_COLUMN_MIN_TEAMS 8
#endif
/// The launch bound of the decoupled update of one tracer in blocks with many teams
/// (capped_update_teams): SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS teams of 32 lanes. In double 16 caps
/// the update at 128 registers (with its carry in team scratch, kCarryInScratch, it spills little
/// or nothing), and 16 warps a multiprocessor against 12 (uncapped) hide more of its latency where
/// a grid has many waves of teams; with few waves the cap cost more than the warps gain
/// (docs/kernels.md). In single precision the update takes 91 registers and the bound caps nothing.
#ifndef SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS
#define SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS 16
#endif
/// Teams of `lanes` a multiprocessor for `teams32` teams of 32 lanes (at least 1).
constexpr int column_min_teams(int teams32, int lanes = kLanes) {
  return teams32 * 32 / lanes > 0 ? teams32 * 32 / lanes : 1;
}
inline constexpr int kColumnMinTeams = column_min_teams(SHWA_DEVICE_COLUMN_MIN_TEAMS);
inline constexpr int kUpdateCappedMinTeams =
    column_min_teams(SHWA_DEVICE_UPDATE_CAPPED_MIN_TEAMS, kCappedLanes);
/// The launch bound of the device CFL pass that takes the step to the device (cfl_max_z): teams of 32
/// lanes a multiprocessor. It guarantees that many resident teams (cfl_resident_teams), a number
/// the rows of the pass are chosen from. 28 is what an H100 or H200 holds of the pass in double, at
/// the 65 registers a thread it takes without a cap (65536 / (28 x 32) = 73), so the bound changes
/// no code there and the count is exact. In single precision (39 registers) a multiprocessor holds
/// 48 (twelve teams of four warps: CflMaxZ::kWarps), more than the count.
#ifndef SHWA_DEVICE_CFL_MIN_TEAMS
#define SHWA_DEVICE_CFL_MIN_TEAMS 28
#endif
inline constexpr int kCflMinTeams = column_min_teams(SHWA_DEVICE_CFL_MIN_TEAMS);
/// The fewest teams (of kCappedLanes) of a block whose one-tracer update is capped: the threads
/// the device holds at once over kCappedLanes x SHWA_DEVICE_UPDATE_CAPPED_FILL (2: two waves of
/// the capped update; an H200: 2112 teams of 64 lanes, which 1024^2 has at up to 8 rows a team
/// and the default estuary at its balanced rows; docs/kernels.md).
#ifndef SHWA_DEVICE_UPDATE_CAPPED_FILL
#define SHWA_DEVICE_UPDATE_CAPPED_FILL 2
#endif
template <class E>
long capped_update_teams() {
  return long(E().concurrency()) / kCappedLanes / SHWA_DEVICE_UPDATE_CAPPED_FILL;
}
template <class E, int MinTeams = kColumnMinTeams, int L = kLanes>
using ColumnPolicy = Kokkos::TeamPolicy<E, Kokkos::LaunchBounds<L, MinTeams>>;

/// The Roe problem of the edge between L and R in the frame of direction Dir, on a device: where
/// both cells are wet (almost every edge of most flows) without the wet/dry classification
/// (roe_fluctuations<false>, which gives the same values), so that warps of wet edges skip it.
/// `em`: what the edge's other tracers read (tracer_fluct).
template <int Dir>
KOKKOS_FORCEINLINE_FUNCTION void device_roe(const CellPrim& L, const CellPrim& R, Real g, Real sg,
                                            Real eps, Fluct& dm, Fluct& dp, EdgeMass& em) {
  if ((L.h >= eps) & (R.h >= eps))
    roe_fluctuations<false>(edge_prim<Dir>(L), edge_prim<Dir>(R), g, sg, eps, dm, dp, em);
  else
    roe_fluctuations<true>(edge_prim<Dir>(L), edge_prim<Dir>(R), g, sg, eps, dm, dp, em);
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

/// Whether the decoupled update keeps what it carries from a row to the next for the cell below
/// (W^n qx, qy, h c and the x-edge sums) and the step (dt, fx, fy) in team scratch rather than in
/// registers: by default in double precision, where the capped update otherwise spills to local
/// memory, and not in single precision, which does not spill and ran slower with it
/// (docs/kernels.md, "The update's carry"). SHWA_DEVICE_UPDATE_CARRY 1 or 0 sets it for both.
#ifndef SHWA_DEVICE_UPDATE_CARRY
#define SHWA_DEVICE_UPDATE_CARRY (sizeof(Real) == 8)
#endif
inline constexpr bool kCarryInScratch = SHWA_DEVICE_UPDATE_CARRY;

/// NT: the tracers of the update (the CFL pass reads none: 1); L: the lanes of a team (kLanes, or
/// kCappedLanes for the capped update). Team scratch, L values an array: the 6 primitives, the 4
/// values handed east (or the CFL pass's speed), then the other tracers' concentrations and the D+
/// of their h c handed east.
template <class E, int NT = 1, int L = kLanes>
struct Column {
  using Member = typename ColumnPolicy<E, kColumnMinTeams, L>::member_type;
  static constexpr int kLanes = L;  // this team's lanes (detail::kLanes is only the default)
  static constexpr int kOwned = L - 2;
  /// The update's carry for the cell below (kCarryInScratch): its W^n qx, qy, h c, its x-edge
  /// sums (h, qn, qt, h c), then the step's dt, fx, fy, arrays kCarryAt on, each lane its own slots
  /// (no barrier).
  enum CarrySlot { kBelowQx, kBelowQy, kBelowHc, kBelowMx, kStepDt = kBelowMx + 4, kStepFx, kStepFy,
                   kCarrySlots };
  static constexpr int kCarry = kCarryInScratch ? kCarrySlots : 0;
  static constexpr int kCarryAt = 10 + 2 * (NT - 1);
  static constexpr int kArrays = kCarryAt + kCarry;
  KOKKOS_FORCEINLINE_FUNCTION void put_carry(int k, Real x) const { s((kCarryAt + k) * kLanes + lane) = x; }
  KOKKOS_FORCEINLINE_FUNCTION Real carry(int k) const { return s((kCarryAt + k) * kLanes + lane); }
  /// Team scratch of `arrays` arrays (kArrays: the update's; the CFL pass takes fewer).
  static size_t scratch_bytes(int arrays = kArrays) { return ScratchArray<E>::shmem_size(arrays * kLanes); }
  static long teams(const Box& box, int rows) {
    return long(ceil_div(box.nx(), kOwned)) * ceil_div(box.ny(), rows);
  }
  /// `rows` (resolved by update_rows or cfl_rows) a team, on the instance `space`, with the launch bound
  /// MinTeams.
  template <int MinTeams = kColumnMinTeams>
  static auto policy(const Box& box, int rows, const E& space = E()) {
    if (rows < 1) throw std::invalid_argument("the device kernels need at least one row a team");
    return launch_light(ColumnPolicy<E, MinTeams, L>(space, int(teams(box, rows)), kLanes))
        .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes()));
  }

  ScratchArray<E> s;
  int lane, i, j0, nrows;  // the strip's cells: columns [i0(), i1(b)), rows [j0, j0 + nrows)
  /// The column the lane reads: its own, or for a lane beyond the box's ghost column that column
  /// (valid memory; what such a lane computes reaches no lane that owns a cell), so that no load
  /// is guarded.
  int ic;
  bool owned;  // owns its cell (updates it, counts it)
  /// The team's strip: the team is one strip, its rank the lane, its league rank the strip.
  KOKKOS_INLINE_FUNCTION Column(const Member& m, const Box& b, int rows)
      : s(m.team_scratch(0), kArrays * kLanes), lane(m.team_rank()) {
    place(b, rows, m.league_rank());
  }
  /// Strip `strip` of the box's teams(b, rows) (nrows <= 0 beyond them) as lane `lane`, with
  /// `arrays` arrays of team scratch as the launch reserved them (teams of several strips share no
  /// scratch: CflMaxZ::kWarps).
  KOKKOS_INLINE_FUNCTION Column(const Member& m, const Box& b, int rows, int arrays, int lane_, int strip)
      : s(m.team_scratch(0), arrays * kLanes), lane(lane_) {
    place(b, rows, strip);
  }
  /// Places the lane in strip `strip` (constructors; the same code for every kernel).
  KOKKOS_FORCEINLINE_FUNCTION void place(const Box& b, int rows, int strip) {
    const int ncols = (b.nx() + kOwned - 1) / kOwned;
    const int i0 = b.i0 + (strip % ncols) * kOwned;
    j0 = b.j0 + (strip / ncols) * rows;
    nrows = b.j1 - j0 < rows ? b.j1 - j0 : rows;
    i = i0 - 1 + lane;
    owned = lane > 0 && lane <= kOwned && i < b.i1;
    ic = i <= b.i1 ? i : b.i1;
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
  /// W^n of this lane's cell in row j (of column ic), from one position for every field (cell_at;
  /// check_layouts).
  /// WithC = false leaves hc out (the CFL pass).
  template <bool WithC = true>
  KOKKOS_FORCEINLINE_FUNCTION RawCell load(const Conserved<E>& w, const Field<E>& H, int j) const {
    const size_t o = cell_at(w.h, j, ic);
    return RawCell{w.h.data()[o], w.qx.data()[o], w.qy.data()[o], WithC ? w.hc[0].data()[o] : Real(0),
                   H.data()[o]};
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
  /// W^n's h c of the other tracers of this lane's cell in row j (of column ic).
  KOKKOS_FORCEINLINE_FUNCTION More<NT> load_more(const Conserved<E>& w, int j) const {
    More<NT> hc;
    const size_t o = cell_at(w.h, j, ic);
#pragma unroll
    for (int t = 1; t < NT; ++t) hc[t] = w.hc[t].data()[o];
    return hc;
  }
  /// The other tracers' concentrations of this lane's cell, and the east lane's.
  KOKKOS_INLINE_FUNCTION void put_more_c(const More<NT>& c) const {
#pragma unroll
    for (int t = 1; t < NT; ++t) s((9 + t) * kLanes + lane) = c[t];
  }
  KOKKOS_INLINE_FUNCTION More<NT> east_more_c() const {
    const int q = lane + 1 < kLanes ? lane + 1 : lane;
    More<NT> c;
#pragma unroll
    for (int t = 1; t < NT; ++t) c[t] = s((9 + t) * kLanes + q);
    return c;
  }
  /// The other tracers' D+ handed east, and what the western lane handed (as from_west).
  KOKKOS_INLINE_FUNCTION void put_east_more(const More<NT>& d) const {
#pragma unroll
    for (int t = 1; t < NT; ++t) s((8 + NT + t) * kLanes + lane) = d[t];
  }
  KOKKOS_INLINE_FUNCTION More<NT> from_west_more() const {
    const int q = lane > 0 ? lane - 1 : 0;
    More<NT> d;
#pragma unroll
    for (int t = 1; t < NT; ++t) d[t] = s((8 + NT + t) * kLanes + q);
    return d;
  }
  /// The CFL pass hands east one speed.
  KOKKOS_INLINE_FUNCTION void put_east(Real speed) const { s(6 * kLanes + lane) = speed; }
  KOKKOS_INLINE_FUNCTION Real speed_from_west() const { return s(6 * kLanes + (lane > 0 ? lane - 1 : 0)); }

  /// Whether the team is one CUDA warp, whose lanes read each other's registers (shuffles) with
  /// no scratch and no barrier (the CFL pass: CflMaxZ::kShuffle). Known on the host too, which
  /// reserves the scratch.
#if defined(KOKKOS_ENABLE_CUDA)
  static constexpr bool kWarp = std::is_same_v<E, Kokkos::Cuda> && L == 32;
#else
  static constexpr bool kWarp = false;
#endif
  /// x of the next lane (the last lane its own), x of the previous lane (lane 0 its own): on a
  /// kWarp team's device code only, every lane of the warp calling.
  KOKKOS_FORCEINLINE_FUNCTION static Real lane_east(Real x) {
#if defined(__CUDA_ARCH__)
    return __shfl_down_sync(0xffffffffu, x, 1);
#else
    return x;
#endif
  }
  KOKKOS_FORCEINLINE_FUNCTION static Real lane_west(Real x) {
#if defined(__CUDA_ARCH__)
    return __shfl_up_sync(0xffffffffu, x, 1);
#else
    return x;
#endif
  }
  /// The largest x over the warp's lanes, and whether p holds in any lane: kWarp device code only,
  /// every lane of the warp calling.
  KOKKOS_FORCEINLINE_FUNCTION static Real warp_max(Real x) {
#if defined(__CUDA_ARCH__)
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
      const Real y = __shfl_xor_sync(0xffffffffu, x, d);
      x = y > x ? y : x;
    }
#endif
    return x;
  }
  KOKKOS_FORCEINLINE_FUNCTION static bool warp_any(bool p) {
#if defined(__CUDA_ARCH__)
    return __any_sync(0xffffffffu, p);
#else
    return p;
#endif
  }
  /// team_quiet of the strip, answered by its warp alone (kWarp): the same squares, the same answer.
  KOKKOS_INLINE_FUNCTION bool warp_quiet(const QuietMap<E>& q, const Box& b) const {
    const int c0 = i0(), c1 = i1(b), r1 = j0 + nrows;
    if (!q.may_skip(c0, c1, j0, r1)) return false;
    bool active = false;
    for (int l = lane; l < c1 - c0 + 2; l += kLanes) active |= !q.quiet_column(c0 - 1 + l, j0 - 1, r1);
    return !warp_any(active);
  }
  /// What the western lane handed east (lane 0, which owns nothing, gets its own).
  KOKKOS_INLINE_FUNCTION Fluct from_west() const {
    const int q = lane > 0 ? lane - 1 : 0;
    return Fluct{s(6 * kLanes + q), s(7 * kLanes + q), s(8 * kLanes + q), s(9 * kLanes + q)};
  }
};

/// Rows a team of the column kernels sweeps over `box`: `rows` where the deck sets it, else the
/// most, from `most` down to 4 by halving, that still gives the device at least a team for every
/// `fill` resident warps it can hold, so that a small block keeps every multiprocessor busy. A team
/// loads two rows and solves one row of y-edges more than it updates: fewer rows cost
/// (rows + 2) / rows of the loads, more rows leave multiprocessors idle. (Shorter runs where many
/// teams skip dry land were slower: docs/kernels.md.)
#ifndef SHWA_DEVICE_COLUMN_FILL
#define SHWA_DEVICE_COLUMN_FILL 2
#endif
template <class E>
int column_rows(const Box& box, int rows, int fill = SHWA_DEVICE_COLUMN_FILL, int most = 64) {
  if (rows > 0) return rows;
  const long target = long(E().concurrency()) / kLanes / fill;
  int r = most;
  while (r > 4 && Column<E>::teams(box, r) < target) r /= 2;
  return r;
}

/// Multiprocessors of the device of E (a CUDA device); 0 where not known.
template <class E>
int device_multiprocessors() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<E, Kokkos::Cuda>) {
    static const int sms = [] {
      int n = 0;
      return cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, E().cuda_device()) == cudaSuccess ? n : 0;
    }();
    return sms;
  }
#endif
  return 0;
}

/// Rows a team that balance a column kernel's two costs over a block of many teams, `resident`
/// of them at once: each team loads two rows beyond its own (the loads grow by 2 / rows), and the
/// kernel ends with its last walks while part of the device idles (about rows x resident /
/// (strips x ny) of the kernel, one walk's share of all of them, over `weight`). Their sum,
/// 2 / r + 2 r / q with q = 2 x weight x strips x ny / resident, is least over whole rows at the
/// fewest r with r (r + 1) >= q (near sqrt(q)), kept to 4..64. The weights are measured
/// (docs/kernels.md): 1 for the update, 2 for the CFL pass, whose ends cost less.
template <class E, int L = kLanes>
int balanced_rows(const Box& box, long resident, double weight) {
  const double team_rows = double(ceil_div(box.nx(), Column<E, 1, L>::kOwned)) * double(box.ny());
  const double q = 2.0 * weight * team_rows / double(resident);
  long r = std::max(1L, long(std::sqrt(q)));
  while (double(r) * double(r + 1) < q) ++r;
  while (r > 1 && double(r - 1) * double(r) >= q) --r;
  return int(std::clamp(r, 4L, 64L));
}

/// Rows a team of the device decoupled update sweeps: `rows` where the deck sets it; else the
/// balanced rows (balanced_rows, over the teams the capped update holds at once) where they give
/// the block at least capped_update_teams() teams, so that its one-tracer update runs capped, 16
/// warps a multiprocessor against 12; else column_rows, whose few long walks over large blocks
/// leave the device idle at the kernel's end (docs/kernels.md). Updates of more tracers, never
/// capped, take the same rows.
template <class E>
int update_rows(const Box& box, int rows) {
  if (rows > 0) return rows;
  const long resident = long(device_multiprocessors<E>()) * kUpdateCappedMinTeams;
  if (resident > 0) {
    const int r = balanced_rows<E, kCappedLanes>(box, resident, 1.0);
    if (Column<E, 1, kCappedLanes>::teams(box, r) >= capped_update_teams<E>()) return r;
  }
  return column_rows<E>(box, 0);
}

/// The teams of the device CFL pass (cfl_max_z, launch bound kCflMinTeams) that the device holds at
/// once; 0 where not known (then cfl_rows keeps the rows chosen from the block's size).
template <class E>
long cfl_resident_teams() {
  return long(device_multiprocessors<E>()) * kCflMinTeams;
}

/// Rows a team of the device CFL pass that takes the step to the device (cfl_max_z) sweeps:
/// tiling.cfl_rows where set, else the more of
/// column_rows (a team for every SHWA_DEVICE_CFL_FILL resident warps, at most 8 rows) and the
/// balanced rows over the teams the pass holds at once (balanced_rows, weight 2; they are the more
/// from about 1536^2 up on an H200). A team of the pass walks its rows in series, and where teams
/// skip dry land the walk of the longest team bounds the pass, so a million cells keep short runs
/// (docs/kernels.md). The time step does not depend on the rows.
#ifndef SHWA_DEVICE_CFL_FILL
#define SHWA_DEVICE_CFL_FILL 2
#endif
///
/// Where every team runs, the pass instead lasts about ceil(teams / resident) x (rows + 2): a team
/// walks rows + 2 rows, and teams beyond what the device holds at once walk after them. So where the
/// teams that ran in the last pass (`teams_run` of a pass with `last_rows`; 0: not known) are more
/// than the device holds at once (`resident`; 0: not known) but no more than twice as many, the
/// rows become the fewest whose whole league fits at once: one walk of a few more rows instead of
/// two (an H200, 1024^2 cells: 10 rows, 3605 teams, against 8 rows, 4480 teams). Where fewer teams
/// ran, the longest walk bounds the pass and the short runs stay; with many waves the pass is bound
/// by instruction issue, not by walks (perf/results/, session 12).
template <class E>
int cfl_rows(const Box& box, const Tiling& t, long teams_run = 0, int last_rows = 0, long resident = 0) {
  if (t.cfl_rows > 0) return t.cfl_rows;
  const long held = cfl_resident_teams<E>();
  const int r = std::max(column_rows<E>(box, 0, SHWA_DEVICE_CFL_FILL, 8), held > 0 ? balanced_rows<E>(box, held, 2.0) : 0);
  if (teams_run <= 0 || last_rows <= 0 || resident <= 0) return r;
  // The teams that would run with r rows, at the last pass's share of running teams.
  const double ran = double(teams_run) * double(Column<E>::teams(box, r)) / double(Column<E>::teams(box, last_rows));
  if (ran <= double(resident) || ran > 2.0 * double(resident)) return r;
  for (int longer = r + 1; longer <= 4 * r; ++longer)
    if (Column<E>::teams(box, longer) <= resident) return longer;
  return r;
}

}  // namespace detail

}  // namespace shwa

// The host (Serial, OpenMP) bodies of the kernels below, vectorized: detail::host_*.
#include "kernels_host.hpp"

namespace shwa {

namespace detail {

#ifndef SHWA_DEVICE_CFL_SHUFFLE
#define SHWA_DEVICE_CFL_SHUFFLE 1
#endif
#ifndef SHWA_DEVICE_CFL_WARPS
#define SHWA_DEVICE_CFL_WARPS 4
#endif
/// The device CFL pass's team body: the largest Z_i of its cells. Teams of columns (detail::Column),
/// each edge's speed computed once, by the same line of code for every x-edge and every y-edge;
/// each cell then sums its four edges in the host path's order, and each owned lane shows its cells
/// to `obs` (NoObserver). CflMaxZAtomic runs it for every device CFL pass (cfl_max_z).
template <class E, class Obs = NoObserver>
struct CflMaxZ {
  using Col = Column<E>;
  /// A team of one warp hands the east cell's values and the west edge's speed by shuffles
  /// (SHWA_DEVICE_CFL_SHUFFLE, 1 by default), other teams through scratch and barriers.
  static constexpr bool kShuffle = Col::kWarp && SHWA_DEVICE_CFL_SHUFFLE;
  /// Its team scratch: none with shuffles; else arrays 0-2 and 5 (put_prim<true>; east_prim also
  /// reads 3 and 4, unwritten here, as v and c, which a speed does not use) and 6 (the speed
  /// handed east).
  static constexpr int kArrays = kShuffle ? 0 : 7;
  /// Strips a team (SHWA_DEVICE_CFL_WARPS with shuffles, else 1): warps that share nothing but
  /// their block. A multiprocessor holds at most 32 blocks, which caps teams of one warp at 32
  /// warps where the pass's registers would let more run (single precision: docs/kernels.md).
  /// SHWA_DEVICE_CFL_WARPS is 4: on an H100 4 gave the fastest float step of 1, 2 and 4.
  static constexpr int kWarps = kShuffle ? SHWA_DEVICE_CFL_WARPS : 1;
  static constexpr int kTeamLanes = Col::kLanes * kWarps;
  static_assert(kWarps >= 1, "a CFL team holds one strip or more");
  /// The pass's launch: Col::teams(box, rows) strips, kWarps a team, with the scratch they take
  /// (kArrays) and the launch bound kCflMinTeams strips a multiprocessor.
  static auto policy(const Box& box, int rows) {
    if (rows < 1) throw std::invalid_argument("the device kernels need at least one row a team");
    using P = ColumnPolicy<E, column_min_teams(SHWA_DEVICE_CFL_MIN_TEAMS, kTeamLanes), kTeamLanes>;
    return launch_light(P(E(), int((Col::teams(box, rows) + kWarps - 1) / kWarps), kTeamLanes))
        .set_scratch_size(0, Kokkos::PerTeam(Col::scratch_bytes(kArrays)));
  }
  /// The thread's strip (league rank x kWarps + its warp) and its lane in it.
  KOKKOS_INLINE_FUNCTION Col column(const typename Col::Member& m) const {
    const int t = m.team_rank();
    return kWarps == 1 ? Col(m, b, rows, kArrays, t, m.league_rank())
                       : Col(m, b, rows, kArrays, t % Col::kLanes, m.league_rank() * kWarps + t / Col::kLanes);
  }
  Conserved<E> w;
  Field<E> H;
  Box b;
  int rows;
  QuietMap<E> q;
  Real g, eps, dx, dy;
  Obs obs;

  /// Raises lmax to the thread's cells' Z_i; false (and nothing done) for a strip that skips its
  /// cells or lies beyond the box (every thread of the strip gets the same answer).
  KOKKOS_INLINE_FUNCTION bool sweep(const typename Col::Member& m, Real& lmax) const {
    const Col col = column(m);
    if constexpr (kShuffle) {
      if (col.nrows <= 0 || col.warp_quiet(q, b)) return false;
    } else {
      if (team_quiet(m, q, col.i0(), col.i1(b), col.j0, col.j0 + col.nrows)) return false;
    }
    CellPrim below{0, 0, 0, 0, 0, 0};
    Real west = 0, east = 0, south = 0;  // speeds of the row below's edges
    RawCell next = col.template load<false>(w, H, col.j0 - 1);
    typename Obs::Ahead ahead{};  // the watcher's loads for row r + 1
#pragma unroll 1
    for (int r = -1; r <= col.nrows; ++r) {
      const RawCell raw = next;
      // The next row's, unguarded: the last row's turn reads its own row again (unused).
      next = col.template load<false>(w, H, r < col.nrows ? col.j0 + r + 1 : col.j0 + r);
      if constexpr (Obs::kActive) {
        const typename Obs::Ahead now = ahead;
        if (r + 1 < col.nrows && col.owned) ahead = obs.ahead(col.j0 + r + 1, col.i);
        if (r >= 0 && r < col.nrows && col.owned) obs(col.j0 + r, col.i, raw.h, raw.qx, raw.qy, now);
      }
      const CellPrim c = make_cell_prim(raw.h, raw.qx, raw.qy, Real(0), raw.H, eps);
      if constexpr (!kShuffle) {
        col.template put_prim<true>(c);
        m.team_barrier();
      }
      Real sy = 0, sx = 0, sw = 0;
      if (r >= 0) {
        sy = device_speed<1>(below, c, g, eps);  // south of row r
        if (r >= 1 && col.owned) {
          const Real z = dy * (west + east) + dx * (south + sy);
          if (z > lmax) lmax = z;
        }
      }
      if (r >= 0 && r < col.nrows) {
        if constexpr (kShuffle) {
          // What an x-edge's speed reads of the east cell (put_prim<true>'s four values).
          const CellPrim e{Col::lane_east(c.h), Col::lane_east(c.H), Col::lane_east(c.u), Real(0), Real(0),
                           Col::lane_east(c.sh)};
          sx = device_speed<0>(c, e, g, eps);  // east of the cell
          sw = Col::lane_west(sx);
        } else {
          sx = device_speed<0>(c, col.east_prim(), g, eps);  // east of the cell
          col.put_east(sx);
          m.team_barrier();
          sw = col.speed_from_west();
        }
      }
      below = c, west = sw, east = sx, south = sy;
    }
    return true;
  }
};

/// Raises *dest to z >= 0 (NaN never) by an atomic maximum on the values' bits: the IEEE bits of
/// non-negative numbers order as the numbers do.
KOKKOS_INLINE_FUNCTION void atomic_max_nonnegative(Real* dest, Real z) {
  using Bits = std::conditional_t<sizeof(Real) == 8, unsigned long long, unsigned int>;
  Bits bits;
  std::memcpy(&bits, &z, sizeof bits);
  Kokkos::atomic_fetch_max(reinterpret_cast<Bits*>(dest), bits);
}

/// The device CFL pass into a PassResult (device memory, zeros before the pass) without a Kokkos
/// reduction: each strip that runs takes its threads' largest Z_i (its warp's, with shuffles; else
/// its team's), raises zmax to it atomically and counts itself in teams_run. A strip that skips its
/// cells then costs its quiet check alone, where a reduction gives every team a result and folds
/// them all in a last pass. A maximum does not depend on the order of its operands, so zmax is the
/// reduction's, bit for bit.
template <class E, class Obs = NoObserver>
struct CflMaxZAtomic {
  CflMaxZ<E, Obs> pass;
  PassResult* out;  // device memory

  KOKKOS_INLINE_FUNCTION void operator()(const typename Column<E>::Member& m) const {
    Real z = 0;
    if (!pass.sweep(m, z)) return;
    if constexpr (CflMaxZ<E, Obs>::kShuffle)
      z = Column<E>::warp_max(z);
    else
      m.team_reduce(Kokkos::Max<Real>(z));
    if (m.team_rank() % Column<E>::kLanes == 0) {
      Kokkos::atomic_increment(&out->teams_run);
      if (z > Real(0)) atomic_max_nonnegative(&out->zmax, z);
    }
  }
};

/// The device kernels load a cell's fields and the update stores them at one position, cell_at
/// (Column::load and load_more, load_prim, update_cell; the other accesses index the Views): every
/// field of w, of `out` where given, H and the friction field where it has cells must have w.h's
/// layout, which every field of a block's shape has.
template <class E>
void check_layouts(const Conserved<E>& w, const Field<E>& H, const Conserved<E>* out = nullptr,
                   const Field<E>& gn2_field = {}) {
  bool same = same_layout(w.h, H) && (gn2_field.extent(0) == 0 || same_layout(w.h, gn2_field));
  for (int k = 0; k < w.size(); ++k) same = same && same_layout(w.h, w[k]);
  for (int k = 0; out && k < out->size(); ++k) same = same && same_layout(w.h, (*out)[k]);
  if (!same) throw std::invalid_argument("the kernels' fields must share one layout (cell_at)");
  if (kCellAt32 && !is_host_space<E>() && !fits_cell_at(w.h))
    throw std::invalid_argument("a block of " + std::to_string(w.h.extent(0)) + " x " +
                                std::to_string(w.h.extent(1)) +
                                " cells (ghost layers included) has more than 2^32 positions a field, "
                                "more than one device addresses (cell_at): split the grid over more ranks");
}

}  // namespace detail

/// The device CFL pass over `box`, `rows` rows a team (detail::cfl_rows), into `out`, device memory,
/// without waiting for it (StepDt): each team that runs raises out->zmax and counts itself in
/// out->teams_run (detail::CflMaxZAtomic), which must be zeros before the pass; `obs` watches its
/// cells (NoObserver). Device spaces only.
template <class E, class Obs = NoObserver>
void cfl_max_z(const Conserved<E>& w, const Field<E>& H, const Box& box, const StepConstants& k, int rows,
               const QuietMap<E>& quiet, PassResult* out, const Obs& obs = Obs()) {
  static_assert(!is_host_space<E>(), "cfl_max_z is the device CFL pass; hosts use cfl_min_dt");
  detail::check_layouts(w, H);
  Kokkos::parallel_for(
      "shwa::cfl_max_z", detail::CflMaxZ<E, Obs>::policy(box, rows),
      detail::CflMaxZAtomic<E, Obs>{
          detail::CflMaxZ<E, Obs>{w, H, box, rows, quiet, k.g, k.eps_h, Real(k.dx), Real(k.dy), obs}, out});
}

/// The CFL time step over `box` (docs/method.md section 3): min over its cells of 2 CFL dx dy / Z_i,
/// Z_i = sum over the cell's edges of |E| (|un~| + a~); no_step_limit() when no cell limits the
/// step. Cells of a QuietMap's quiet squares have Z_i = 0 and are skipped. On devices the pass is
/// cfl_max_z, the same pass as a step taken on the device, into `scratch` (device memory, zeros on
/// entry, cleared again before return; hosts ignore it), whose largest Z_i the host reads:
/// min_i (num / Z_i) = num / max_i Z_i exactly (a correctly rounded division is monotone). Kokkos'
/// CUDA reduction would end with one warp folding every team's partial result in series
/// (docs/kernels.md). `obs` watches the pass's cells (NoObserver).
template <class E, class Obs = NoObserver>
Real cfl_min_dt(const Conserved<E>& w, const Field<E>& H, const Box& box, const StepConstants& k,
                Real cfl, const Tiling& tiling, const QuietMap<E>& quiet, PassResult* scratch,
                const Obs& obs = Obs()) {
  if (box.empty()) return no_step_limit();
  if constexpr (is_host_space<E>()) {
    // Host: one thread a tile, each edge's speed computed once, SIMD over rows (kernels_host.hpp);
    // the same sums in the same order as the device path.
    return detail::host_cfl_min_dt(w, H, box, k, cfl, tiling, quiet, obs);
  } else {
    if (!scratch) throw std::logic_error("cfl_min_dt on a device needs a PassResult in device memory");
    cfl_max_z(w, H, box, k, detail::cfl_rows<E>(box, tiling), quiet, scratch, obs);
    const Kokkos::View<PassResult, typename E::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> slot(scratch);
    PassResult r;
    Kokkos::deep_copy(r, slot);
    Kokkos::deep_copy(E(), slot, PassResult{0, 0});
    return cfl_step(r.zmax, Real(2) * cfl * Real(k.dx) * Real(k.dy));
  }
}

namespace detail {

/// The update kernels' fields and constants.
template <class E>
struct UpdateArgs {
  Conserved<E> w, out;
  Field<E> H, gn2_field;
  Box b;
  ClipCounter<E> clipped;
  QuietMap<E> q;
  Real g, sg, eps, gn2c;
  bool has_n;
  StaticGhosts ghosts;  // written by the kernels that take the step from the device (single blocks)
};

/// Whether an update kernel with the step's source S writes the ghosts of UpdateArgs::ghosts: only
/// a single block takes the step from the device, and only there are all sides physical.
template <class S>
inline constexpr bool kWritesGhosts = std::is_same_v<S, DeviceStep>;

/// Device body of flux_update_recompute, one team a tile; StepSource: HostStep or DeviceStep; NT
/// tracers. (Named functors: nvcc's extended lambdas fail when their enclosing template is
/// instantiated with several step sources in several translation units.)
template <class E, class StepSource, int NT>
struct RecomputeUpdate {
  UpdateArgs<E> a;
  StepSource step;
  int TX, TY, ntx_tiles;

  KOKKOS_INLINE_FUNCTION void operator()(const typename DevicePolicy<E>::member_type& m) const {
    const Conserved<E>& w = a.w;
    const Real g = a.g, sg = a.sg, eps = a.eps;
    const QuietMap<E>& q = a.q;
    const StepFactors f = step.at(m);
    const Real dt = f.dt, fx = f.fx, fy = f.fy;
    const Tile tl(a.b, m.league_rank(), ntx_tiles, TX, TY);
    const int i0 = tl.i0, j0 = tl.j0, ntx = tl.ntx, nty = tl.nty;
    if (team_quiet(m, q, i0, i0 + ntx, j0, j0 + nty)) return;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, TX * TY), [&](const int t) {
      const int tx = t % TX, ty = t / TX;
      if (tx >= ntx || ty >= nty) return;
      const int i = i0 + tx, j = j0 + ty;
      const Stencil st(w, a.H, j, i, eps);
      const CellPrim &C = st.c, &W = st.w, &Ea = st.e, &S = st.s, &N = st.n;
      Fluct dm, dp, Mx, My;
      EdgeMass em;
      // The other tracers (NT > 1): each neighbour's concentrations are read for its edge.
      const More<NT> cC = load_more_c<NT>(w, j, i, C.h);
      More<NT> dmm, dpm, Mxm, Mym;
      roe_fluctuations(edge_prim<0>(W), edge_prim<0>(C), g, sg, eps, dm, dp, em);
      more_fluct<NT>(em, load_more_c<NT>(w, j, i - 1, W.h), cC, dmm, dpm);
      Mx = dp, Mxm = dpm;
      roe_fluctuations(edge_prim<0>(C), edge_prim<0>(Ea), g, sg, eps, dm, dp, em);
      more_fluct<NT>(em, cC, load_more_c<NT>(w, j, i + 1, Ea.h), dmm, dpm);
      Mx = add(Mx, dm), Mxm = add(Mxm, dmm);
      roe_fluctuations(edge_prim<1>(S), edge_prim<1>(C), g, sg, eps, dm, dp, em);
      more_fluct<NT>(em, load_more_c<NT>(w, j - 1, i, S.h), cC, dmm, dpm);
      My = dp, Mym = dpm;
      roe_fluctuations(edge_prim<1>(C), edge_prim<1>(N), g, sg, eps, dm, dp, em);
      more_fluct<NT>(em, cC, load_more_c<NT>(w, j + 1, i, N.h), dmm, dpm);
      My = add(My, dm), Mym = add(Mym, dmm);
      More<NT> hcm0;
#pragma unroll
      for (int t = 1; t < NT; ++t) hcm0[t] = w.hc[t](j, i);
      // Each active cell marks its own square (plain stores of one value: QuietMap::mark),
      // which costs less than a team reduction of the tile's activity.
      if (update_cell<NT>(w.h(j, i), w.qx(j, i), w.qy(j, i), w.hc[0](j, i), hcm0, a.out, j, i, Mx, Mxm,
                          My, Mym, fx, fy, dt, a.has_n ? a.gn2_field(j, i) : a.gn2c, eps, a.clipped,
                          kWritesGhosts<StepSource> && a.ghosts.on, a.ghosts) &&
          q.on)
        q.mark(i, i + 1, j, j + 1);
    });
  }
};

/// Device body of flux_update_decoupled: teams of columns (Column). Every x-edge is solved by one
/// line of code and every y-edge by another, each once inside a team; an edge on a team's border is
/// solved by both teams on the same bits, so it gives the same result whichever team (tile, block)
/// solves it, and the fields do not depend on the decomposition. StepSource: HostStep or
/// DeviceStep.
template <class E, class StepSource, int NT, bool Ghosts, int L = kLanes>
struct DecoupledUpdateBody {
  using Col = Column<E, NT, L>;
  UpdateArgs<E> a;
  StepSource step;
  int rows;

  KOKKOS_INLINE_FUNCTION void operator()(const typename Col::Member& m) const {
    const Conserved<E>& w = a.w;
    const Box& b = a.b;
    const Real g = a.g, sg = a.sg, eps = a.eps;
    const QuietMap<E>& q = a.q;
    const StepFactors f = step.at(m);
    const Col col(m, b, rows);
    // Both step sources hand the update its step the same way, so that their kernels are the same
    // code, which nvcc fuses alike (README, "bit for bit").
    if constexpr (Col::kCarry > 0)
      col.put_carry(Col::kStepDt, f.dt), col.put_carry(Col::kStepFx, f.fx), col.put_carry(Col::kStepFy, f.fy);
    if (team_quiet(m, q, col.i0(), col.i1(b), col.j0, col.j0 + col.nrows)) return;
    const int i = col.i;
    // Only teams next to a side test their cells for ghost writes, so that the other teams' walks
    // carry no test; the writes take the values update_cell has just stored, not loads (docs/kernels.md).
    const bool ghosts = Ghosts && a.ghosts.near(col.i0(), col.i1(b), col.j0, col.j0 + col.nrows);
    bool act = false;  // this lane's cell was active in a row
    CellPrim below{0, 0, 0, 0, 0, 0};
    Real qx_below = 0, qy_below = 0, hc_below = 0;     // W^n of the cell below (h: below.h)
    Fluct mx_below{0, 0, 0, 0}, my_below{0, 0, 0, 0};  // its sums so far
    // The other tracers (NT > 1), likewise: the cell below's concentrations, h c and sums.
    More<NT> c_below, hcm_below, mxm_below, mym_below;
    RawCell next = col.load(w, a.H, col.j0 - 1);
    More<NT> next_more = col.load_more(w, col.j0 - 1);
#pragma unroll 1
    for (int r = -1; r <= col.nrows; ++r) {
      const int j = col.j0 + r;
      const RawCell raw = next;
      const More<NT> raw_more = next_more;
      if (r < col.nrows) next = col.load(w, a.H, j + 1), next_more = col.load_more(w, j + 1);
      const CellPrim c = make_cell_prim(raw.h, raw.qx, raw.qy, raw.hc, raw.H, eps);
      More<NT> cm;
#pragma unroll
      for (int t = 1; t < NT; ++t) cm[t] = concentration(raw.h, raw_more[t]);
      col.put_prim(c);
      col.put_more_c(cm);
      m.team_barrier();
      Fluct mx{0, 0, 0, 0}, my{0, 0, 0, 0};
      More<NT> mxm, mym;
      if (r >= 0) {
        // The y-edge south of row r: D- completes the cell below, D+ starts this cell's sum.
        Fluct dm, dp;
        EdgeMass em;
        More<NT> dmm, dpm;
        device_roe<1>(below, c, g, sg, eps, dm, dp, em);
        more_fluct<NT>(em, c_below, cm, dmm, dpm);
        if constexpr (Col::kCarry > 0) {
          if (r >= 1 && col.owned &&
              update_cell<NT>(below.h, col.carry(Col::kBelowQx), col.carry(Col::kBelowQy),
                              col.carry(Col::kBelowHc), hcm_below, a.out, j - 1, i,
                              Fluct{col.carry(Col::kBelowMx), col.carry(Col::kBelowMx + 1),
                                    col.carry(Col::kBelowMx + 2), col.carry(Col::kBelowMx + 3)},
                              mxm_below, add(my_below, dm), add(mym_below, dmm), col.carry(Col::kStepFx),
                              col.carry(Col::kStepFy), col.carry(Col::kStepDt),
                              a.has_n ? a.gn2_field(j - 1, i) : a.gn2c, eps, a.clipped, ghosts, a.ghosts))
            act = true;
        } else {
          if (r >= 1 && col.owned &&
              update_cell<NT>(below.h, qx_below, qy_below, hc_below, hcm_below, a.out, j - 1, i,
                              mx_below, mxm_below, add(my_below, dm), add(mym_below, dmm), f.fx, f.fy, f.dt,
                              a.has_n ? a.gn2_field(j - 1, i) : a.gn2c, eps, a.clipped, ghosts, a.ghosts))
            act = true;
        }
        my = dp, mym = dpm;
      }
      if (r >= 0 && r < col.nrows) {
        // The x-edge east of the cell: D- stays, D+ goes to the next lane.
        Fluct dm, dp;
        EdgeMass em;
        More<NT> dmm, dpm;
        device_roe<0>(c, col.east_prim(), g, sg, eps, dm, dp, em);
        more_fluct<NT>(em, cm, col.east_more_c(), dmm, dpm);
        col.put_east(dp);
        col.put_east_more(dpm);
        m.team_barrier();
        mx = add(col.from_west(), dm), mxm = add(col.from_west_more(), dmm);
      }
      if constexpr (Col::kCarry > 0) {
        col.put_carry(Col::kBelowQx, raw.qx), col.put_carry(Col::kBelowQy, raw.qy);
        col.put_carry(Col::kBelowHc, raw.hc);
        col.put_carry(Col::kBelowMx, mx.h), col.put_carry(Col::kBelowMx + 1, mx.qn);
        col.put_carry(Col::kBelowMx + 2, mx.qt), col.put_carry(Col::kBelowMx + 3, mx.hc);
      } else {
        qx_below = raw.qx, qy_below = raw.qy, hc_below = raw.hc, mx_below = mx;
      }
      below = c;
      c_below = cm, hcm_below = raw_more;
      my_below = my, mxm_below = mxm, mym_below = mym;
    }
    if (q.on) col.mark_active(m, q, b, act);
  }
};

/// The decoupled update, with the ghost writes where the step comes from the device.
template <class E, class StepSource, int NT>
using DecoupledUpdate = DecoupledUpdateBody<E, StepSource, NT, kWritesGhosts<StepSource>>;
/// Without the ghost writes' code, for launches that write none: the code costs the capped kernel
/// spills (ptxas), and the blocks of many teams are too large to write their ghosts
/// (Solver::update_ghosts_max_cells).
template <class E, class StepSource, int NT>
using DecoupledUpdateNoGhosts = DecoupledUpdateBody<E, StepSource, NT, false>;
/// The capped update: no ghost writes, teams of kCappedLanes.
template <class E, class StepSource, int NT>
using DecoupledUpdateCapped = DecoupledUpdateBody<E, StepSource, NT, false, kCappedLanes>;

/// Launches an update functor F<E, StepSource, NT> with the step's source: HostStep or DeviceStep
/// (StepDt).
template <template <class, class, int> class F, int NT, class E, class Policy, class... Rest>
void launch_update(const char* name, const Policy& policy, const StepDt& step,
                   const StepConstants& k, const UpdateArgs<E>& a, Rest... rest) {
  if (step.on_device()) {
    const DeviceStep s{step, Real(k.dx), Real(k.dy)};
    Kokkos::parallel_for(name, policy, F<E, DeviceStep, NT>{a, s, rest...});
  } else {
    const Real dt = step.value;
    const HostStep s{{dt, dt / Real(k.dx), dt / Real(k.dy)}};
    Kokkos::parallel_for(name, policy, F<E, HostStep, NT>{a, s, rest...});
  }
}

/// f(std::integral_constant<int, NT>) with NT = ntracers (1 to kMaxTracers): the update kernels
/// are compiled for each tracer count, so that one pass carries them all.
template <class F>
void with_tracers(int ntracers, const F& f) {
  static_assert(kMaxTracers == 4, "with_tracers instantiates 1 to 4 tracers");
  switch (ntracers) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    default:
      throw std::invalid_argument(std::to_string(ntracers) + " tracers: the update carries 1 to " +
                                  std::to_string(kMaxTracers));
  }
}

/// What an update's arguments must agree on: the state and its output carry the same tracers and
/// every field has one layout (check_layouts); the ghost layers are written only with the step
/// from the device; a host takes the step as a value.
template <class E>
void check_update(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                  const Field<E>& gn2_field, const StepDt& step, const StaticGhosts& ghosts) {
  check_layouts(w, H, &out, gn2_field);
  if (w.ntracers != out.ntracers)
    throw std::invalid_argument("the update reads " + std::to_string(w.ntracers) + " tracers and writes " +
                                std::to_string(out.ntracers));
  if (ghosts.on && !step.on_device())
    throw std::logic_error("the update writes ghost layers only with the step from the device");
  if (is_host_space<E>() && step.on_device())
    throw std::logic_error("host updates take the step as a value (StepDt::value)");
}

/// The update kernels' arguments of a launch.
template <class E>
UpdateArgs<E> update_args(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                          const Field<E>& gn2_field, const Box& box, const StepConstants& k,
                          const ClipCounter<E>& clipped, const QuietMap<E>& quiet,
                          const StaticGhosts& ghosts) {
  const bool has_n = gn2_field.extent(0) > 0;
  return {w, out, H, gn2_field, box, clipped, quiet, k.g, k.sqrt_g, k.eps_h, k.gn2, has_n, ghosts};
}

}  // namespace detail

/// Flux + update, recomputation variant: one thread a cell, four Roe problems a cell.
/// Tiles of quiet squares are skipped (QuietMap); the squares of active cells are marked.
/// One pass updates the water and every tracer of `w` (out: as many). With `ghosts` on (a step from
/// the device only), it also writes the ghost cells of `out` made of the cells it writes.
/// A device launches it on the instance `space` (a stream: OverlapSpaces); hosts ignore it.
template <class E>
void flux_update_recompute(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                           const Field<E>& gn2_field, const Box& box, const StepDt& step,
                           const StepConstants& k, const Tiling& tiling,
                           const ClipCounter<E>& clipped, const QuietMap<E>& quiet,
                           const detail::StaticGhosts& ghosts = {}, const E& space = E()) {
  if (box.empty()) return;
  detail::check_update(w, out, H, gn2_field, step, ghosts);
  detail::with_tracers(w.ntracers, [&](auto nt) {
    constexpr int NT = decltype(nt)::value;
    if constexpr (is_host_space<E>()) {
      // Host: one thread a tile, one cell a SIMD lane (kernels_host.hpp).
      detail::host_flux_update_recompute<NT>(w, out, H, gn2_field, box, step.value, k, tiling, clipped,
                                             quiet);
    } else {
      detail::launch_update<detail::RecomputeUpdate, NT>(
          "shwa::flux_update_recompute", detail::device_tile_policy<E>(box, tiling, space), step, k,
          detail::update_args(w, out, H, gn2_field, box, k, clipped, quiet, ghosts), tiling.tx, tiling.ty,
          detail::ceil_div(box.nx(), tiling.tx));
    }
  });
}

/// Flux + update, ghost-cell decoupling variant (devices: TeamPolicy, team scratch, one team a run
/// of columns, detail::Column; hosts: one thread a tile).
/// Tiles of quiet squares are skipped (QuietMap); the squares of active cells are marked.
/// One pass updates the water and every tracer of `w` (out: as many). With `ghosts` on (a step from
/// the device only), it also writes the ghost cells of `out` made of the cells it writes.
/// A device launches it on the instance `space` (a stream: OverlapSpaces); hosts ignore it.
template <class E>
void flux_update_decoupled(const Conserved<E>& w, const Conserved<E>& out, const Field<E>& H,
                           const Field<E>& gn2_field, const Box& box, const StepDt& step,
                           const StepConstants& k, const Tiling& tiling,
                           const ClipCounter<E>& clipped, const QuietMap<E>& quiet,
                           const detail::StaticGhosts& ghosts = {}, const E& space = E()) {
  if (box.empty()) return;
  detail::check_update(w, out, H, gn2_field, step, ghosts);
  detail::with_tracers(w.ntracers, [&](auto nt) {
    constexpr int NT = decltype(nt)::value;
    if constexpr (is_host_space<E>()) {
      // Host: one thread a tile sweeps it a row of edges at a time, SIMD (kernels_host.hpp); every
      // edge inside the tile is solved once.
      detail::host_flux_update_decoupled<NT>(w, out, H, gn2_field, box, step.value, k, tiling, clipped,
                                             quiet);
    } else {
      // One tracer's update without the ghost writes' code where it writes none (the writes cost
      // the capped kernel spills, docs/kernels.md), and in blocks of many teams with more warps a
      // multiprocessor (kUpdateCappedMinTeams) and teams of kCappedLanes; more tracers need more
      // registers, and keep the general bound and one kernel.
      using Col = detail::Column<E, NT>;
      const int rows = detail::update_rows<E>(box, tiling.rows);
      const auto args = detail::update_args(w, out, H, gn2_field, box, k, clipped, quiet, ghosts);
      if constexpr (NT == 1) {
        if (!ghosts.on) {
          using Capped = detail::Column<E, 1, detail::kCappedLanes>;
          if (Capped::teams(box, rows) >= detail::capped_update_teams<E>())
            detail::launch_update<detail::DecoupledUpdateCapped, NT>(
                "shwa::flux_update_decoupled",
                Capped::template policy<detail::kUpdateCappedMinTeams>(box, rows, space), step, k, args, rows);
          else
            detail::launch_update<detail::DecoupledUpdateNoGhosts, NT>(
                "shwa::flux_update_decoupled", Col::policy(box, rows, space), step, k, args, rows);
          return;
        }
      }
      detail::launch_update<detail::DecoupledUpdate, NT>(
          "shwa::flux_update_decoupled", Col::policy(box, rows, space), step, k, args, rows);
    }
  });
}

}  // namespace shwa
