// shwa/core/solver.hpp — one block's solver: its fields, its boundary conditions, its time loop.
//
// A step (docs/method.md section 6):
//   1. the physical sides' ghost layers are filled from the boundary conditions;
//   2. dt = min over all blocks of the CFL step of the owned cells (hosts: a parallel reduction;
//      devices: a pass of atomic maxima, cfl_max_z; then min_all across blocks),
//      clipped so the run lands exactly on the requested time (on a device with one block, the
//      update reads it from device memory: StepDt);
//   3. the flux + update kernel writes W^{n+1} into the second set of Views, which are then swapped;
//   4. every k-th step (k = the ghost width), the Exchanger refreshes the halos that face other
//      blocks; in between, the block also updates its halo cells, the valid region shrinking by one
//      cell a step ("ghost cell expansion", docs/method.md section 7).
#pragma once

#include "boundary.hpp"
#include "fields.hpp"
#include "grid.hpp"
#include "halo.hpp"
#include "kernels.hpp"
#include "params.hpp"
#include "streams.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

namespace shwa {

template <class E>
class Solver {
 public:
  using exec_space = E;

  Solver(const Grid& grid, const SolverParams& params, Boundaries bc = Boundaries{})
      : grid_(grid), params_(params), bc_(grid, std::move(bc)), cur_("W", grid, params.tracers),
        next_("Wnext", grid, params.tracers),
        H_("H", grid.ny_padded(), grid.nx_padded()),
        quiet_("quiet", grid.ny_padded(), grid.nx_padded(), grid.owned(), params.skip_dry) {
    params_.validate();
    if (params_.tiling.tx == 0) {
      params_.tiling.tx = default_tile<E>().tx;
      params_.tiling.ty = default_tile<E>().ty;
    }
    if (std::int64_t(params_.tiling.tx) * params_.tiling.ty > max_tile_cells<E>())
      throw std::invalid_argument("tile size " + std::to_string(params_.tiling.tx) + "x" +
                                  std::to_string(params_.tiling.ty) + " exceeds the " +
                                  std::to_string(max_tile_cells<E>()) + " cells a tile may have on " +
                                  E::name());
    if (grid.nx < 1 || grid.ny < 1 || grid.ng < 1)
      throw std::invalid_argument("grid needs at least one cell and one ghost layer");
    if (!(grid.dx > 0 && grid.dy > 0)) throw std::invalid_argument("dx and dy must be positive");
    if (!(params.eps_h >= kMinEpsH && params.eps_h <= 1))
      throw std::invalid_argument("eps_h " + std::to_string(params.eps_h) + " is outside [1e-12, 1] m");
    if (!(params.g >= kMinGravity && std::isfinite(params.g)))
      throw std::invalid_argument("g " + std::to_string(params.g) + " m/s^2 is not a finite value of at least 1e-6");
    k_.g = Real(params.g);
    k_.sqrt_g = Real(std::sqrt(params.g));
    k_.eps_h = Real(params.eps_h);
    k_.gn2 = Real(params.g * params.manning * params.manning);
    k_.dx = Real(grid.dx);
    k_.dy = Real(grid.dy);
  }

  const Grid& grid() const { return grid_; }
  const SolverParams& params() const { return params_; }
  const Boundaries& boundaries() const { return bc_.boundaries(); }
  /// W^n. Its owned cells are the state; its ghosts are refreshed by the step.
  const Conserved<E>& state() const { return cur_; }
  /// After a step, the owned cells of the state it started from, W^{n-1}, until the next step
  /// writes over them (a skipped square holds the same bits in both states).
  const Conserved<E>& previous_state() const { return next_; }
  /// Which squares of the state's cells are quiet: dry, and the same bits as the state before.
  const QuietMap<E>& quiet_map() const { return quiet_; }
  /// Bottom depth below the reference level (positive down), with ghost layers.
  const Field<E>& bathymetry() const { return H_; }
  double time() const { return time_; }
  long steps() const { return steps_; }
  void set_time(double t, long steps = 0) { time_ = t, steps_ = steps; }

  /// Per-cell Manning coefficient n (padded like the fields); replaces params.manning.
  void set_manning(const Field<E>& n) {
    gn2_ = Field<E>("gn2", grid_.ny_padded(), grid_.nx_padded());
    const Real g = Real(params_.g);
    auto gn2 = gn2_;
    Kokkos::parallel_for(
        "shwa::set_manning",
        Kokkos::MDRangePolicy<E, Kokkos::Rank<2>>({0, 0}, {grid_.ny_padded(), grid_.nx_padded()}),
        KOKKOS_LAMBDA(int j, int i) { gn2(j, i) = g * n(j, i) * n(j, i); });
  }

