// shwa/app/simulation.cpp — the time loop of a run; see simulation.hpp.
//
// Restart is bit-identical to an uninterrupted run because everything a step depends on is
// restored exactly: the owned cells of W (stored in the run's precision), the time and the step
// count (doubles and integers as written), the maxima maps; the ghost cells are a function of
// the owned cells and the time, refilled before each step. The steps stop at the same times:
// each step ends at min(t + dt, next output time), and checkpoints are taken after a step,
// without shortening any.
//
// What a step of the loop costs beyond the solver's step: device kernels only (the maxima, which
// also watch the state's health; a gauge sample into a device buffer), no copy to the host, no
// MPI call, no fence. The host looks at the state only periodically:
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

#include "checkpointing.hpp"
#include "monitors.hpp"
#include "output_files.hpp"
#include "output_lock.hpp"
#include "outputs.hpp"
#include "progress.hpp"
#include "signals.hpp"

#include "diagnostics.hpp"
#include "halo.hpp"
#include "init.hpp"
#include "solver.hpp"

#include "io/atomic_file.hpp"
#include "io/error.hpp"
#include "io/gauges.hpp"
#include "io/text.hpp"

#ifdef SHWA_WITH_MPI
#include "parallel.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

namespace shwa::app {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Gauge samples the device buffer holds before they are written.
constexpr int kGaugeRows = 256;

/// A Kokkos profiling region for the lifetime of the object (exception-safe).
class Region {
 public:
  explicit Region(const char* name) { Kokkos::Profiling::pushRegion(name); }
  ~Region() { Kokkos::Profiling::popRegion(); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
};

/// Sets the owned cells of f (padded by g.ng) from a row-major host vector, keeping the ghosts.
template <class View>
void owned_from_host(const View& f, const Grid& g, const std::vector<double>& v) {
  auto m = Kokkos::create_mirror_view(f);
  Kokkos::deep_copy(m, f);
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) m(j + g.ng, i + g.ng) = Real(v[std::size_t(j) * g.nx + i]);
  Kokkos::deep_copy(f, m);
}

/// The same grid without ghost layers, for the maxima maps.
Grid unpadded(Grid g) {
  g.ng = 0;
  return g;
}

/// A whole-grid array of the run's precision for a checkpoint.
std::variant<std::vector<double>, std::vector<float>> in_run_precision(const std::vector<double>& v) {
  if (sizeof(Real) == sizeof(double)) return v;
  return std::vector<float>(v.begin(), v.end());
}

/// A checkpoint array as doubles (exact: the values are of the run's precision).
std::vector<double> as_doubles(const io::Checkpoint& c, const std::string& name) {
  if (sizeof(Real) == sizeof(double)) return c.doubles(name);
  const std::vector<float>& f = c.floats(name);
  return std::vector<double>(f.begin(), f.end());
}

double meta_double(const io::Checkpoint& c, const std::string& path, const std::string& key) {
  auto it = c.metadata.find(key);
  std::optional<double> x = it == c.metadata.end() ? std::nullopt : io::parse_double(it->second);
  if (!x) throw io::InputError(path + ": checkpoint metadata '" + key + "' is missing or not a number");
  return *x;
}

/// The run on one block.
template <class E>
class BlockRun {
 public:
  BlockRun(const RunConfig& cfg, const RunOptions& opt, const Grid& block, Exchanger<E>& ex, Collective& coll)
      : cfg_(cfg), opt_(opt), block_(block), ex_(ex), coll_(coll), solver_(block, cfg.params, cfg.bc),
        diag_(block), maxima_(block) {
    solver_.set_overlap(cfg.parallel.overlap);
  }

  RunStats run();

 private:
  void set_up();
  void restore(const std::string& path);
  void check_start_over() const;
  void set_up_gauges();
  void record_gauges();
  void flush_gauges();
  void update_monitors();
  void check_health();
  [[noreturn]] void blow_up(const std::string& what);
  std::vector<double> gather(const Field<E>& f, const Grid& g) { return coll_.gather(owned_to_host(f, g), g); }
  Frame frame(int index);
  Frame maxima_frame();
  void write_checkpoint();
  void compare_with_exact();

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
  std::optional<io::GaugeWriter> gauges_;
  std::vector<std::unique_ptr<OutputFormat>> formats_;
  std::vector<double> H_global_;  // on the root
  int px_ = 1, py_ = 1;
  std::string transport_ = "none";

