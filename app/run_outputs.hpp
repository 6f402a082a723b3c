// shwa/app/run_outputs.hpp — what a run writes in its output directory, in the order it may:
// the checks made before anything is written (the run's definition, a restart's checkpoint and
// the outputs it continues), taking the directory (its lock, the files a killed run left half
// written, an earlier run's files, the record of this run and the resolved deck), the writers of
// the output formats and gauges.csv, and closing them. Host code only: the frames come from
// simulation.cpp's BlockRun, which gathers them from the device.
//
// Every call is collective (Collective::collectively): an error on any rank, such as a file the
// root cannot write, is thrown on every rank alike.
#pragma once

#include "config.hpp"
#include "output_lock.hpp"
#include "outputs.hpp"
#include "simulation.hpp"

#include "io/gauges.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shwa::app {

class RunOutputs {
 public:
  RunOutputs(const RunConfig& cfg, const RunOptions& opt, Collective& coll) : cfg_(cfg), opt_(opt), coll_(coll) {}

  /// Before the state is built, so that a refused run writes nothing: reads the input files for
  /// the run's definition (root) and, on a restart, takes the newest checkpoint, checked against
  /// this run and the outputs it continues. Returns that checkpoint's path ("" without restart).
  std::string check_before_writing();
  /// What defines the run, as checkpoints record it (on the root; empty elsewhere).
  const std::map<std::string, std::string>& definition() const { return definition_; }

  /// Takes the output directory: the first file written is its lock; with it held, what killed
  /// runs left half-written goes, and when this run starts over, the files of an earlier run there
  /// (of the same run, or any with --overwrite; output_files.hpp), so that none is left beside
  /// this run's; then the record of this run and the resolved deck. The directory is checked once
  /// before the lock too, so that a refused run creates no lock file. Then opens the writers of
  /// the formats and gauges.csv (from `resume` on a restart; `H_global`: the bottom of the whole
  /// grid, on the root).
  void open(ResumeFrom resume, const HostValues& H_global);

  /// Whether the run writes frames: it has output formats.
  bool writes_frames() const { return !formats_.empty(); }
  /// Each format's writes of a frame, the formats at once (each on a thread of its own); an
  /// error is that of the first format in the deck's order that had one.
  void write(const Frame& frame);
  /// Each format's maxima maps, in the same way.
  void write_maxima(const Frame& frame);
  /// Each format closes its files (OutputFormat::finish).
  void finish(RunEnd end);

  /// Appends gauge samples to gauges.csv: `times` and `raw`, raw[(r * n + k) * nf + q] the
  /// (h, qx, qy, each pollutant's hc; nf of them) of gauge k in row r where this block holds it (`here[k]`). Each row gets
  /// every output field (output_fields()) of each gauge's cell, from the block that holds it.
  void write_gauges(const std::vector<double>& times, const std::vector<double>& raw, const std::vector<bool>& here);
  /// The rows gauges.csv holds (on the root; 0 without gauges).
  std::size_t gauge_rows() const { return gauges_ ? gauges_->rows() : 0; }
  bool has_gauge_file() const { return bool(gauges_); }
  /// Each format's wall seconds so far (writes and finish), by name, in output.formats' order.
  std::vector<std::pair<std::string, double>> format_seconds() const;

 private:
  void check_start_over() const;

  const RunConfig& cfg_;
  RunOptions opt_;
  Collective& coll_;
  std::map<std::string, std::string> definition_;  // on the root
  OutputLock lock_;  // held by the root while the run writes in the output directory
  std::vector<std::unique_ptr<OutputFormat>> formats_;  // in the order of cfg_.out.formats
  std::vector<double> seconds_;  // formats_[k]'s wall seconds
  template <class F>
  void each_format_at_once(F&& f);
  std::optional<io::GaugeWriter> gauges_;  // on the root
};

}  // namespace shwa::app