  /// Call once after the owned cells of the bathymetry (and Manning field) are set: fills their
  /// ghosts, and the conserved fields' ghosts, so the first step and the diagnostics see them.
  void finalize_setup(Exchanger<E>& ex) {
    ex.exchange_field(H_);
    bc_.template fill_static<E>(H_);
    if (gn2_.extent(0) > 0) {
      ex.exchange_field(gn2_);
      bc_.template fill_static<E>(gn2_);
    }
    ex.exchange(cur_);
    bc_.template fill<E>(cur_, H_, time_, k_.g, k_.eps_h);
    ghosts_from_update_ = false;
    since_exchange_ = 0;
    quiet_.reset();
  }

  /// The CFL step of the cells of `box` (no clipping, no reduction across blocks); `obs` watches
  /// the pass's cells (NoObserver, kernels.hpp).
  template <class Obs = NoObserver>
  Real local_dt(const Box& box, const Obs& obs = Obs()) const {
    return cfl_min_dt(cur_, H_, box, k_, Real(params_.cfl), params_.tiling, quiet_, host_pass_.data(), obs);
  }

  /// W^{n+1} over `box` from W^n, with the run's kernel variant: one launch updates the water and
  /// every tracer (the kernels are compiled for each number of tracers). The water's arithmetic
  /// does not read the tracers, and each tracer's is that of the first, so each tracer gets the
  /// bits it would get alone (tested).
  /// With the step from the device (StepDt::report set), only the step's first launch reports it:
  /// once the host has read that report it goes on to the next step and clears the report, and a
  /// later launch of this step would then write it again with this step's value. (Steps on that
  /// path launch one update: overlap is for blocks among others, which take the step on the host.)
  /// The device kernels run on the instance `space` (the default, or OverlapSpaces' band or
  /// interior); host updates run in turn.
  /// With `ghosts` on (a step from the device), it also writes the ghost cells made of the cells
  /// it writes (detail::StaticGhosts).
  void update(const Box& box, Real dt) { update(box, StepDt{dt}); }
  void update(const Box& box, const StepDt& dt, const E& space = E(),
              const detail::StaticGhosts& ghosts = {}) {
    if (box.empty()) return;
    StepDt launch = dt;
    if (!report_pending_) launch.report = nullptr, launch.clear = nullptr;
    report_pending_ = false;
    if (params_.variant == Variant::Recompute)
      flux_update_recompute(cur_, next_, H_, gn2_, box, launch, k_, params_.tiling, clipped_, quiet_,
                            ghosts, space);
    else
      flux_update_decoupled(cur_, next_, H_, gn2_, box, launch, k_, params_.tiling, clipped_, quiet_,
                            ghosts, space);
  }

  /// W^{n+1} becomes the state.
  void swap() {
    std::swap(cur_, next_);
    quiet_.advance();
  }

  /// The fraction of the owned cells' squares of the QuietMap that are quiet in the current state
  /// (0 with skipping off): how much dry land the next step skips, at most.
  double quiet_fraction() const {
    if (!quiet_.on) return 0;
    constexpr int K = QuietMap<E>::kCells;
    const Box o = grid_.owned();
    const int jb0 = o.j0 / K, jb1 = (o.j1 - 1) / K, ib0 = o.i0 / K, ib1 = (o.i1 - 1) / K;
    const auto last = quiet_.last;
    const int epoch = quiet_.epoch;
    long n = 0;
    Kokkos::parallel_reduce(
        "shwa::quiet_fraction", Kokkos::MDRangePolicy<E, Kokkos::Rank<2>>({jb0, ib0}, {jb1 + 1, ib1 + 1}),
        KOKKOS_LAMBDA(int jb, int ib, long& c) { c += last(jb, ib) < epoch ? 1 : 0; }, n);
    return double(n) / (double(jb1 - jb0 + 1) * double(ib1 - ib0 + 1));
  }

  /// Water volume [m^3] added by setting negative depths to zero since the start (this block).
  double clipped_volume() const {
    double v = 0;
    Kokkos::deep_copy(v, clipped_);
    return v * grid_.dx * grid_.dy;
  }

  /// Fills the physical sides' ghost layers at the current time.
  void fill_boundaries() { bc_.template fill<E>(cur_, H_, time_, k_.g, k_.eps_h); }

  /// Whether the update that made the state wrote its ghost layers too (see step()), so that the
  /// next step launches no fill.
  bool ghosts_from_update() const { return ghosts_from_update_; }
  /// The largest block whose update writes its ghost layers (see step()); 0: none, so the fill
  /// runs every step (tests, benchmarks).
  std::int64_t update_ghosts_max_cells() const { return update_ghosts_max_cells_; }
  void set_update_ghosts_max_cells(std::int64_t n) { update_ghosts_max_cells_ = n; }

