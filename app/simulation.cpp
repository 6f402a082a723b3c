// shwa/app/simulation.cpp — the time loop of a run; see simulation.hpp.
//
// Restart is bit-identical to an uninterrupted run because everything a step depends on is
// restored exactly: the owned cells of W (stored in the run's precision), the time and the step
// count (doubles and integers as written), the maxima maps; the ghost cells are a function of
// the owned cells and the time, refilled before each step. The steps stop at the same times:
// each step ends at min(t + dt, next output time), and checkpoints are taken after a step,
// without shortening any.
//
// What a step of the loop costs beyond the solver's step: device work only (the maxima, which
// also watch the state's health, folded in the next step's CFL pass or, where something reads them
// first, by a pass of their own; a gauge sample into a device buffer), no copy to the host, no MPI
// call, no fence. The host looks at the state only periodically:
//   - health checks every numerics.health_interval steps, at each output and before each
//     checkpoint read the device's health record (monitors.hpp). A blow-up is so reported at most
//     health_interval steps after the step that produced it, naming that step, its time and the
//     first bad cell. Without maxima the health check scans the state itself.
//   - gauge samples reach gauges.csv at outputs, checkpoints, the end, a blow-up, and when the
//     device buffer is full (kGaugeRows rows): the same rows and values as writing each one as it
//     is taken, and every row up to a checkpoint is in the file before the checkpoint is.
// A SIGINT, SIGTERM or SIGHUP (signals.hpp) stops the run after a step, with a checkpoint. One process
// looks at the signal after every step; several ranks agree on it at the health checks, in the
// reduction those make anyway, so they stop after the same step with no MPI call of their own.
// The step's time step dt reaches the host in every step (it ends the step); that is the loop's
// one synchronisation. The loop is timed as a whole, less the outputs and checkpoints in it, and
// its phases are Kokkos profiling regions (shwa::step, shwa::monitors, shwa::output,
// shwa::checkpoint, shwa::gauges) for tools.
#include "simulation.hpp"

#include "affinity.hpp"
#include "checkpointing.hpp"
#include "monitors.hpp"
#include "outputs.hpp"
#include "progress.hpp"
#include "run_outputs.hpp"
#include "signals.hpp"
#include "time_loop.hpp"

#include "diagnostics.hpp"
#include "halo.hpp"
#include "init.hpp"
#include "solver.hpp"

#include "io/error.hpp"
#include "io/text.hpp"

#ifdef SHWA_WITH_MPI
#include "mpi_collective.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>

namespace shwa::app {

HostValues Collective::gather(HostValues owned, const Grid& block) {
  if (ranks() == 1) return owned;
  HostValues whole;
  gather(owned, block, whole);
  return whole;
}

void Collective::gather(const HostValues& owned, const Grid& block, HostValues& whole) {
  if (owned.size() != std::size_t(block.owned_cells()))
    throw std::logic_error("Collective::gather: " + std::to_string(owned.size()) + " values for a block of " +
                           std::to_string(block.owned_cells()) + " cells");
  if (root()) resize_for_overwrite(whole, std::size_t(block.nx_global) * std::size_t(block.ny_global));
  gather(owned.data(), block, root() ? whole.data() : nullptr);
}

void SingleRank::gather(const double* owned, const Grid& block, double* whole) {
  std::copy(owned, owned + block.owned_cells(), whole);
}

std::vector<double> SingleRank::scatter(const double* global, const Grid& block) {
  return std::vector<double>(global, global + block.owned_cells());
}

namespace {

using Clock = std::chrono::steady_clock;

/// Gauge samples the device buffer holds before they are written.
constexpr int kGaugeRows = 256;

/// The same grid without ghost layers, for the maxima maps.
Grid unpadded(Grid g) {
  g.ng = 0;
  return g;
}

/// A whole-grid array of the run's precision for a checkpoint (converted on every CPU of the run).
std::variant<io::HostArray<double>, io::HostArray<float>> in_run_precision(HostValues&& v) {
  if constexpr (sizeof(Real) == sizeof(double)) {
    return std::move(v);
  } else {
    io::HostArray<float> f(v.size());
    for_cell_runs(v.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) f[k] = float(v[k]);
    });
    return f;
  }
}

/// A checkpoint array as doubles (exact: the values are of the run's precision): the array itself
/// in double precision, else its values converted into `scratch` on every CPU of the run.
const HostValues& as_doubles(const io::Checkpoint& c, const std::string& name, [[maybe_unused]] HostValues& scratch) {
  if constexpr (sizeof(Real) == sizeof(double)) {
    return c.doubles(name);
  } else {
    const io::HostArray<float>& f = c.floats(name);
    resize_for_overwrite(scratch, f.size());
    for_cell_runs(f.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) scratch[k] = double(f[k]);
    });
    return scratch;
  }
}

double meta_double(const io::Checkpoint& c, const std::string& path, const std::string& key) {
  auto it = c.metadata.find(key);
  std::optional<double> x = it == c.metadata.end() ? std::nullopt : io::parse_double(it->second);
  if (!x) throw io::InputError(path + ": checkpoint metadata '" + key + "' is missing or not a number");
  return *x;
}

