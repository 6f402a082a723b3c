// shwa/app/run_outputs.cpp — see run_outputs.hpp.
#include "run_outputs.hpp"

#include "affinity.hpp"
#include "checkpointing.hpp"
#include "output_files.hpp"
#include "time_loop.hpp"

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/error.hpp"
#include "io/threads.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace shwa::app {

std::string RunOutputs::check_before_writing() {
  std::string checkpoint;
  coll_.collectively([&] {
    if (!coll_.root()) return;
    definition_ = definition_metadata(cfg_.definition);
    if (!opt_.restart) return;
    // A run writing there now is named before its checkpoints (if any yet) are read.
    OutputLock::check_free(cfg_.out.dir);
    checkpoint = latest_checkpoint(cfg_.out.dir);
    const io::Checkpoint c = io::read_checkpoint(checkpoint, io::Workers{process_cpu_count(), use_process_cpus});
    check_restart(c, checkpoint, cfg_, definition_);
    check_resumable_outputs(cfg_, c, checkpoint, run_field_names(output_field_names(), cfg_.pollutants));
  });
  return checkpoint;
}

/// Refuses a run that starts over in an output directory holding another run's files, or shwa's
/// files without a record of their run, unless the command line allows it (--overwrite).
void RunOutputs::check_start_over() const {
  if (opt_.overwrite) return;
  if (const auto conflict = output_dir_conflict(cfg_.out.dir, definition_))
    throw io::OutputError(cfg_.out.dir + ": the output directory " + *conflict +
                          "; choose another output.dir, or run with " + kOverwriteOption +
                          " to remove shwa's files there first (other files stay)");
}

void RunOutputs::open(ResumeFrom resume, const HostValues& H_global) {
  const OutputConfig& out = cfg_.out;
  coll_.collectively([&] {
    if (coll_.root()) {
      if (!opt_.restart) check_start_over();
      // What load_config's checks cannot foresee (a file system that refuses the name: too long,
      // or read-only below a writable-looking parent) is named here, with the key that set it.
      std::error_code ec;
      std::filesystem::create_directories(out.dir, ec);
      if (ec)
        throw io::OutputError(out.dir + ": the output directory (output.dir) cannot be made: " + ec.message());
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
    formats_ = make_outputs(cfg_, resume, H_global);
    seconds_.assign(formats_.size(), 0.0);
    const std::vector<std::string> columns = run_field_names(output_field_names(), cfg_.pollutants);
    if (coll_.root() && !out.gauges.empty())
      gauges_.emplace(resume ? io::GaugeWriter::resume(out.dir + "/gauges.csv", out.gauges, columns, *resume)
                             : io::GaugeWriter(out.dir + "/gauges.csv", out.gauges, columns));
  });
}

// Runs f on every format at once, each on a thread of its own that may use every CPU of the
// process (affinity.hpp): the formats write files of their own from the same frame, and while
// one waits on the file system another encodes. The calling thread, which OpenMP may have bound
// to one core, only waits (worker 0), unless a thread cannot be started. The error of the first
// format that had one, in their order, is thrown. Each format's time is added to seconds_.
template <class F>
void RunOutputs::each_format_at_once(F&& f) {
  io::run_on_threads(io::Workers{int(formats_.size()) + 1, use_process_cpus}, [&](int w) {
    if (w > 0) add_seconds(seconds_[std::size_t(w - 1)], [&] { f(*formats_[std::size_t(w - 1)]); });
  });
}

void RunOutputs::write(const Frame& frame) {
  coll_.collectively([&] { each_format_at_once([&](OutputFormat& f) { f.write(frame); }); });
}

void RunOutputs::write_maxima(const Frame& frame) {
  coll_.collectively([&] { each_format_at_once([&](OutputFormat& f) { f.write_maxima(frame); }); });
}

void RunOutputs::finish(RunEnd end) {
  coll_.collectively([&] {
    for (std::size_t k = 0; k < formats_.size(); ++k) add_seconds(seconds_[k], [&] { formats_[k]->finish(end); });
  });
}

std::vector<std::pair<std::string, double>> RunOutputs::format_seconds() const {
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t k = 0; k < formats_.size(); ++k) out.emplace_back(cfg_.out.formats[k], seconds_[k]);
  return out;
}

void RunOutputs::write_gauges(const std::vector<double>& times, const std::vector<double>& raw,
                              const std::vector<bool>& here) {
  const std::vector<RunField> fields = run_fields(output_field_names(), cfg_.pollutants);
  const std::size_t n = cfg_.out.gauges.size(), q = fields.size(), nf = 3 + cfg_.pollutants.size();
  const Domain& g = cfg_.grid;
  std::vector<double> rows(times.size() * n * q);
  for (std::size_t r = 0; r < times.size(); ++r)
    for (std::size_t k = 0; k < n; ++k) {
      if (!here[k]) {
        // -0.0 is the identity of IEEE addition: the sum is the holder's value exactly, signed
        // zeros and NaN (eta over dry land) included.
        std::fill_n(&rows[(r * n + k) * q], q, -0.0);
        continue;
      }
      const double* v = &raw[(r * n + k) * nf];  // h, qx, qy, each pollutant's hc
      const io::GaugePoint& p = cfg_.out.gauges[k];
      // The holder's initial state holds the gauge's cell.
      const std::size_t cell = cfg_.init.index(g.column_of(p.x), g.row_of(p.y));
      for (std::size_t m = 0; m < q; ++m) {
        const CellValues values{v[0], v[1], v[2], v[3 + std::max(fields[m].pollutant, 0)], cfg_.init.H[cell],
                                cfg_.params.eps_h};
        rows[(r * n + k) * q + m] = fields[m].info->value(values);
      }
    }
  coll_.sum_all(rows);
  coll_.collectively([&] {
    if (gauges_) gauges_->append_rows(times, rows);
  });
}

}  // namespace shwa::app