  /// One step, never past t_stop. Returns the dt taken. `obs` is shown W^n, the state the step
  /// starts from, in the step's CFL pass over the owned cells (NoObserver, kernels.hpp): every
  /// owned cell but those the pass skips, quiet with quiet neighbours.
  /// With overlap, the step that ends a k-step cycle updates the band of owned cells that other
  /// blocks need and the interior on two instances (OverlapSpaces: two streams on a GPU): the
  /// band's update, pack, staging copy and send, and then the wait for the neighbours' cells and
  /// their unpack, go on while the interior is updated; the step ends when both are done. (With one
  /// instance, as on host backends, the band is updated and sent, then the interior computed
  /// while it travels, then the neighbours' cells are waited for.) Without overlap (or with
  /// nothing to exchange: a single block), the exchange follows the whole update. Either way the
  /// arithmetic of every cell is the same, so the fields are bit for bit those of one block.
  ///
  /// On a device with one block (no reduction across blocks) of at most device_step_max_cells()
  /// cells, the CFL pass leaves its largest Z_i in device memory and the update computes the step
  /// from it (StepDt): the host launches the update at once, and the device goes from the pass to
  /// the update without waiting for the host. The host learns the step when the update starts,
  /// from the value the update reports, by the same operations: the steps are bit for bit those of
  /// the host-side path (tested). Larger blocks take the step as kernel arguments, which cost the
  /// update kernels no registers; there the host's wait is a small part of a step
  /// (docs/kernels.md). On blocks of at most update_ghosts_max_cells() cells, that update also
  /// writes the ghost layers of W^{n+1} where every side's rule is static (wall or open:
  /// BoundaryFiller::static_ghosts), and the next step fills none.
  template <class Obs = NoObserver>
  double step(double t_stop, Exchanger<E>& ex, const Obs& obs = Obs()) {
    const int k = grid_.ng;
    if (!ghosts_from_update_) fill_boundaries();
    ghosts_from_update_ = false;
    const double left = t_stop - time_;
    const Real num = Real(2) * Real(params_.cfl) * k_.dx * k_.dy;
    StepDt sd;
    double dt = 0;
    bool on_device = false;
    if constexpr (DeviceReport<E>::kAvailable) {
      if (ex.single_block() && grid_.owned().size() <= device_step_max_cells_) {
        on_device = true;
        // A device step whose update never launched (it threw) left this slot uncleared.
        if (report_pending_) Kokkos::deep_copy(E(), Kokkos::subview(pass_, zslot_), PassResult{0, 0});
        PassResult* const slot = pass_.data() + zslot_;
        const int rows = detail::cfl_rows<E>(grid_.owned(), params_.tiling, teams_run_, cfl_rows_, cfl_resident_);
        cfl_max_z(cur_, H_, grid_.owned(), k_, rows, quiet_, slot, obs);
        cfl_rows_ = rows;
        report_().zmax = Real(-1);
        report_pending_ = true;
        zslot_ ^= 1;
        sd = StepDt{0, slot, num, left, report_.data(), pass_.data() + zslot_};
      }
    }
    if (!on_device) {
      dt = ex.min_all(double(local_dt(grid_.owned(), obs)));
      if (!(dt > 0))
        throw std::runtime_error("non-positive or NaN time step at t = " + std::to_string(time_));
      dt = clip_step(dt, left);
      sd.value = Real(dt);
    }
    const bool exchange_after = since_exchange_ + 1 >= k;
    if (exchange_after && overlap_ && !ex.single_block()) {
      Box interior, band[4];
      grid_.split_for_overlap(k, interior, band);
      const OverlapSpaces<E>& sp = overlap_spaces();
      for (const Box& b : band) update(b, sd, sp.band());
      // Two streams: the band's pack (and staging copy) queued right behind its update, then the
      // interior's update, and only then does the host wait for the band's stream and send, so
      // the pack is not queued behind the interior's teams. One instance (as on host backends):
      // the band is sent at once and travels while the interior is computed.
      ex.begin_exchange(next_, sp.band(), sp.distinct() ? Send::AtEnd : Send::Now);
      update(interior, sd, sp.interior());
      ex.end_exchange(next_);
      sp.fence();
    } else {
      const bool ghosts = on_device && static_ghosts_.on && grid_.owned().size() <= update_ghosts_max_cells_;
      update(grid_.grown_inner(k - 1 - since_exchange_), sd, E(), ghosts ? static_ghosts_ : detail::StaticGhosts{});
      if (exchange_after) ex.exchange(next_);
      ghosts_from_update_ = ghosts;
    }
    if (on_device) {
      const PassResult pass = reported_pass();
      teams_run_ = pass.teams_run;
      dt = clip_step(double(cfl_step(pass.zmax, num)), left);
      if (!(dt > 0))
        throw std::runtime_error("non-positive or NaN time step at t = " + std::to_string(time_));
    }
    const bool last = dt >= left;
    swap();
    since_exchange_ = exchange_after ? 0 : since_exchange_ + 1;
    ++steps_;
    time_ = last ? t_stop : time_ + dt;
    return dt;
  }