 public:
  void set_parallel(int px, int py, const std::string& transport) { px_ = px, py_ = py, transport_ = transport; }

 private:
  OutputLock lock_;  // held by the root while the run writes in the output directory
  std::string last_checkpoint_;
  long checkpoint_step_ = -1;      // the step of the last checkpoint this run wrote
  bool stop_ = false;              // every rank knows a signal asked the run to stop
  std::map<std::string, std::string> definition_;  // what defines the run, as checkpoints record it (root)
  double clipped_before_ = 0;     // clipped volume of the runs before a restart
  long frames_ = 0;                // output frames written since the run began (-1: unknown)
  double next_gauge_ = 0, next_checkpoint_ = 0;
  RunStats stats_;
};

template <class E>
void BlockRun<E>::set_up() {
  const InitialState& s = cfg_.init;
  const io::Grid& g = cfg_.grid;
  // The initial condition is given at cell centres; the global index of a centre is exact.
  initialize(solver_, ex_, [&](double x, double y, CellInit& c) {
    const std::size_t i = std::size_t(std::floor((x - g.x0) / g.dx)), j = std::size_t(std::floor((y - g.y0) / g.dy));
    const std::size_t k = j * std::size_t(g.nx) + i;
    c.H = s.H[k];
    c.h = s.h[k];
    c.u = s.u[k];
    c.v = s.v[k];
    c.c = s.c[k];
    if (!s.n.empty()) c.n = s.n[k];
  });
  const Conserved<E>& w = solver_.state();
  Kokkos::deep_copy(maxima_.hmax, Real(0));
  Kokkos::deep_copy(maxima_.cmax, Real(0));
  stats_.volume_initial = ex_.sum_all(diag_.volume(w));
  stats_.mass_initial = ex_.sum_all(diag_.pollutant_mass(w));
  H_global_ = gather(solver_.bathymetry(), block_);
}

/// Refuses a run that starts over in an output directory holding another run's files, or shwa's
/// files without a record of their run, unless the command line allows it (--overwrite).
template <class E>
void BlockRun<E>::check_start_over() const {
  if (opt_.overwrite) return;
  if (const auto conflict = output_dir_conflict(cfg_.out.dir, definition_))
    throw io::OutputError(cfg_.out.dir + ": the output directory " + *conflict +
                          "; choose another output.dir, or run with " + kOverwriteOption +
                          " to remove shwa's files there first (other files stay)");
}

/// Puts the state of a checkpoint into the solver and the maxima; validated against this run.
template <class E>
void BlockRun<E>::restore(const std::string& path) {
  io::Checkpoint c;
  coll_.collectively([&] {
    if (!coll_.root()) return;
    c = io::read_checkpoint(path);
    check_restart(c, path, cfg_, definition_);
    if (c.precision != int(sizeof(Real)))
      throw io::InputError(path + ": the checkpoint was written in " + (c.precision == 4 ? "single" : "double") +
                           " precision, this build runs in the other");
    for (const char* key : {"dt_min", "dt_max", "volume_initial", "mass_initial", "clipped_volume"}) meta_double(c, path, key);
  });
  // The root's metadata on every rank (doubles as written, exactly).
  std::vector<double> meta(8, 0.0);
  if (coll_.root()) {
    meta = {c.time, double(c.step), meta_double(c, path, "dt_min"), meta_double(c, path, "dt_max"),
            meta_double(c, path, "volume_initial"), meta_double(c, path, "mass_initial"),
            meta_double(c, path, "clipped_volume"),
            // The frames written before (older checkpoints do not record them: -1, unknown).
            c.metadata.count("frames") ? meta_double(c, path, "frames") : -1.0};
  }
  coll_.broadcast(meta);
  const Conserved<E>& w = solver_.state();
  const char* names[] = {"h", "qx", "qy", "hc"};
  for (int k = 0; k < 4; ++k)
    owned_from_host(w[k], block_, coll_.scatter(coll_.root() ? as_doubles(c, names[k]) : std::vector<double>{}, block_));
  if (cfg_.out.maxima) {
    const Grid mg = unpadded(block_);
    owned_from_host(maxima_.hmax, mg, coll_.scatter(coll_.root() ? as_doubles(c, "hmax") : std::vector<double>{}, block_));
    owned_from_host(maxima_.cmax, mg, coll_.scatter(coll_.root() ? as_doubles(c, "cmax") : std::vector<double>{}, block_));
    owned_from_host(maxima_.arrival, mg,
                    coll_.scatter(coll_.root() ? as_doubles(c, "arrival") : std::vector<double>{}, block_));
  }
  solver_.finalize_setup(ex_);
  solver_.set_time(meta[0], long(meta[1]));
  stats_.dt_min = meta[2];
  stats_.dt_max = meta[3];
  stats_.volume_initial = meta[4];
  stats_.mass_initial = meta[5];
  clipped_before_ = meta[6];
  frames_ = long(meta[7]);
  stats_.restarted_from = meta[0];
  last_checkpoint_ = path;
}

template <class E>
void BlockRun<E>::set_up_gauges() {
  std::vector<int> cells;
  const io::Grid& g = cfg_.grid;
  for (const io::GaugePoint& p : cfg_.out.gauges) {
    const int i = int(std::floor((p.x - g.x0) / g.dx)) - block_.ioff;
    const int j = int(std::floor((p.y - g.y0) / g.dy)) - block_.joff;
    const bool here = i >= 0 && i < block_.nx && j >= 0 && j < block_.ny;
    gauge_here_.push_back(here);
    cells.push_back(here ? i : 0);
    cells.push_back(here ? j : 0);
  }
  gauge_buffer_ = GaugeBuffer<E>(block_, cells, kGaugeRows);
}

/// Takes the gauge sample of the current state into the device buffer, first writing the buffer
/// out if it is full.
template <class E>
void BlockRun<E>::record_gauges() {
  if (cfg_.out.gauges.empty()) return;
  if (gauge_buffer_.full()) {
    Kokkos::fence();
    const Region region("shwa::gauges");
    flush_gauges();
  }
  gauge_buffer_.record(solver_.state(), solver_.time());
}

/// Writes the rows of the gauge buffer to gauges.csv (collective: every rank calls it at the same
/// point): each output field (output_fields()) of each gauge's cell. Each gauge's values come from
/// the block that holds it: the others add -0.0.
template <class E>
void BlockRun<E>::flush_gauges() {
  if (cfg_.out.gauges.empty() || gauge_buffer_.rows() == 0) return;
  std::vector<double> times, raw;  // raw[(r * n + k) * 4 + q]: (h, qx, qy, hc) of gauge k in row r
  std::tie(times, raw) = gauge_buffer_.take();
  const std::vector<OutputFieldInfo>& fields = output_fields();
  const std::size_t n = cfg_.out.gauges.size(), q = fields.size();
  std::vector<double> rows(times.size() * n * q);
  for (std::size_t r = 0; r < times.size(); ++r)
    for (std::size_t k = 0; k < n; ++k) {
      if (!gauge_here_[k]) {
        // -0.0 is the identity of IEEE addition: the sum is the holder's value exactly, signed
        // zeros and NaN (eta over dry land) included.
        std::fill_n(&rows[(r * n + k) * q], q, -0.0);
        continue;
      }
      const double* v = &raw[(r * n + k) * 4];
      const io::GaugePoint& p = cfg_.out.gauges[k];
      const std::size_t cell = std::size_t(std::floor((p.y - cfg_.grid.y0) / cfg_.grid.dy)) * cfg_.grid.nx +
                               std::size_t(std::floor((p.x - cfg_.grid.x0) / cfg_.grid.dx));
      const CellValues values{v[0], v[1], v[2], v[3], cfg_.init.H[cell], cfg_.params.eps_h};
      for (std::size_t m = 0; m < q; ++m) rows[(r * n + k) * q + m] = fields[m].value(values);
    }
  coll_.sum_all(rows);
  coll_.collectively([&] {
    if (gauges_) gauges_->append_rows(times, rows);
  });
}

/// After each step: the maxima maps, whose kernel also marks unhealthy cells in the health record
/// (device work only); a health check every health_interval steps.
template <class E>
void BlockRun<E>::update_monitors() {
  if (cfg_.out.maxima)
    update_maxima(solver_.state(), block_, maxima_, solver_.time(), solver_.steps(),
                  Real(cfg_.out.arrival_threshold), health_, solver_.quiet_map());
  if (solver_.steps() % cfg_.health_interval == 0) check_health();
}

/// Stops the run (blow_up) if any block's state went bad since the start, or if clipping added
/// too much water. With maxima every step's state was watched; without, the current one is
/// scanned now. Collective.
template <class E>
void BlockRun<E>::check_health() {
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
           (bad.step != step ? ", which after step " + std::to_string(step) + " holds " : std::string(": ")) +
           "h = " + value(w.h) + ", qx = " + value(w.qx) + ", qy = " + value(w.qy) + ", hc = " + value(w.hc);
  }
  msg += last_checkpoint_.empty() ? "; no checkpoint was written"
                                  : "; the last good checkpoint is " + last_checkpoint_;
  // Every rank gets here together; the message of the first rank that saw the first bad state wins.
  coll_.agree(mine ? std::make_exception_ptr(BlowUp(msg)) : nullptr);
  throw BlowUp(msg);
}

