// shwa/app/summary.cpp — see summary.hpp.
#include "summary.hpp"

#include "io/atomic_file.hpp"
#include "io/json.hpp"

namespace shwa::app {

void write_summary(const std::string& path, const RunStats& s) {
  io::JsonWriter j;
  const double updates = double(s.nx) * double(s.ny) * double(s.steps_this_run);
  j.begin_object();
  j.key("deck").value(s.deck).key("problem").value(s.problem).key("kernel").value(s.kernel);
  j.key("tile").begin_array().value(s.tile_x).value(s.tile_y).end_array();
  j.key("grid").begin_object().key("nx").value(s.nx).key("ny").value(s.ny).end_object();
  j.key("end_time").value(s.t_end);
  j.key("steps").value(s.steps).key("steps_this_run").value(s.steps_this_run);
  j.key("dt_min").value(s.dt_min).key("dt_max").value(s.dt_max);
  j.key("restarted_from");
  if (s.restarted_from) j.value(*s.restarted_from);
  else j.null();
  j.key("outputs_written").value(s.outputs);
  j.key("dry_land_skipped").value(s.quiet_fraction);
  j.key("wall_time_s").value(s.wall_total).key("time_loop_s").value(s.wall_loop);
  j.key("cell_updates_per_s").value(s.wall_loop > 0 ? updates / s.wall_loop : 0.0);
  j.key("wall_time_split_s").begin_object();
  j.key("inputs").value(s.inputs_s).key("set_up").value(s.set_up_s);
  j.key("time_loop").value(s.root_loop_s).key("outputs").value(s.outputs_s);
  j.key("checkpoints").value(s.checkpoints_s);
  j.key("other").value(s.root_total_s - s.inputs_s - s.set_up_s - s.root_loop_s - s.outputs_s - s.checkpoints_s);
  j.key("note").value("the root rank's wall time: inputs (reading the deck, its rasters and series, the initial "
                      "state and its checks), set_up (the solver's fields and the outputs, the initial state on the "
                      "device or the restore, taking the output directory), the time loop's steps, outputs (frames "
                      "and the gauge rows up to them, maxima maps, closing the formats), checkpoints, and the rest "
                      "(the comparison with an exact solution where the problem has one, the end's sums, this "
                      "summary)");
  j.end_object();
  j.key("outputs_split_s").begin_object();
  j.key("fields").value(s.fields_s).key("fields_from_device").value(s.from_device_s);
  for (const auto& [format, seconds] : s.format_s) j.key(format).value(seconds);
  j.key("note").value("fields: the frames' fields brought from the device, gathered and derived (of which "
                      "fields_from_device: the copies from the device into host memory); then each format's "
                      "writing, the formats at once, each on a thread of its own (their seconds overlap)");
  j.end_object();
  j.key("parallel").begin_object();
  j.key("ranks").value(long(s.ranks));
  j.key("decomposition").begin_array().value(long(s.px)).value(long(s.py)).end_array();
  j.key("halo_width").value(long(s.halo_width)).key("overlap").value(s.overlap);
  j.key("transport").value(s.transport);
  j.key("time_loop_split_s").begin_object();
  j.key("compute").value(s.compute_s).key("halo").value(s.halo_s).key("allreduce").value(s.allreduce_s);
  j.key("note").value("the slowest rank's time loop split: compute = time loop - halo - allreduce");
  j.end_object();
  j.end_object();
  j.key("volume").begin_object();
  j.key("initial").value(s.volume_initial).key("final").value(s.volume_final);
  j.key("change").value(s.volume_final - s.volume_initial);
  j.key("clipped").value(s.clipped_volume);
  j.key("note").value("the change includes the net boundary inflow; clipped is water added by "
                      "setting negative depths to zero");
  j.end_object();
  // The unnamed pollutant's balance is the object itself; named pollutants' are its members.
  j.key("pollutant_mass").begin_object();
  for (std::size_t p = 0; p < s.pollutants.size() && p < s.mass_final.size(); ++p) {
    const bool named = !s.pollutants[p].empty();
    if (named) j.key(s.pollutants[p]).begin_object();
    j.key("initial").value(s.mass_initial.at(p)).key("final").value(s.mass_final[p]);
    j.key("change").value(s.mass_final[p] - s.mass_initial.at(p));
    if (named) j.end_object();
  }
  j.end_object();
  if (s.error_h_l1) {
    j.key("exact_solution_error").begin_object();
    j.key("h_l1").value(*s.error_h_l1).key("h_linf").value(*s.error_h_linf).key("u_linf").value(*s.error_u_linf);
    j.end_object();
  }
  j.end_object();
  io::write_file_atomically(path, j.str());
}

}  // namespace shwa::app
