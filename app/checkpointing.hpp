// shwa/app/checkpointing.hpp — where a run keeps its checkpoints and which one a restart takes.
//
// OUTPUT_DIR/checkpoints/checkpoint_SSSSSSSSSS.shck, SSSSSSSSSS the step number. Each file is
// written atomically and checksummed (io/checkpoint.hpp); after a new one is complete the
// older ones but the previous are removed, so a crash never leaves the run without one. The root
// rank writes the whole grid (gathered), so a run can restart on another number of ranks.
//
// A checkpoint also records what defines its run (definition_metadata): every resolved deck key
// ("deck.KEY" = its value as io::Deck::values() gives it) and a digest of every input file the
// deck named ("input.KEY" = "crc32 XXXXXXXX, N bytes"). A restart continues the run only if the
// deck and the files are the same but for the keys a restart may change (may_change_on_restart).
#pragma once

#include "config.hpp"

#include "io/checkpoint.hpp"

#include <map>
#include <string>

namespace shwa::app {

/// Writes `c` as the checkpoint of step c.step and prunes older ones; returns its path.
std::string save_checkpoint(const std::string& out_dir, const io::Checkpoint& c, const io::CheckpointEncoding& encoding);

/// The path of the checkpoint with the highest step; throws io::InputError if there is none.
std::string latest_checkpoint(const std::string& out_dir);

/// The metadata entries that record what defines the run of `d`: "deck.KEY" for each deck key,
/// "input.KEY" for each input file (its CRC-32 and size; reads every file, throws io::InputError
/// if one cannot be read).
std::map<std::string, std::string> definition_metadata(const RunDefinition& d);

/// The deck keys whose values a restart may change: they change how the rest of the run is
/// written, stopped or split across ranks, never the state it computes. time.end,
/// time.output_interval, time.output_times, time.checkpoint_interval; output.dir,
/// output.formats, output.fields, output.png_depth_max, output.png_c_max, output.png_scale,
/// output.png_animation, output.progress_interval, output.vtk_compression,
/// output.checkpoint_compression; numerics.health_interval, numerics.max_clipped_fraction, numerics.max_steps,
/// numerics.memory_check,
/// numerics.tile, numerics.rows, numerics.cfl_rows, numerics.skip_dry (the fields are bit for bit the same with
/// any of their values); every parallel.* key.
bool may_change_on_restart(const std::string& key);

/// Refuses (io::InputError naming `path`) a checkpoint that `cfg` cannot continue: impossible
/// header values (a time that is negative, not finite or past time.end; a negative step count;
/// a time of 0 after steps or steps that reached no time), another grid or another precision than
/// this build's, an array the run reads back missing or of the other precision, or a run
/// whose definition (`definition`, as definition_metadata gives it for cfg) differs from the
/// checkpoint's in a key a restart may not change: the first such key in alphabetical order, or
/// the first input file whose contents changed, is named with both values. Input files compare
/// by their contents only, so a file that moved (its key naming the new place) is the same. A key
/// the checkpoint does not record because its shwa did not have it is the same where this run's
/// value does what that shwa did (output.precision = "double").
void check_restart(const io::Checkpoint& c, const std::string& path, const RunConfig& cfg,
                   const std::map<std::string, std::string>& definition);

}  // namespace shwa::app
