// shwa/app/checkpointing.hpp — where a run keeps its checkpoints and which one a restart takes.
//
// OUTPUT_DIR/checkpoints/checkpoint_SSSSSSSSSS.shck, SSSSSSSSSS the step number. Each file is
// written atomically and checksummed (io/checkpoint.hpp); after a new one is complete the
// older ones but the previous are removed, so a crash never leaves the run without one. The root
// rank writes the whole grid (gathered), so a run can restart on another number of ranks.
#pragma once

#include "io/checkpoint.hpp"

#include <string>

namespace shwa::app {

/// Writes `c` as the checkpoint of step c.step and prunes older ones; returns its path.
std::string save_checkpoint(const std::string& out_dir, const io::Checkpoint& c);

/// The path of the checkpoint with the highest step; throws io::InputError if there is none.
std::string latest_checkpoint(const std::string& out_dir);

}  // namespace shwa::app
