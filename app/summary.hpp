// shwa/app/summary.hpp — the run summary, OUTPUT_DIR/summary.json: steps, time-step range, wall
// time, throughput, water-volume and pollutant-mass balance, and the error against the exact
// solution for the built-in problems that have one.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shwa::app {

struct RunStats {
  std::string deck, problem, kernel;
  long tile_x = 0, tile_y = 0;  // the tile the kernels used (numerics.tile, resolved)
  long nx = 0, ny = 0;
  double t_end = 0;
  long steps = 0;             // in all, across restarts
  long steps_this_run = 0;
  double dt_min = 0, dt_max = 0;
  double wall_loop = 0;       // seconds in the time loop, this run
  double wall_total = 0;      // seconds from reading the deck to the end, this run
  std::optional<double> restarted_from;  // time of the checkpoint
  int outputs = 0;            // frames written in this run
  double volume_initial = 0, volume_final = 0;
  std::vector<std::string> pollutants{""};          // RunConfig::pollutants
  std::vector<double> mass_initial, mass_final;     // each pollutant's mass
  double clipped_volume = 0;  // water added by clipping negative depths, all runs
  double quiet_fraction = 0;  // dry land skipped: mean over the output times of the quiet share
  // The decomposition, and where the time loop's wall time went on each rank (the maximum over
  // ranks of each part): compute = time loop - halo - allreduce.
  int ranks = 1;
  int px = 1, py = 1;
  int halo_width = 1;
  bool overlap = true;
  std::string transport = "none";  // "direct", "staged", or "none" (no MPI)
  double compute_s = 0, halo_s = 0, allreduce_s = 0;
  // Where the root rank's wall time went (it writes the files): reading the deck and its inputs
  // (rasters, series, the initial state and its checks), the set-up (the solver's fields, the
  // outputs, the initial state on the device or the restore, taking the output directory), its
  // time loop's steps, the outputs (frames, maxima maps, gauge rows, closing the formats), the
  // checkpoints; within the outputs, the
  // fields brought from the device (gathered, derived; from_device_s: the copies alone) and each
  // format's writing, in the order of output.formats (the formats write at once, so their
  // seconds overlap).
  double root_total_s = 0, root_loop_s = 0, inputs_s = 0, set_up_s = 0, outputs_s = 0, checkpoints_s = 0, fields_s = 0,
         from_device_s = 0;
  std::vector<std::pair<std::string, double>> format_s;
  // Against the exact solution at the end time (built-in problems that have one).
  std::optional<double> error_h_l1, error_h_linf, error_u_linf;
};

void write_summary(const std::string& path, const RunStats& s);

}  // namespace shwa::app