template <class E>
Frame BlockRun<E>::frame(int index) {
  Frame f;
  f.index = index;
  f.time = solver_.time();
  f.grid = cfg_.grid;
  f.piece = io::Extent{block_.ioff, block_.ioff + block_.nx, block_.joff, block_.joff + block_.ny};
  f.pieces = coll_.pieces(f.piece);
  f.rank = coll_.rank();
  f.ranks = coll_.ranks();
  const Conserved<E>& w = solver_.state();
  const double eps = cfg_.params.eps_h;
  f.local = derived_fields(owned_to_host(w.h, block_), owned_to_host(w.qx, block_), owned_to_host(w.qy, block_),
                           owned_to_host(w.hc, block_), owned_to_host(solver_.bathymetry(), block_), eps);
  for (const auto& [name, v] : f.local) {
    std::vector<double> all = coll_.gather(v, block_);
    if (coll_.root()) f.global[name] = std::move(all);
  }
  return f;
}

template <class E>
Frame BlockRun<E>::maxima_frame() {
  Frame f = frame(-1);
  const Grid mg = unpadded(block_);
  f.local.clear();
  f.global.clear();
  f.local["hmax"] = owned_to_host(maxima_.hmax, mg);
  f.local["cmax"] = owned_to_host(maxima_.cmax, mg);
  f.local["arrival"] = owned_to_host(maxima_.arrival, mg);
  for (double& t : f.local["arrival"])
    if (t < 0) t = std::numeric_limits<double>::quiet_NaN();  // never reached
  for (const auto& [name, v] : f.local) {
    std::vector<double> all = coll_.gather(v, block_);
    if (coll_.root()) f.global[name] = std::move(all);
  }
  return f;
}

