// shwa/app/cli.hpp — the command line: `shwa run`, `shwa check`, `shwa info`.
#pragma once

namespace shwa::app {

/// Exit codes of the shwa program.
enum ExitCode : int {
  kSuccess = 0,
  kInputError = 1,  // a bad deck, raster, series or checkpoint; an output that cannot be written
  kUsageError = 2,  // a bad command line
  kBlowUp = 3,      // the run diverged
  kInterrupted = 4, // SIGINT, SIGTERM or SIGHUP stopped the run after writing a checkpoint (signals.hpp)
};

/// The whole program: parses the command line, runs the subcommand inside one Kokkos scope, and
/// reports any error as one line "shwa: error: FILE:LINE: KEY: message" on stderr.
int main(int argc, char** argv);

}  // namespace shwa::app