/// The run on one block: its state on the device and the jobs of its time loop around the
/// solver's steps (monitors, gauges, outputs, checkpoints, the summary). The host-side jobs that
/// touch no field are time_loop.hpp's (when to write, timing) and run_outputs.hpp's (the files).
template <class E>
class BlockRun {
 public:
  BlockRun(const RunConfig& cfg, const RunOptions& opt, const Grid& block, Exchanger<E>& ex, Collective& coll)
      : cfg_(cfg), opt_(opt), block_(block), ex_(ex), coll_(coll), solver_(block, cfg.params, cfg.bc),
        diag_(block), maxima_(block, cfg.params.tracers), outputs_(cfg, opt, coll) {
    solver_.set_overlap(cfg.parallel.overlap);
  }

  void set_parallel(int px, int py, const std::string& transport) { px_ = px, py_ = py, transport_ = transport; }

  RunStats run();

 private:
  // Set-up.
  void set_up();
  void restore(const std::string& path);
  void start_monitors();
  // Stepping.
  double step(double stop);
  void after_step(double t_before, double dt, double stop, OutputSchedule& schedule, LoopTimer& timer);
  // Monitors: the maxima and health record on the device, read at health checks.
  void update_monitors();
  MaximaFold<E> maxima_fold() const {
    return MaximaFold<E>(solver_.state(), block_, maxima_, solver_.time(), solver_.steps(),
                         Real(cfg_.out.arrival_threshold), health_, solver_.quiet_map());
  }
  void settle_maxima();
  void check_health();
  [[noreturn]] void blow_up(const std::string& what);
  // Gauges: samples on the device, written at outputs, checkpoints and when the buffer is full.
  void record_gauges(double t, double t_before);
  void flush_gauges();
  // Outputs and checkpoints.
  // A field's owned cells on the root, through the output's device buffer (stage_).
  HostValues gather(const Field<E>& f, const Grid& g) {
    HostValues owned;
    resize_for_overwrite(owned, std::size_t(g.owned_cells()));
    owned_to_host(f, g, owned, stage_);
    return coll_.gather(std::move(owned), g);
  }
  void describe(Frame& f, int index) const;
  const Frame& frame(int index);
  Frame maxima_frame();
  void gather_whole(Frame& f);
  /// The maxima maps by their names in files (maxima_names): hmax, each pollutant's cmax and arrival.
  std::vector<std::pair<std::string, Field<E>>> maxima_maps() const {
    std::vector<std::pair<std::string, Field<E>>> maps{{"hmax", maxima_.hmax}};
    for (std::size_t p = 0; p < cfg_.pollutants.size(); ++p)
      maps.emplace_back(pollutant_field("cmax", cfg_.pollutants[p]), maxima_.cmax[p]);
    for (std::size_t p = 0; p < cfg_.pollutants.size(); ++p)
      maps.emplace_back(pollutant_field("arrival", cfg_.pollutants[p]), maxima_.arrival[p]);
    return maps;
  }
  void write_output(int index);
  void write_checkpoint();
  void write_checkpoint_now();
  // The end.
  [[noreturn]] void stop_interrupted();
  [[noreturn]] void stop_at_step_limit();
  void finish_outputs();
  void compare_with_exact();
  void summarize(const LoopTimer::Times& loop, long steps0, std::chrono::steady_clock::time_point t_start);

  const RunConfig& cfg_;
  RunOptions opt_;
  Grid block_;
  Exchanger<E>& ex_;
  Collective& coll_;
  Solver<E> solver_;
  Diagnostics<E> diag_;
  Maxima<E> maxima_;
  HealthRecord<E> health_;
  GaugeBuffer<E> gauge_buffer_;
  std::vector<bool> gauge_here_;  // gauge k lies in this block
  RunOutputs outputs_;
  HostValues H_global_;  // on the root
  // The buffers of an output, kept from one to the next (resources.hpp counts them): the frame,
  // the block's conserved fields and bottom on the host, and (where the host cannot read the
  // device) a device buffer of a field's owned cells.
  Frame frame_;
  HostValues host_h_, host_qx_, host_qy_, host_H_;
  std::vector<HostValues> host_hc_;
  OwnedStage<Field<E>> stage_;
  int px_ = 1, py_ = 1;
  std::string transport_ = "none";

  std::string last_checkpoint_;
  long checkpoint_step_ = -1;  // the step of the last checkpoint this run wrote
  bool stop_ = false;          // every rank knows a signal asked the run to stop, or it took max_steps
  bool step_limit_ = false;    // the run stopped at numerics.max_steps
  double clipped_before_ = 0;  // clipped volume of the runs before a restart
  long frames_ = 0;            // output frames written since the run began (-1: unknown)
  bool maxima_pending_ = false;  // the current state is not yet folded into the maxima (settle_maxima)
  double quiet_sum_ = 0;       // the fraction of quiet squares (skipped dry land) at output times...
  int quiet_samples_ = 0;      // ... over this many outputs
  RunStats stats_;
  double copy_s_ = 0;  // the seconds of the last frame's copies from the device
};