  /// Waits for the CFL pass's result that the update launched by step() reports (StepDt::report):
  /// the update's first team writes it as the kernel starts, its Z_i last. Past a second without
  /// it, waits for the device, which raises a failed kernel's error, and then it must be there.
  PassResult reported_pass() const {
    const volatile PassResult* r = report_.data();
    const auto start = std::chrono::steady_clock::now();
    for (long spins = 1; r->zmax < Real(0); ++spins) {
      if (spins % 4096 == 0 && std::chrono::steady_clock::now() - start > std::chrono::seconds(1)) {
        Kokkos::fence();
        if (r->zmax < Real(0)) throw std::logic_error("the update kernel did not report the time step");
      }
    }
    return PassResult{r->zmax, r->teams_run};
  }

  /// Overlap the halo exchange with the interior update (see step()).
  void set_overlap(bool on) { overlap_ = on; }
  /// The instances an overlapped step runs the band and the interior on (created at first use).
  const OverlapSpaces<E>& overlap_spaces() {
    if (!spaces_) spaces_ = std::make_unique<OverlapSpaces<E>>();
    return *spaces_;
  }

  /// The largest block whose update reads its step from the device (see step()); 0: none.
  std::int64_t device_step_max_cells() const { return device_step_max_cells_; }
  void set_device_step_max_cells(std::int64_t n) { device_step_max_cells_ = n; }

  /// Rows a team of the last device CFL pass that took the step to the device (0: none yet).
  int last_cfl_rows() const { return cfl_rows_; }
  /// The teams of that pass the device holds at once, from which its rows are chosen
  /// (detail::cfl_rows; 0: the rows follow the block's size alone). Tests set others.
  long cfl_resident_teams() const { return cfl_resident_; }
  void set_cfl_resident_teams(long n) { cfl_resident_ = n; }

  /// Steps until t_stop.
  void advance_to(double t_stop, Exchanger<E>& ex) {
    while (time_ < t_stop) step(t_stop, ex);
  }


 private:
  Grid grid_;
  SolverParams params_;
  BoundaryFiller bc_;
  StepConstants k_;
  Conserved<E> cur_, next_;
  Field<E> H_, gn2_;
  QuietMap<E> quiet_;
  ClipCounter<E> clipped_{"clipped"};
  bool report_pending_ = false;  // the step's first update launch is still to report (update())
  // The CFL pass's result for StepDt, two slots used in turn: a step's pass raises slot zslot_ from
  // zeros, and its update clears the other for the next step's pass (StepDt::clear).
  Kokkos::View<PassResult[2], typename E::memory_space> pass_{"cfl_pass"};
  int zslot_ = 0;
  Kokkos::View<PassResult, typename DeviceReport<E>::space> report_{"cfl_pass_report"};
  // The result of the CFL pass whose step the host takes (local_dt), zeros between passes.
  Kokkos::View<PassResult, typename E::memory_space> host_pass_{"cfl_pass_host"};
  long teams_run_ = 0;  // teams of the last reported pass that ran
  int cfl_rows_ = 0;    // that pass's rows a team
  long cfl_resident_ = detail::cfl_resident_teams<E>();
  double time_ = 0;
  long steps_ = 0;
  int since_exchange_ = 0;  // steps since the halos were exchanged
  bool overlap_ = false;
  std::unique_ptr<OverlapSpaces<E>> spaces_;
  detail::StaticGhosts static_ghosts_ = bc_.static_ghosts();  // the update's ghost writes (step())
  // Where writing the ghosts cost the update less than the fill's launch saves (docs/kernels.md).
  std::int64_t update_ghosts_max_cells_ =
      params_.variant == Variant::Recompute ? std::int64_t(1024) * 1024 : std::int64_t(768) * 768;
  bool ghosts_from_update_ = false;  // the state's ghosts were written by the update that made it
  // Where the update's step from the device costs it less than the host's wait (docs/kernels.md).
  std::int64_t device_step_max_cells_ =
      params_.variant == Variant::Recompute ? std::int64_t(1024) * 1024 : std::int64_t(4096) * 4096;
};

}  // namespace shwa