template <class E>
void BlockRun<E>::write_checkpoint() {
  check_health();  // never save a broken state
  flush_gauges();  // every gauge row up to the checkpoint's time is in the file before it
  io::Checkpoint c;
  c.precision = int(sizeof(Real));
  c.nx = cfg_.grid.nx;
  c.ny = cfg_.grid.ny;
  c.time = solver_.time();
  c.step = solver_.steps();
  const Conserved<E>& w = solver_.state();
  const char* names[] = {"h", "qx", "qy", "hc"};
  for (int k = 0; k < 4; ++k) c.arrays[names[k]] = in_run_precision(gather(w[k], block_));
  if (cfg_.out.maxima) {
    const Grid mg = unpadded(block_);
    c.arrays["hmax"] = in_run_precision(coll_.gather(owned_to_host(maxima_.hmax, mg), block_));
    c.arrays["cmax"] = in_run_precision(coll_.gather(owned_to_host(maxima_.cmax, mg), block_));
    c.arrays["arrival"] = in_run_precision(coll_.gather(owned_to_host(maxima_.arrival, mg), block_));
  }
  const double clipped = clipped_before_ + ex_.sum_all(solver_.clipped_volume());
  c.metadata = {{"dt_min", io::format_double(stats_.dt_min)},
                {"dt_max", io::format_double(stats_.dt_max)},
                {"volume_initial", io::format_double(stats_.volume_initial)},
                {"mass_initial", io::format_double(stats_.mass_initial)},
                {"clipped_volume", io::format_double(clipped)},
                {"deck", cfg_.deck_path}};
  // What the outputs a restart continues hold by now (check_resumable_outputs).
  if (frames_ >= 0) c.metadata["frames"] = std::to_string(frames_);
  if (gauges_) c.metadata["gauge_rows"] = std::to_string(gauges_->rows());
  c.metadata.insert(definition_.begin(), definition_.end());
  coll_.collectively([&] {
    if (coll_.root()) last_checkpoint_ = save_checkpoint(cfg_.out.dir, c);
  });
  checkpoint_step_ = solver_.steps();
}

