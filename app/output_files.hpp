// shwa/app/output_files.hpp — which files in an output directory are shwa's, and which run wrote
// them.
//
// A run writes, in its output directory, fixed names (deck.toml, summary.json, gauges.csv,
// shwa.pvd, shwa.nc, shwa.run) and, in its folders, names of fixed patterns: vtk/shwa_NNNN.vti
// (and _rRRRR pieces, .pvti), vtk/maxima.vti, asc/FIELD_NNNN.asc, maxima/{hmax,cmax,arrival}.asc,
// png/{depth,concentration}_NNNN.png, png/{depth,concentration}_animation.png,
// png/{hmax,cmax,arrival}.png,
// checkpoints/checkpoint_SSSSSSSSSS.shck, and the temporary files of their atomic writes
// (NAME.tmp.PID.N). Those are "shwa's files"; anything else there belongs to someone else and is
// never removed. shwa.lock (output_lock.hpp) is shwa's too, but stays: the run holds it.
//
// shwa.run records what defines the run whose outputs the directory holds: the entries of
// definition_metadata (checkpointing.hpp), every deck value and a digest of every input file. A
// run that starts over in a directory holding shwa's files goes on only where they are of the
// same run: the same deck but for the keys a restart may change (may_change_on_restart) and the
// output.* and gauges.* keys (what is written, never what is computed), and the same input
// files. It removes them, so the directory ends with this run's files alone and no later frame
// of the earlier run stays beside its own. Files of another run, or files without a record, are
// removed only when the command line says so (--overwrite); otherwise the run is refused,
// writing nothing.
#pragma once

#include "config.hpp"

#include "io/checkpoint.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shwa::app {

/// Whether `relative` (a path inside an output directory, as "vtk/shwa_0003.vti") names a file
/// shwa writes there, or the temporary file of one of its atomic writes. shwa.lock is not one.
bool is_shwa_output(const std::string& relative);

/// shwa's files in `dir` (regular files only), relative to it, sorted; none if `dir` does not exist.
std::vector<std::string> shwa_outputs_in(const std::string& dir);

/// Removes shwa's files in `dir` and its output folders left empty; never another file. Returns
/// how many files it removed; throws io::OutputError naming a file it could not remove.
int remove_shwa_outputs(const std::string& dir);

/// The record's name in the output directory.
inline constexpr const char* kRunRecord = "shwa.run";

/// Writes `definition` (definition_metadata's entries) as `dir`/shwa.run, atomically.
void write_run_record(const std::string& dir, const std::map<std::string, std::string>& definition);

/// The definition recorded in `dir`/shwa.run; nothing if the file does not exist. Throws
/// io::InputError naming the file and line if it cannot be read as a record.
std::optional<std::map<std::string, std::string>> read_run_record(const std::string& dir);

/// The first way in which `recorded` is another run than `ours` (both definition_metadata's
/// entries): "KEY: "a" here, "b" in that run" for the first deck key that differs, in
/// alphabetical order, among those that are neither a key a restart may change nor an output.*
/// or gauges.* key; else "the file of KEY differs (...)" for the first input file whose contents
/// differ; nothing if the runs are the same.
std::optional<std::string> another_run(const std::map<std::string, std::string>& recorded,
                                       const std::map<std::string, std::string>& ours);

/// What a run that starts over (not a restart) may do in `dir`: nothing to say if it holds none
/// of shwa's files, or they are of the same run (another_run of its record is nothing). Otherwise
/// a sentence saying what the directory holds, for an error or a note: another run's files (and
/// the first difference), or shwa's files without a record of their run.
std::optional<std::string> output_dir_conflict(const std::string& dir, const std::map<std::string, std::string>& ours);

/// Refuses a restart from the checkpoint `c` (the file `checkpoint`) whose earlier outputs, which
/// it continues, are missing, cut short or corrupt, before the restart writes anything: gauges.csv
/// (every row up to the checkpoint's time present and readable, as many as the checkpoint
/// records), shwa.nc (its records up to that time whole on disk, in increasing time, as many as
/// the frames the checkpoint records), shwa.pvd (its entries up to that time, as many, and the
/// .vti/.pvti files and pieces they list whole), and the asc and png frames before the
/// checkpoint (each whole) where the output times up to it are those of the earlier run. A
/// format the earlier run did not write is not checked, but NetCDF cannot be added on a
/// restart. Throws io::InputError naming the file and what is wrong.
void check_resumable_outputs(const RunConfig& cfg, const io::Checkpoint& c, const std::string& checkpoint,
                             const std::vector<std::string>& gauge_quantities);

/// The option that lets a run clear another run's files from its output directory.
inline constexpr const char* kOverwriteOption = "--overwrite";

}  // namespace shwa::app
