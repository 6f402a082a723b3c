// shwa/app/signals.hpp — how `shwa run` answers signals.
//
// SIGINT, SIGTERM and SIGHUP (a Ctrl-C, a batch scheduler's warning before its time limit, the
// terminal or ssh session that started the run closing) ask the run to
// stop: the handler only records the signal, and the time loop, which polls stop_signal(), ends
// after the step in progress, writes a checkpoint and exits with kInterrupted (cli.hpp). The
// first signal also puts back SIGINT's default action: two signals of which one is a Ctrl-C end the
// process at once, while a repeated SIGTERM or SIGHUP (`timeout` sends two) changes nothing. A signal ignored when shwa starts (nohup, a shell's background job) stays ignored.
// SIGPIPE is ignored: a closed stdout (`shwa run ... | head -1`) makes writes to it fail, which
// the progress lines notice (progress.hpp), instead of killing the run.
#pragma once

namespace shwa::app {

/// Notes which of SIGINT, SIGTERM and SIGHUP the process was started with ignored. Call first in
/// main: MPI and GPU runtimes may install handlers of their own while they initialize.
void remember_ignored_signals();

/// Installs the handlers of SIGINT, SIGTERM and SIGHUP, except for those ignored at the start
/// (remember_ignored_signals), forgetting any signal recorded before.
void catch_stop_signals();

/// Ignores SIGPIPE for the rest of the process.
void ignore_sigpipe();

/// The signal that asked the run to stop (SIGINT, SIGTERM or SIGHUP), or 0 if none came.
int stop_signal();

/// "SIGINT", "SIGTERM", "SIGHUP", or "a signal".
const char* signal_name(int sig);

}  // namespace shwa::app
