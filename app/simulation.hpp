// shwa/app/simulation.hpp — a run: set-up, the time loop with its outputs, gauges, maxima,
// health checks, checkpoints and progress, and the summary.
//
// The time loop works on one block of the grid through the two interfaces a parallel run needs:
// core's Exchanger (halo exchange, global min/sum) and Collective below (whole fields gathered
// to the root rank for the outputs and checkpoints, and scattered back on restart). Without MPI
// (or on one rank of a build without it) run_simulation() uses one block, SingleBlock and
// SingleRank; an MPI run gives each rank its block of the decomposition ([parallel] in the deck)
// with comm/'s MpiExchanger and MpiCollective (mpi_collective.hpp).
//
// Errors in an MPI run: every step that can fail on some ranks only (reading a checkpoint on the
// root, writing a file) runs through Collective::collectively, so every rank throws the same
// error at the same place; nothing is left waiting in a collective call.
#pragma once

#include "config.hpp"
#include "host_values.hpp"
#include "summary.hpp"

#include "io/vtk.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace shwa {
struct Grid;  // grid.hpp: a block of the grid, which the collective calls pass through
}  // namespace shwa

namespace shwa::app {

/// The run diverged (NaN or infinite values, negative depths, or too much clipped water).
class BlowUp : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The run stopped early because a signal asked it to (signals.hpp), after writing a checkpoint
/// from which `--restart` continues it.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How the root rank sees the whole grid.
class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  bool root() const { return rank() == 0; }
  /// The whole grid into `whole` on the root (block.nx_global * block.ny_global values, every one
  /// written), from each rank's owned cells at `owned` (row-major, block.owned_cells() of them);
  /// `whole` is not used elsewhere.
  virtual void gather(const double* owned, const Grid& block, double* whole) = 0;
  /// The whole grid on the root, empty elsewhere: with one rank, `owned` itself.
  HostValues gather(HostValues owned, const Grid& block);
  /// The whole grid into `whole` on the root (its storage kept where it has the grid's size);
  /// `whole` is left as it is elsewhere.
  void gather(const HostValues& owned, const Grid& block, HostValues& whole);
  /// This block's owned cells of a whole-grid field that the root holds at `global` (row-major,
  /// block.nx_global * block.ny_global values; ignored, and may be null, on the other ranks): a
  /// restart on several ranks.
  virtual std::vector<double> scatter(const double* global, const Grid& block) = 0;
  /// Every rank's block, on the root.
  virtual std::vector<Extent> pieces(const Extent& mine) = 0;
  /// The root's values on every rank (v has the same size everywhere).
  virtual void broadcast(std::vector<double>& v) = 0;
  /// Maximum over the ranks, on every rank.
  virtual double max_all(double x) = 0;
  /// Element-wise sum over the ranks, on every rank (v has the same size everywhere).
  virtual void sum_all(std::vector<double>& v) = 0;
  /// Every rank passes the exception it caught (or none). When any rank has one, every rank
  /// throws the same error: that of the lowest failing rank (named when it is not the root), of
  /// the same class (BlowUp, io::OutputError, else io::InputError). Collective.
  virtual void agree(std::exception_ptr e) = 0;
  /// Runs f on every rank; an exception on any rank is thrown on all (agree).
  template <class F>
  void collectively(F&& f) {
    std::exception_ptr e;
    try {
      f();
    } catch (...) {
      e = std::current_exception();
    }
    agree(e);
  }
  /// Seconds this rank spent in the halo exchanges and in the reductions since reset_comm_times().
  virtual double halo_seconds() const { return 0; }
  virtual double reduce_seconds() const { return 0; }
  virtual void reset_comm_times() {}
};

/// One process holds the whole grid.
class SingleRank final : public Collective {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  using Collective::gather;
  void gather(const double* owned, const Grid& block, double* whole) override;
  std::vector<double> scatter(const double* global, const Grid& block) override;
  std::vector<Extent> pieces(const Extent& mine) override { return {mine}; }
  void broadcast(std::vector<double>&) override {}
  double max_all(double x) override { return x; }
  void sum_all(std::vector<double>&) override {}
  void agree(std::exception_ptr e) override {
    if (e) std::rethrow_exception(e);
  }
};

struct RunOptions {
  // When the run began (before its deck was read) and the seconds that reading the deck and its
  // inputs and building the initial state took: part of the run's wall time and its split.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  double inputs_s = 0;
  bool restart = false;          // resume from the latest checkpoint in the output directory
  bool overwrite = false;        // start over in an output directory of another run (output_files.hpp)
  std::FILE* progress = stdout;  // where progress lines go
};

/// Runs cfg (already validated): on one block covering the whole grid, or, in an MPI run, on this
/// rank's block of the decomposition of MPI_COMM_WORLD ([parallel]). Throws BlowUp, io::InputError
/// (a bad checkpoint, a decomposition that does not fit), io::OutputError, or Interrupted (SIGINT,
/// SIGTERM or SIGHUP: a checkpoint was written), on every rank alike.
RunStats run_simulation(const RunConfig& cfg, const RunOptions& opt);

}  // namespace shwa::app
