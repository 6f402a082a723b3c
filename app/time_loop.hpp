// shwa/app/time_loop.hpp — the jobs of a run's time loop that touch no field: when it writes
// (output frames, gauge samples, checkpoints) and how its wall time splits into steps, halo
// exchanges, reductions and the outputs left out of them. Host code only; simulation.cpp's
// BlockRun drives them around the solver's steps.
#pragma once

#include "config.hpp"
#include "summary.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace shwa::app {

class Collective;

/// Wall seconds from t0 to now.
double seconds_since(std::chrono::steady_clock::time_point t0);

/// Runs f, adding its wall seconds to `total`, also when f throws.
template <class F>
void add_seconds(double& total, F&& f) {
  struct Add {
    double& total;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    ~Add() { total += seconds_since(t0); }
  } add{total};
  f();
}

/// When the time loop writes, from the time the run starts (or resumes) at: each step ends at
/// the next output time at the latest; gauges are sampled after every step (output.gauge_interval
/// = 0) or at each multiple of the interval, from the step that reaches it; a checkpoint follows
/// the first step to reach each multiple of time.checkpoint_interval. A restart resumes the same
/// schedule, so its steps end at the same times, and its samples fall at the same times, as an
/// uninterrupted run's.
class OutputSchedule {
 public:
  OutputSchedule(const RunConfig& cfg, double t0);

  /// Every output time is written.
  bool done() const { return next_ >= times_.size(); }
  /// The next output time (no step passes it) and its position in the output times.
  double next_output() const { return times_[next_]; }
  int next_index() const { return int(next_); }
  /// The frame of next_output() is written: the one after it is next.
  void output_written() { ++next_; }

  /// Gauges are sampled after every step (no interval).
  bool gauge_every_step() const { return gauge_interval_ == 0; }
  /// The next multiple of the gauge interval to sample at; gauge_taken() moves to the one after.
  /// The multiples are DecimalMultiples: 3 x 0.05 is 0.15, not 0.15000000000000002.
  double next_gauge() const { return gauge_time_(gauge_k_); }
  void gauge_taken() { ++gauge_k_; }
  /// After a step that reached t: a checkpoint is due; checkpoint_written(t) schedules the next.
  /// The multiples are DecimalMultiples, as the output times are: a step that ends on an output
  /// time that is a multiple of the checkpoint interval reaches that multiple.
  bool checkpoint_due(double t) const { return checkpoint_interval_ > 0 && t >= next_checkpoint_; }
  void checkpoint_written(double t);

 private:
  const std::vector<double>& times_;
  std::size_t next_;
  double gauge_interval_, checkpoint_interval_;
  DecimalMultiples gauge_time_, checkpoint_time_;
  long long gauge_k_ = 0;  // next_gauge() = gauge_time_(gauge_k_): the first multiple after the start
  double next_checkpoint_ = 0;
};

/// The wall time of the time loop and its halo and reduction times, less the outputs and
/// checkpoints inside it (and the halo and reduction time within those), so that the split into
/// compute, halo and allreduce covers the same intervals as the loop's time.
class LoopTimer {
 public:
  explicit LoopTimer(Collective& coll) : coll_(coll) {}
  /// The loop starts: the steps queued before finish first; the Collective's times restart.
  void start();
  /// Runs f (outputs, a checkpoint) in the Kokkos profiling region `region`, its time counted
  /// apart from the steps'. The steps queued before it finish first.
  void apart(const char* region, const std::function<void()>& f);
  /// The loop ends (the steps queued finish): its seconds and those of its halo exchanges and
  /// reductions, outputs left out.
  struct Times {
    double loop = 0, halo = 0, reduce = 0;
  };
  Times stop();

 private:
  using Clock = std::chrono::steady_clock;
  Collective& coll_;
  Clock::time_point start_;
  double apart_ = 0, halo_apart_ = 0, reduce_apart_ = 0;
};

/// Sets stats' wall_loop, halo_s, allreduce_s and compute_s to the time loop of the slowest rank
/// and its split (`mine` on each rank): every part is a sum of intervals inside that rank's loop,
/// less its outputs, so compute = loop - halo - allreduce is not negative and the three add up to
/// the loop, which parts of different ranks would not. Collective.
void slowest_rank_split(const LoopTimer::Times& mine, Collective& coll, RunStats& stats);

/// A Kokkos profiling region for the lifetime of the object (exception-safe).
class Region {
 public:
  explicit Region(const char* name);
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
};

}  // namespace shwa::app
