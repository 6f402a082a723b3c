// shwa/app/simulation.hpp — a run: set-up, the time loop with its outputs, gauges, maxima,
// health checks, checkpoints and progress, and the summary.
//
// The time loop works on one block of the grid through the two interfaces a parallel run needs:
// core's Exchanger (halo exchange, global min/sum) and Collective below (whole fields gathered
// to the root rank for the outputs and checkpoints, and scattered back on restart). Today
// run_simulation() uses one block, SingleBlock and SingleRank; an MPI run gives each rank its
// block of the decomposition with comm/'s Exchanger and an MPI Collective.
#pragma once

#include "config.hpp"
#include "summary.hpp"

#include "grid.hpp"
#include "io/vtk.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace shwa::app {

/// The run diverged (NaN or infinite values, negative depths, or too much clipped water).
class BlowUp : public std::runtime_error {
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
  /// The whole grid on the root, from each rank's owned cells (row-major); empty elsewhere.
  virtual std::vector<double> gather(const std::vector<double>& owned, const Grid& block) = 0;
  /// This block's owned cells of a whole-grid field that the root holds (restart).
  virtual std::vector<double> scatter(const std::vector<double>& global, const Grid& block) = 0;
  /// Every rank's block, on the root.
  virtual std::vector<io::Extent> pieces(const io::Extent& mine) = 0;
};

/// One process holds the whole grid.
class SingleRank final : public Collective {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  std::vector<double> gather(const std::vector<double>& owned, const Grid&) override { return owned; }
  std::vector<double> scatter(const std::vector<double>& global, const Grid&) override { return global; }
  std::vector<io::Extent> pieces(const io::Extent& mine) override { return {mine}; }
};

struct RunOptions {
  bool restart = false;          // resume from the latest checkpoint in the output directory
  std::FILE* progress = stdout;  // where progress lines go
};

/// Runs cfg (already validated) on one block covering the whole grid. Throws BlowUp,
/// io::InputError (a bad checkpoint) or io::OutputError.
RunStats run_simulation(const RunConfig& cfg, const RunOptions& opt);

}  // namespace shwa::app