template <class E>
void BlockRun<E>::set_up() {
  const InitialState& s = cfg_.init;
  const Domain& g = cfg_.grid;
  // load_config kept the initial state of this rank's block (or of a larger part of the grid).
  if (!s.holds(block_.ioff, block_.joff) || !s.holds(block_.ioff + block_.nx - 1, block_.joff + block_.ny - 1))
    throw std::logic_error("the initial state does not cover the block of this rank");
  // The initial condition is given at cell centres; the global index of a centre is exact. The
  // block's rows are shared over the run's CPUs (the function reads the initial state only).
  const auto at_centre = [&](double x, double y, CellInit& c) {
    const std::size_t k = s.index(g.column_of(x), g.row_of(y));
    c.H = s.H[k];
    c.h = s.h[k];
    c.u = s.u[k];
    c.v = s.v[k];
    for (std::size_t p = 0; p < s.c.size(); ++p) c.c[p] = s.c[p][k];
    if (!s.n.empty()) c.n = s.n[k];
  };
  const auto on_cpus = [](int rows, const auto& body) {
    for_row_runs(rows, [&](int, int j0, int j1) { body(j0, j1); });
  };
  initialize(solver_, ex_, at_centre, on_cpus);
  const Conserved<E>& w = solver_.state();
  Kokkos::deep_copy(maxima_.hmax, Real(0));
  for (int p = 0; p < maxima_.ntracers; ++p) Kokkos::deep_copy(maxima_.cmax[p], Real(0));
  stats_.volume_initial = ex_.sum_all(diag_.volume(w));
  stats_.mass_initial.clear();
  for (int p = 0; p < w.ntracers; ++p) stats_.mass_initial.push_back(ex_.sum_all(diag_.pollutant_mass(w, p)));
  H_global_ = gather(solver_.bathymetry(), block_);
}

/// Puts the state of a checkpoint into the solver and the maxima; validated against this run.
template <class E>
void BlockRun<E>::restore(const std::string& path) {
  io::Checkpoint c;
  coll_.collectively([&] {
    if (!coll_.root()) return;
    c = io::read_checkpoint(path, io::Workers{process_cpu_count(), use_process_cpus});
    check_restart(c, path, cfg_, outputs_.definition());
    for (const char* key : {"dt_min", "dt_max", "volume_initial", "clipped_volume"}) meta_double(c, path, key);
    for (const std::string& p : cfg_.pollutants) meta_double(c, path, pollutant_field("mass_initial", p));
  });
  // The root's metadata on every rank (doubles as written, exactly): 7 values, then each
  // pollutant's initial mass.
  const std::size_t np = cfg_.pollutants.size();
  std::vector<double> meta(7 + np, 0.0);
  if (coll_.root()) {
    meta = {c.time, double(c.step), meta_double(c, path, "dt_min"), meta_double(c, path, "dt_max"),
            meta_double(c, path, "volume_initial"), meta_double(c, path, "clipped_volume"),
            // The frames written before (older checkpoints do not record them: -1, unknown).
            c.metadata.count("frames") ? meta_double(c, path, "frames") : -1.0};
    for (const std::string& p : cfg_.pollutants) meta.push_back(meta_double(c, path, pollutant_field("mass_initial", p)));
  }
  coll_.broadcast(meta);
  // Each array, as doubles on the root, into the block's owned cells: with one rank straight from
  // those doubles, else scattered from the root.
  HostValues scratch;  // a single-precision array's doubles
  const auto put = [&](const Field<E>& f, const Grid& g, const std::string& name) {
    const double* whole = coll_.root() ? as_doubles(c, name, scratch).data() : nullptr;
    if (coll_.ranks() == 1)
      owned_from_host(f, g, whole, stage_);
    else
      owned_from_host(f, g, coll_.scatter(whole, block_).data(), stage_);
  };
  const Conserved<E>& w = solver_.state();
  for (int k = 0; k < w.size(); ++k) put(w[k], block_, Conserved<E>::name(k));
  if (cfg_.out.maxima) {
    const Grid mg = unpadded(block_);
    for (const auto& map : maxima_maps()) put(map.second, mg, map.first);
  }
  solver_.finalize_setup(ex_);
  solver_.set_time(meta[0], long(meta[1]));
  stats_.dt_min = meta[2];
  stats_.dt_max = meta[3];
  stats_.volume_initial = meta[4];
  clipped_before_ = meta[5];
  frames_ = long(meta[6]);
  stats_.mass_initial.assign(meta.begin() + 7, meta.end());
  stats_.restarted_from = meta[0];
  last_checkpoint_ = path;
}

