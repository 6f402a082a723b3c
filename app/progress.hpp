// shwa/app/progress.hpp — progress of a long run: simulated time, step, dt and the estimated
// time left. On a terminal, one line rewritten in place a few times a second; otherwise (a log
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
  /// Reports if it is time to; `force` reports now (outputs, the end).
  void update(double t, long step, double dt, bool force = false);
  /// Ends the live line on a terminal.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  bool tty_;
  double t_start_, t_end_, interval_;
  Clock::time_point start_, last_;
  bool live_ = false;  // a live line is on the terminal
  bool closed_ = false;  // a write failed: no more lines
};

}  // namespace shwa::app
