// shwa/app/time_loop.cpp — see time_loop.hpp.
#include "time_loop.hpp"

#include "simulation.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace shwa::app {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

OutputSchedule::OutputSchedule(const RunConfig& cfg, double t0)
    : times_(cfg.out.times),
      next_(std::size_t(std::upper_bound(times_.begin(), times_.end(), t0) - times_.begin())),
      gauge_interval_(cfg.out.gauge_interval),
      checkpoint_interval_(cfg.checkpoint_interval),
      gauge_time_(cfg.out.gauge_interval),  // load_config allows at most 1e8 samples
      checkpoint_time_(cfg.checkpoint_interval) {
  // The first multiple after t0: a run resumed at t0 takes the multiples an uninterrupted run
  // had not taken by t0.
  if (gauge_interval_ > 0) gauge_k_ = gauge_time_.first_after(t0);
  if (checkpoint_interval_ > 0) next_checkpoint_ = checkpoint_time_.next_after(t0);
}

void OutputSchedule::checkpoint_written(double t) { next_checkpoint_ = checkpoint_time_.next_after(t); }

void LoopTimer::start() {
  coll_.reset_comm_times();
  Kokkos::fence();
  start_ = Clock::now();
}

void LoopTimer::apart(const char* region, const std::function<void()>& f) {
  Kokkos::fence();
  const double halo0 = coll_.halo_seconds(), reduce0 = coll_.reduce_seconds();
  const auto t0 = Clock::now();
  {
    const Region r(region);
    f();
  }
  apart_ += seconds_since(t0);
  halo_apart_ += coll_.halo_seconds() - halo0;
  reduce_apart_ += coll_.reduce_seconds() - reduce0;
}

LoopTimer::Times LoopTimer::stop() {
  Kokkos::fence();
  Times t;
  t.loop = seconds_since(start_) - apart_;
  t.halo = coll_.halo_seconds() - halo_apart_;
  t.reduce = coll_.reduce_seconds() - reduce_apart_;
  return t;
}

void slowest_rank_split(const LoopTimer::Times& mine, Collective& coll, RunStats& stats) {
  stats.wall_loop = coll.max_all(mine.loop);
  std::vector<double> split = {0.0, 0.0, 0.0};  // halo, allreduce, ranks: of the slowest ranks
  if (mine.loop == stats.wall_loop) split = {mine.halo, mine.reduce, 1.0};
  coll.sum_all(split);
  stats.halo_s = split[0] / split[2];
  stats.allreduce_s = split[1] / split[2];
  stats.compute_s = stats.wall_loop - stats.halo_s - stats.allreduce_s;
}

Region::Region(const char* name) { Kokkos::Profiling::pushRegion(name); }
Region::~Region() { Kokkos::Profiling::popRegion(); }

}  // namespace shwa::app