/// The gauges' cells in this block and their device buffer; the range of time steps (that of
/// the runs before on a restart); the maxima of the initial state.
template <class E>
void BlockRun<E>::start_monitors() {
  std::vector<int> cells;
  const Domain& g = cfg_.grid;
  for (const io::GaugePoint& p : cfg_.out.gauges) {
    const int i = g.column_of(p.x) - block_.ioff, j = g.row_of(p.y) - block_.joff;
    const bool here = i >= 0 && i < block_.nx && j >= 0 && j < block_.ny;
    gauge_here_.push_back(here);
    cells.push_back(here ? i : 0);
    cells.push_back(here ? j : 0);
  }
  gauge_buffer_ = GaugeBuffer<E>(block_, cells, solver_.state().size(), kGaugeRows);
  stats_.dt_min = opt_.restart ? stats_.dt_min : std::numeric_limits<double>::infinity();
  stats_.dt_max = opt_.restart ? stats_.dt_max : 0.0;
  if (!opt_.restart && cfg_.out.maxima)
    update_maxima(solver_.state(), block_, maxima_, 0.0, solver_.steps(), Real(cfg_.out.arrival_threshold), health_);
}

/// Takes the gauge sample at time t into the device buffer, first writing the buffer out if it is
/// full: of the current state where t is its time, else linear in time between the state the last
/// step started from, at t_before, and the current one (t_before < t < the current time).
template <class E>
void BlockRun<E>::record_gauges(double t, double t_before) {
  if (cfg_.out.gauges.empty()) return;
  if (gauge_buffer_.full()) {
    Kokkos::fence();
    const Region region("shwa::gauges");
    flush_gauges();
  }
  if (t == solver_.time())
    gauge_buffer_.record(solver_.state(), t);
  else
    gauge_buffer_.record(solver_.previous_state(), t_before, solver_.state(), solver_.time(), t);
}

/// Writes the samples of the gauge buffer to gauges.csv (collective: every rank calls it at the
/// same point).
template <class E>
void BlockRun<E>::flush_gauges() {
  if (cfg_.out.gauges.empty() || gauge_buffer_.rows() == 0) return;
  std::vector<double> times, raw;
  std::tie(times, raw) = gauge_buffer_.take();
  outputs_.write_gauges(times, raw, gauge_here_);
}

/// After each step: the state is due to be folded into the maxima maps (MaximaFold, which also
/// marks unhealthy cells in the health record): the next step's CFL pass folds it as it reads the
/// state (step), and whatever reads the maps or the record before that folds it first
/// (settle_maxima). A health check every health_interval steps.
template <class E>
void BlockRun<E>::update_monitors() {
  if (cfg_.out.maxima) maxima_pending_ = true;
  if (solver_.steps() % cfg_.health_interval == 0) check_health();
}

/// Folds the current state into the maxima if no step's CFL pass has yet: a pass of its own
/// (device work only).
template <class E>
void BlockRun<E>::settle_maxima() {
  if (!maxima_pending_) return;
  update_maxima(solver_.state(), block_, maxima_, solver_.time(), solver_.steps(), Real(cfg_.out.arrival_threshold),
                health_, solver_.quiet_map());
  maxima_pending_ = false;
}

/// Stops the run (blow_up) if any block's state went bad since the start, or if clipping added
/// too much water. With maxima every step's state was watched; without, the current one is
/// scanned now. Collective.
template <class E>
void BlockRun<E>::check_health() {
  settle_maxima();
  if (!cfg_.out.maxima) record_health(solver_.state(), block_, solver_.time(), solver_.steps(), health_);
  const auto bad = health_.read();
  // One reduction answers both questions: the minimum is the first bad step of any block if
  // there is one (a blow-up wins), else kStopAsked if a signal reached any rank, else infinity.
  constexpr double kStopAsked = std::numeric_limits<double>::max();
  const double first = ex_.min_all(bad.bad()       ? double(bad.step)
                                   : stop_signal() ? kStopAsked
                                                   : std::numeric_limits<double>::infinity());
  if (first < kStopAsked) blow_up("non-finite values or negative depths");
  if (first == kStopAsked) stop_ = true;
  const double clipped = clipped_before_ + ex_.sum_all(solver_.clipped_volume());
  const double limit = cfg_.max_clipped_fraction * std::max(stats_.volume_initial, block_.dx * block_.dy);
  if (clipped > limit)
    blow_up("the water added by clipping negative depths, " + io::format_double(clipped) + " m^3, exceeds " +
            "numerics.max_clipped_fraction of the initial volume (" + io::format_double(limit) + " m^3)");
}

