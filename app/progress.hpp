// shwa/app/progress.hpp — progress of a long run: simulated time, step, the time step the run is
// making (not a step cut short to land on an output time), simulated seconds a wall second and
// the estimated time left. On a terminal, one line rewritten in place a few times a second; otherwise (a log
// file, a batch job) a plain line every `interval` wall seconds. A write that fails (stdout piped
// into `head -1` and closed: EPIPE, SIGPIPE being ignored; a full disk) ends the progress lines,
// not the run.
#pragma once

#include <chrono>
#include <cstdio>

namespace shwa::app {

class Progress {
 public:
  Progress(std::FILE* out, double t_start, double t_end, double interval);
  /// Takes the step just made (it reached time t, the run's step count, its dt) and reports if
  /// it is time to. `at_output`: the step ended on an output time (or the end), so it reports
  /// now; such a step may have been cut short to land there, so the dt shown is the last step
  /// that did not end on an output time (the CFL step the run is making), or this step's where
  /// no other was made since the start.
  void update(double t, long step, double dt, bool at_output = false);
  /// Ends the live line on a terminal.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  bool tty_;
  double t_start_, t_end_, interval_;
  Clock::time_point start_, last_;
  double cfl_dt_ = 0;  // the dt of the last step that did not end on an output time; 0: none yet
  bool live_ = false;  // a live line is on the terminal
  bool closed_ = false;  // a write failed: no more lines
};

}  // namespace shwa::app