/// Errors of h and u against the exact solution at the end time, over the whole grid (root).
template <class E>
void BlockRun<E>::compare_with_exact() {
  if (!cfg_.exact) return;
  const Frame f = frame(0);
  if (!coll_.root()) return;
  const io::Grid& g = cfg_.grid;
  const std::vector<double>& h = f.global.at("h");
  const std::vector<double>& u = f.global.at("u");
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

template <class E>
RunStats BlockRun<E>::run() {
  const auto t_start = Clock::now();
  const OutputConfig& out = cfg_.out;
  // Everything that can be refused is checked before the first file is written: the input files
  // are read for the run's definition, a restart's checkpoint must be sound and of the same run.
  std::string checkpoint;
  coll_.collectively([&] {
    if (!coll_.root()) return;
    definition_ = definition_metadata(cfg_.definition);
    if (!opt_.restart) return;
    checkpoint = latest_checkpoint(out.dir);
    const io::Checkpoint c = io::read_checkpoint(checkpoint);
    check_restart(c, checkpoint, cfg_, definition_);
    check_resumable_outputs(cfg_, c, checkpoint, output_field_names());
  });

  set_up();
  if (opt_.restart) restore(checkpoint);
  set_up_gauges();
  stats_.dt_min = opt_.restart ? stats_.dt_min : std::numeric_limits<double>::infinity();
  stats_.dt_max = opt_.restart ? stats_.dt_max : 0.0;
  if (!opt_.restart && out.maxima)
    update_maxima(solver_.state(), block_, maxima_, 0.0, solver_.steps(),
                  Real(out.arrival_threshold), health_);

  const ResumeFrom resume = opt_.restart ? ResumeFrom(solver_.time()) : std::nullopt;
  // The first file written: the output directory's lock; with it held, what killed runs left
  // half-written goes, and when this run starts over, the files of the earlier run there (of
  // the same run, or any with --overwrite; output_files.hpp), so that none is left beside this
  // run's; then the record of this run and the resolved deck. The directory is checked once
  // before the lock too, so that a refused run creates no lock file.
  coll_.collectively([&] {
    if (coll_.root()) {
      if (!opt_.restart) check_start_over();
      std::filesystem::create_directories(out.dir);
      lock_ = OutputLock(out.dir);
      remove_stale_temporaries(out.dir);
      if (!opt_.restart) {
        check_start_over();
        remove_shwa_outputs(out.dir);
      }
      write_run_record(out.dir, definition_);
      io::write_file_atomically(out.dir + "/deck.toml", cfg_.resolved_deck);
    }
  });
  coll_.collectively([&] {
    formats_ = make_outputs(cfg_, resume, H_global_);
    const std::vector<std::string> columns = output_field_names();
    if (coll_.root() && !out.gauges.empty())
      gauges_.emplace(resume ? io::GaugeWriter::resume(out.dir + "/gauges.csv", out.gauges, columns, *resume)
                             : io::GaugeWriter(out.dir + "/gauges.csv", out.gauges, columns));
  });
  // Each format's writes of a frame, on every rank; a failure on any rank stops all.
  auto write_frame = [&](const Frame& fr) {
    coll_.collectively([&] {
      for (auto& f : formats_) f->write(fr);
    });
  };

  // The first output time still to write, and the next gauge and checkpoint times.
  const double t0 = solver_.time();
  std::size_t next_out = std::size_t(std::upper_bound(out.times.begin(), out.times.end(), t0) - out.times.begin());
  auto next_multiple = [](double t, double every) { return (std::floor(t / every) + 1) * every; };
  if (!opt_.restart) {
    write_frame(frame(0));
    ++stats_.outputs;
    ++frames_;
    record_gauges();
  }
  next_gauge_ = out.gauge_interval > 0 ? next_multiple(t0, out.gauge_interval) : 0;
  next_checkpoint_ = cfg_.checkpoint_interval > 0 ? next_multiple(t0, cfg_.checkpoint_interval) : 0;

  // Only the root reports progress.
  std::FILE* devnull = coll_.root() ? nullptr : std::fopen("/dev/null", "w");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> devnull_closer(devnull, [](std::FILE* f) { return f ? std::fclose(f) : 0; });
  Progress progress(devnull ? devnull : opt_.progress, t0, cfg_.t_end, out.progress_interval);
  const long steps0 = solver_.steps();
  double in_outputs = 0;  // seconds of the loop spent writing outputs and checkpoints
  // ... and the halo and reduction seconds within them (a checkpoint's health check reduces).
  double halo_in_outputs = 0, reduce_in_outputs = 0;
  // Runs f (outputs, a checkpoint) in a profiling region, its time counted apart from the steps'
  // and so are the halo and reduction times in it: the split of the loop's time into compute,
  // halo and allreduce covers the same intervals as the loop's time. The steps queued before f
  // finish first.
  auto timed = [&](const char* region, auto&& f) {
    Kokkos::fence();
    const double halo0 = coll_.halo_seconds(), reduce0 = coll_.reduce_seconds();
    const auto t_io = Clock::now();
    {
      const Region r(region);
      f();
    }
    in_outputs += seconds_since(t_io);
    halo_in_outputs += coll_.halo_seconds() - halo0;
    reduce_in_outputs += coll_.reduce_seconds() - reduce0;
  };
  coll_.reset_comm_times();
  Kokkos::fence();
  const auto t_loop = Clock::now();
  double quiet_sum = 0;  // the fraction of quiet squares (skipped dry land) at output times
  int quiet_samples = 0;
  while (next_out < out.times.size()) {
    const double stop = out.times[next_out];
    double dt = 0;
    try {
      const Region r("shwa::step");
      dt = solver_.step(stop, ex_);
    } catch (const std::runtime_error& e) {  // a NaN or zero time step
      check_health();
      blow_up(e.what());
    }
    const double t = solver_.time();
    {
      const Region r("shwa::monitors");
      update_monitors();
      if (out.gauge_interval == 0 || t >= next_gauge_) {
        record_gauges();
        if (out.gauge_interval > 0) next_gauge_ = next_multiple(t, out.gauge_interval);
      }
    }
    // A step cut short to land on an output time is not a CFL step: leave it out of the range.
    if (t != stop) stats_.dt_min = std::min(stats_.dt_min, dt);
    stats_.dt_max = std::max(stats_.dt_max, dt);
    if (t == stop) {
      check_health();
      quiet_sum += ex_.sum_all(solver_.quiet_fraction()) / coll_.ranks();
      ++quiet_samples;
      timed("shwa::output", [&] {
        flush_gauges();
        write_frame(frame(int(next_out)));
      });
      ++stats_.outputs;
      if (frames_ >= 0) ++frames_;
      ++next_out;
    }
    if (cfg_.checkpoint_interval > 0 && t >= next_checkpoint_) {
      timed("shwa::checkpoint", [&] { write_checkpoint(); });
      next_checkpoint_ = next_multiple(t, cfg_.checkpoint_interval);
    }
    progress.update(t, solver_.steps(), dt, t == stop);
    // One process looks at the signal after every step; several ranks agreed in check_health().
    if (coll_.ranks() == 1 && stop_signal() != 0) stop_ = true;
    if (stop_) {
      if (checkpoint_step_ != solver_.steps()) timed("shwa::checkpoint", [&] { write_checkpoint(); });
      break;
    }
  }
  flush_gauges();
  Kokkos::fence();
  const double loop = seconds_since(t_loop) - in_outputs;
  progress.finish();
  if (stop_) {
    // The outputs so far are complete files; the maxima and the summary belong to the end.
    coll_.collectively([&] {
      for (auto& f : formats_) f->finish();
    });
    const int sig = stop_signal();
    const std::string by = sig != 0 ? signal_name(sig) : "a signal to another rank";
    throw Interrupted(by + " stopped the run after step " + std::to_string(solver_.steps()) + " (t = " +
                      io::format_double(solver_.time()) + " s); its checkpoint is " + last_checkpoint_);
  }

  const double halo = coll_.halo_seconds() - halo_in_outputs, reduce = coll_.reduce_seconds() - reduce_in_outputs;
  if (out.maxima) {
    const Frame m = maxima_frame();
    coll_.collectively([&] {
      for (auto& f : formats_) f->write_maxima(m);
    });
  }
  coll_.collectively([&] {
    for (auto& f : formats_) f->finish();
  });
  compare_with_exact();

  const Conserved<E>& w = solver_.state();
  stats_.deck = cfg_.deck_path;
  stats_.problem = cfg_.problem;
  stats_.kernel = to_string(cfg_.params.variant);
  stats_.nx = cfg_.grid.nx;
  stats_.ny = cfg_.grid.ny;
  stats_.t_end = cfg_.t_end;
  stats_.steps = solver_.steps();
  stats_.steps_this_run = solver_.steps() - steps0;
  if (!(stats_.dt_min <= stats_.dt_max)) stats_.dt_min = stats_.dt_max;
  stats_.volume_final = ex_.sum_all(diag_.volume(w));
  stats_.mass_final = ex_.sum_all(diag_.pollutant_mass(w));
  stats_.quiet_fraction = quiet_samples > 0 ? quiet_sum / quiet_samples : 0.0;
  stats_.clipped_volume = clipped_before_ + ex_.sum_all(solver_.clipped_volume());
  stats_.wall_loop = loop;
  stats_.wall_total = seconds_since(t_start);
  stats_.ranks = coll_.ranks();
  stats_.px = px_;
  stats_.py = py_;
  stats_.halo_width = block_.ng;
  stats_.overlap = cfg_.parallel.overlap;
  stats_.transport = transport_;
  // The time loop of the slowest rank and its split: every part of it is a sum of intervals
  // inside that rank's loop, less its outputs, so compute = loop - halo - allreduce is not
  // negative and the three add up to the loop (parts from different ranks would not).
  stats_.wall_loop = coll_.max_all(loop);
  std::vector<double> split = {0.0, 0.0, 0.0};  // halo, allreduce, ranks: of the slowest ranks
  if (loop == stats_.wall_loop) split = {halo, reduce, 1.0};
  coll_.sum_all(split);
  stats_.halo_s = split[0] / split[2];
  stats_.allreduce_s = split[1] / split[2];
  stats_.compute_s = stats_.wall_loop - stats_.halo_s - stats_.allreduce_s;
  stats_.wall_total = coll_.max_all(stats_.wall_total);
  coll_.collectively([&] {
    if (coll_.root()) write_summary(out.dir + "/summary.json", stats_);
  });
  return stats_;
}

}  // namespace

RunStats run_simulation(const RunConfig& cfg, const RunOptions& opt) {
  using E = DefaultExec;
  const io::Grid& g = cfg.grid;
  const ParallelConfig& p = cfg.parallel;
  const Grid global = Grid::single(g.nx, g.ny, g.dx, g.dy, g.x0, g.y0, p.halo_width);
#ifdef SHWA_WITH_MPI
  // One block per rank of MPI_COMM_WORLD. The decomposition's checks (a forced px x py that does
  // not match the ranks, blocks thinner than k) throw comm::ConfigError on every rank alike.
  comm::Decomposition d = p.decomposition == "strips"   ? comm::Decomposition::strips()
                          : p.decomposition == "forced" ? comm::Decomposition::forced(p.px, p.py)
                                                        : comm::Decomposition::automatic();
  std::unique_ptr<comm::CartDecomposition> cart;
  try {
    cart = std::make_unique<comm::CartDecomposition>(MPI_COMM_WORLD, global, d);
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