/// Stops the run (collective): writes the gauge samples taken, and names the step, the step and
/// time at which the state first went bad, the first bad cell (of the block that saw it first)
/// and its values now, and the last good checkpoint.
template <class E>
void BlockRun<E>::blow_up(const std::string& what) {
  try {
    flush_gauges();  // the samples up to here, for the post-mortem
  } catch (const std::exception&) {
    // The blow-up is the error to report; a gauge file that cannot be written is secondary.
  }
  const long step = solver_.steps();
  std::string msg = "blow-up found after step " + std::to_string(step) + " (t = " +
                    io::format_double(solver_.time()) + " s): " + what;
  // The current state too, in case no kernel has looked at it yet (a step that failed).
  record_health(solver_.state(), block_, solver_.time(), step, health_);
  const auto bad = health_.read();
  const double first = ex_.min_all(bad.bad() ? double(bad.step) : std::numeric_limits<double>::infinity());
  const bool mine = bad.bad() && double(bad.step) == first;
  if (mine) {
    const int i = int(bad.cell % block_.nx), j = int(bad.cell / block_.nx);
    auto value = [&](const Field<E>& f) {
      auto one = Kokkos::subview(f, j + block_.ng, i + block_.ng);
      Real x;
      Kokkos::deep_copy(x, one);
      return io::format_double(double(x));
    };
    const Conserved<E>& w = solver_.state();
    if (bad.step != step)
      msg += ", first seen after step " + std::to_string(bad.step) + " (t = " + io::format_double(bad.time) + " s)";
    msg += "; first in cell (" + std::to_string(i + block_.ioff) + ", " + std::to_string(j + block_.joff) +
           ") at x = " + io::format_double(block_.xc(i + block_.ng)) + ", y = " +
           io::format_double(block_.yc(j + block_.ng)) +
           (bad.step != step ? ", which after step " + std::to_string(step) + " holds " : std::string(": "));
    for (int k = 0; k < w.size(); ++k) msg += (k ? ", " : "") + Conserved<E>::name(k) + " = " + value(w[k]);
  }
  msg += last_checkpoint_.empty() ? "; no checkpoint was written"
                                  : "; the last good checkpoint is " + last_checkpoint_;
  // Every rank gets here together; the message of the first rank that saw the first bad state wins.
  coll_.agree(mine ? std::make_exception_ptr(BlowUp(msg)) : nullptr);
  throw BlowUp(msg);
}

/// A frame's time and geometry.
template <class E>
void BlockRun<E>::describe(Frame& f, int index) const {
  f.index = index;
  f.time = solver_.time();
  f.grid = cfg_.grid;
  f.piece = block_.extent();
  f.pieces = coll_.pieces(f.piece);
  f.rank = coll_.rank();
  f.ranks = coll_.ranks();
}

/// The fields of the current state, in the buffers of the frame before (same names and sizes).
template <class E>
const Frame& BlockRun<E>::frame(int index) {
  Frame& f = frame_;
  describe(f, index);
  copy_s_ = 0;
  add_seconds(copy_s_, [&] {
    const Conserved<E>& w = solver_.state();
    const std::size_t n = std::size_t(block_.owned_cells());
    host_hc_.resize(std::size_t(w.ntracers));
    for (HostValues* v : {&host_h_, &host_qx_, &host_qy_}) resize_for_overwrite(*v, n);
    for (HostValues& v : host_hc_) resize_for_overwrite(v, n);
    owned_to_host(w.h, block_, host_h_, stage_);
    owned_to_host(w.qx, block_, host_qx_, stage_);
    owned_to_host(w.qy, block_, host_qy_, stage_);
    for (int p = 0; p < w.ntracers; ++p) owned_to_host(w.hc[p], block_, host_hc_[std::size_t(p)], stage_);
    if (host_H_.empty()) {  // the bottom does not change
      resize_for_overwrite(host_H_, n);
      owned_to_host(solver_.bathymetry(), block_, host_H_, stage_);
    }
  });
  derived_fields(host_h_, host_qx_, host_qy_, host_hc_, host_H_, cfg_.params.eps_h, cfg_.pollutants, f.local);
  gather_whole(f);
  return f;
}

/// The whole grid's fields on the root, where several ranks hold it (Frame::whole).
template <class E>
void BlockRun<E>::gather_whole(Frame& f) {
  if (coll_.ranks() == 1) return;
  HostValues none;  // what ranks other than the root gather into: nothing
  for (const auto& [name, v] : f.local) coll_.gather(v, block_, coll_.root() ? f.global[name] : none);
}

/// The maxima maps, at the end, in the storage of the block's output buffers (more than the maps),
/// the rest of which is freed first, with the frame's whole-grid fields: the run's peak of memory
/// stays that of an output (resources.hpp), and the block's maps cost no fresh pages, which the
/// kernel would zero one by one.
template <class E>
Frame BlockRun<E>::maxima_frame() {
  settle_maxima();
  std::vector<HostValues> spare;
  for (auto& field : frame_.local) spare.push_back(std::move(field.second));
  for (HostValues* v : {&host_h_, &host_qx_, &host_qy_}) spare.push_back(std::move(*v));
  for (HostValues& v : host_hc_) spare.push_back(std::move(v));
  frame_ = Frame();
  host_h_ = host_qx_ = host_qy_ = HostValues();
  host_hc_.clear();
  Frame f;
  describe(f, -1);
  for (const auto& map : maxima_maps())
    if (!spare.empty()) {
      f.local[map.first] = std::move(spare.back());
      spare.pop_back();
    }
  spare.clear();
  copy_s_ = 0;
  add_seconds(copy_s_, [&] {
    const Grid mg = unpadded(block_);
    for (const auto& map : maxima_maps()) {
      HostValues& v = f.local[map.first];
      resize_for_overwrite(v, std::size_t(mg.owned_cells()));
      owned_to_host(map.second, mg, v, stage_);
    }
  });
  for (const std::string& p : cfg_.pollutants)
    for (double& t : f.local[pollutant_field("arrival", p)])
      if (t < 0) t = std::numeric_limits<double>::quiet_NaN();  // never reached
  gather_whole(f);
  return f;
}

template <class E>
void BlockRun<E>::write_checkpoint() {
  add_seconds(stats_.checkpoints_s, [&] { write_checkpoint_now(); });
}

template <class E>
void BlockRun<E>::write_checkpoint_now() {
  check_health();  // never save a broken state
  flush_gauges();  // every gauge row up to the checkpoint's time is in the file before it
  io::Checkpoint c;
  c.precision = int(sizeof(Real));
  c.nx = cfg_.grid.nx;
  c.ny = cfg_.grid.ny;
  c.time = solver_.time();
  c.step = solver_.steps();
  const Conserved<E>& w = solver_.state();
  for (int k = 0; k < w.size(); ++k) c.arrays[Conserved<E>::name(k)] = in_run_precision(gather(w[k], block_));
  if (cfg_.out.maxima) {
    const Grid mg = unpadded(block_);
    for (const auto& [name, map] : maxima_maps()) c.arrays[name] = in_run_precision(gather(map, mg));
  }
  const double clipped = clipped_before_ + ex_.sum_all(solver_.clipped_volume());
  c.metadata = {{"dt_min", io::format_double(stats_.dt_min)},
                {"dt_max", io::format_double(stats_.dt_max)},
                {"volume_initial", io::format_double(stats_.volume_initial)},
                {"clipped_volume", io::format_double(clipped)},
                {"deck", cfg_.deck_path}};
  for (std::size_t p = 0; p < cfg_.pollutants.size(); ++p)
    c.metadata[pollutant_field("mass_initial", cfg_.pollutants[p])] = io::format_double(stats_.mass_initial[p]);
  // What the outputs a restart continues hold by now (check_resumable_outputs).
  if (frames_ >= 0) c.metadata["frames"] = std::to_string(frames_);
  if (outputs_.has_gauge_file()) c.metadata["gauge_rows"] = std::to_string(outputs_.gauge_rows());
  c.metadata.insert(outputs_.definition().begin(), outputs_.definition().end());
  coll_.collectively([&] {
    if (coll_.root())
      last_checkpoint_ = save_checkpoint(cfg_.out.dir, c, {cfg_.out.checkpoint_zlib, io::Workers{process_cpu_count(), use_process_cpus}});
  });
  checkpoint_step_ = solver_.steps();
}

/// Errors of h and u against the exact solution at the end time, over the whole grid (root).
template <class E>
void BlockRun<E>::compare_with_exact() {
  if (!cfg_.exact) return;
  const Frame& f = frame(0);
  if (!coll_.root()) return;
  const Domain& g = cfg_.grid;
  const HostValues& h = f.whole("h");
  const HostValues& u = f.whole("u");
  double l1 = 0, linf = 0, uinf = 0;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      const std::size_t k = std::size_t(j) * g.nx + i;
      double he, ue, ve;
      cfg_.exact(g.xc(i), g.yc(j), solver_.time(), he, ue, ve);
      l1 += std::abs(h[k] - he) * g.dx * g.dy;
      linf = std::max(linf, std::abs(h[k] - he));
      if (he >= cfg_.params.eps_h && h[k] >= cfg_.params.eps_h) uinf = std::max(uinf, std::abs(u[k] - ue));
    }
  stats_.error_h_l1 = l1;
  stats_.error_h_linf = linf;
  stats_.error_u_linf = uinf;
}

/// One step of the solver, ending at `stop` at the latest; returns its dt. Its CFL pass folds the
/// state it starts from into the maxima where that is due (update_monitors). A step that fails (a
/// NaN or zero time step) is a blow-up; the state stays due then, and check_health folds it again,
/// which changes nothing.
template <class E>
double BlockRun<E>::step(double stop) {
  try {
    const Region r("shwa::step");
    if (!maxima_pending_) return solver_.step(stop, ex_);
    const double dt = solver_.step(stop, ex_, maxima_fold());
    maxima_pending_ = false;
    return dt;
  } catch (const std::runtime_error& e) {
    check_health();
    blow_up(e.what());
  }
}

/// After a step of dt from t_before that ended at `stop` at the latest: the monitors and the gauge
/// samples the step reached, the range of time steps, the output frame when the step reached its
/// time, and a checkpoint when one is due (those two timed apart from the steps).
template <class E>
void BlockRun<E>::after_step(double t_before, double dt, double stop, OutputSchedule& schedule, LoopTimer& timer) {
  const double t = solver_.time();
  {
    const Region r("shwa::monitors");
    update_monitors();
    if (schedule.gauge_every_step())
      record_gauges(t, t_before);
    else  // at most time.end / gauge_interval in the whole run (load_config bounds it)
      for (; schedule.next_gauge() <= t; schedule.gauge_taken()) record_gauges(schedule.next_gauge(), t_before);
  }
  // A step cut short to land on an output time is not a CFL step: leave it out of the range.
  if (t != stop) stats_.dt_min = std::min(stats_.dt_min, dt);
  stats_.dt_max = std::max(stats_.dt_max, dt);
  if (t == stop) {
    check_health();
    quiet_sum_ += ex_.sum_all(solver_.quiet_fraction()) / coll_.ranks();
    ++quiet_samples_;
    // Frames are numbered in the order written, across restarts: a restart may change time.end or
    // the output times, and the next frame must not take the number of one the run before wrote
    // (its end frame, off the new times). Checkpoints of older versions do not count the frames.
    const int index = frames_ >= 0 ? int(frames_) : schedule.next_index();
    timer.apart("shwa::output", [&] { write_output(index); });
    schedule.output_written();
  }
  if (schedule.checkpoint_due(t)) {
    timer.apart("shwa::checkpoint", [&] { write_checkpoint(); });
    schedule.checkpoint_written(t);
  }
}

/// The frame of output time `index` (every rank): the gauge samples up to it first.
template <class E>
void BlockRun<E>::write_output(int index) {
  add_seconds(stats_.outputs_s, [&] {
    flush_gauges();
    if (!outputs_.writes_frames()) return;
    const Frame* f = nullptr;
    add_seconds(stats_.fields_s, [&] { f = &frame(index); });
    stats_.from_device_s += copy_s_;
    outputs_.write(*f);
  });
  ++stats_.outputs;
  if (frames_ >= 0) ++frames_;
}

/// A signal stopped the run, after a checkpoint: the outputs so far are complete files; the
/// maxima and the summary belong to the end.
template <class E>
void BlockRun<E>::stop_interrupted() {
  outputs_.finish(RunEnd::Stopped);
  const int sig = stop_signal();
  const std::string by = sig != 0 ? signal_name(sig) : "a signal to another rank";
  throw Interrupted(by + " stopped the run after step " + std::to_string(solver_.steps()) + " (t = " +
                    io::format_double(solver_.time()) + " s); its checkpoint is " + last_checkpoint_);
}

/// The run took numerics.max_steps steps before time.end, and wrote a checkpoint. Reported as a
/// blow-up (exit status 3): a step that shrank far below the first one usually means one; where
/// the limit was only set too low, a restart may raise it.
template <class E>
void BlockRun<E>::stop_at_step_limit() {
  outputs_.finish(RunEnd::Stopped);
  const std::string shortest =
      stats_.dt_min > 0 ? " (its shortest step: " + io::format_double(stats_.dt_min) + " s)" : std::string();
  throw BlowUp("numerics.max_steps: the run took " + std::to_string(solver_.steps()) + " steps by t = " +
               io::format_double(solver_.time()) + " s, short of time.end = " + io::format_double(cfg_.t_end) +
               " s" + shortest + "; its checkpoint is " + last_checkpoint_ +
               ": raise numerics.max_steps and resume with --restart, or look for what shrank the step");
}

/// The maxima maps, then every format closes its files.
template <class E>
void BlockRun<E>::finish_outputs() {
  add_seconds(stats_.outputs_s, [&] {
    if (cfg_.out.maxima && outputs_.writes_frames()) {
      Frame f;
      add_seconds(stats_.fields_s, [&] { f = maxima_frame(); });
      stats_.from_device_s += copy_s_;
      outputs_.write_maxima(f);
    }
    outputs_.finish(RunEnd::Complete);
  });
}

/// The run's figures (summary.json) on every rank, written by the root.
template <class E>
void BlockRun<E>::summarize(const LoopTimer::Times& loop, long steps0, std::chrono::steady_clock::time_point t_start) {
  const Conserved<E>& w = solver_.state();
  stats_.deck = cfg_.deck_path;
  stats_.problem = cfg_.problem;
  stats_.kernel = to_string(cfg_.params.variant);
  stats_.tile_x = solver_.params().tiling.tx;
  stats_.tile_y = solver_.params().tiling.ty;
  stats_.nx = cfg_.grid.nx;
  stats_.ny = cfg_.grid.ny;
  stats_.t_end = cfg_.t_end;
  stats_.steps = solver_.steps();
  stats_.steps_this_run = solver_.steps() - steps0;
  if (!(stats_.dt_min <= stats_.dt_max)) stats_.dt_min = stats_.dt_max;
  stats_.volume_final = ex_.sum_all(diag_.volume(w));
  stats_.pollutants = cfg_.pollutants;
  stats_.mass_final.clear();
  for (int p = 0; p < w.ntracers; ++p) stats_.mass_final.push_back(ex_.sum_all(diag_.pollutant_mass(w, p)));
  stats_.quiet_fraction = quiet_samples_ > 0 ? quiet_sum_ / quiet_samples_ : 0.0;
  stats_.clipped_volume = clipped_before_ + ex_.sum_all(solver_.clipped_volume());
  stats_.ranks = coll_.ranks();
  stats_.px = px_;
  stats_.py = py_;
  stats_.halo_width = block_.ng;
  stats_.overlap = cfg_.parallel.overlap;
  stats_.transport = transport_;
  const double total = seconds_since(t_start);
  stats_.root_total_s = total;
  stats_.root_loop_s = loop.loop;
  stats_.format_s = outputs_.format_seconds();
  slowest_rank_split(loop, coll_, stats_);
  stats_.wall_total = coll_.max_all(total);
  coll_.collectively([&] {
    if (coll_.root()) write_summary(cfg_.out.dir + "/summary.json", stats_);
  });
}

/// The run: everything that can be refused is checked before the first file is written; the
/// state is set up (or restored from a checkpoint); the output directory is taken; then the
/// steps, each followed by its jobs (after_step), until the last output time or a signal.
template <class E>
RunStats BlockRun<E>::run() {
  // From the start of reading the deck: the inputs, then building this run (its device fields,
  // outputs) and the set-up below.
  const auto t_start = opt_.started;
  const std::string checkpoint = outputs_.check_before_writing();
  set_up();
  if (opt_.restart) restore(checkpoint);
  start_monitors();
  outputs_.open(opt_.restart ? ResumeFrom(solver_.time()) : std::nullopt, H_global_);
  Kokkos::fence();
  stats_.inputs_s = opt_.inputs_s;
  stats_.set_up_s = seconds_since(t_start) - opt_.inputs_s;

  OutputSchedule schedule(cfg_, solver_.time());
  if (!opt_.restart) {
    write_output(0);
    record_gauges(solver_.time(), solver_.time());
  }
  // Only the root reports progress.
  std::FILE* devnull = coll_.root() ? nullptr : std::fopen("/dev/null", "w");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> devnull_closer(devnull, [](std::FILE* f) { return f ? std::fclose(f) : 0; });
  Progress progress(devnull ? devnull : opt_.progress, solver_.time(), cfg_.t_end, cfg_.out.progress_interval);
  const long steps0 = solver_.steps();
  LoopTimer timer(coll_);
  timer.start();
  while (!schedule.done()) {
    // numerics.max_steps holds the whole run (a restart's steps included), not only the estimate
    // load_config makes from the first step: a run whose step shrinks on the way stops there.
    // Every rank takes the same steps, so all stop together.
    if (double(solver_.steps()) + 1 > cfg_.max_steps) {
      stop_ = step_limit_ = true;
    } else {
      const double stop = schedule.next_output();
      const double t_before = solver_.time();
      const double dt = step(stop);
      after_step(t_before, dt, stop, schedule, timer);
      progress.update(solver_.time(), solver_.steps(), dt, solver_.time() == stop);
      // One process looks at the signal after every step; several ranks agreed in check_health().
      if (coll_.ranks() == 1 && stop_signal() != 0) stop_ = true;
    }
    if (stop_) {
      if (checkpoint_step_ != solver_.steps()) timer.apart("shwa::checkpoint", [&] { write_checkpoint(); });
      break;
    }
  }
  flush_gauges();
  const LoopTimer::Times loop = timer.stop();
  progress.finish();
  if (step_limit_) stop_at_step_limit();
  if (stop_) stop_interrupted();
  finish_outputs();
  compare_with_exact();
  summarize(loop, steps0, t_start);
  return stats_;
}

}  // namespace

RunStats run_simulation(const RunConfig& cfg, const RunOptions& opt) {
  using E = DefaultExec;
  const Domain& g = cfg.grid;
  const ParallelConfig& p = cfg.parallel;
  const Grid global = Grid::single(g, p.halo_width);
#ifdef SHWA_WITH_MPI
  // One block per rank of the world. The decomposition's checks (a forced px x py that does not
  // match the ranks, blocks thinner than k) throw comm::ConfigError on every rank alike.
  comm::Decomposition d = p.decomposition == "strips"   ? comm::Decomposition::strips()
                          : p.decomposition == "forced" ? comm::Decomposition::forced(p.px, p.py)
                                                        : comm::Decomposition::automatic();
  std::unique_ptr<comm::CartDecomposition> cart;
  try {
    cart = comm::World().decompose(global, d);
  } catch (const comm::ConfigError& e) {
    throw io::InputError(cfg.deck_path + ": [parallel]: " + e.what());
  }
  comm::ExchangeOptions xo;
  xo.transport = transport_of(p.transport);
  comm::MpiExchanger<E> ex(*cart, xo);
  MpiCollective<E> coll(*cart, ex);
  BlockRun<E> run(cfg, opt, cart->grid(), ex, coll);
  run.set_parallel(cart->px(), cart->py(), ex.staged() ? "staged" : "direct");
  return run.run();
#else
  if (p.decomposition == "forced" && p.px * p.py != 1)
    throw io::InputError(cfg.deck_path + ": [parallel]: decomposition " + p.describe() + " needs " +
                         std::to_string(p.px * p.py) + " ranks; this shwa was built without MPI and runs 1");
  SingleBlock<E> ex;
  SingleRank coll;
  BlockRun<E> run(cfg, opt, global, ex, coll);
  return run.run();
#endif
}

}  // namespace shwa::app
