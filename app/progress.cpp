// shwa/app/progress.cpp — see progress.hpp.
#include "progress.hpp"

#include <unistd.h>

#include <cmath>
#include <string>

namespace shwa::app {

namespace {

std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  // Beyond this lround would overflow a long; no run is worth a longer forecast.
  if (s >= 3.6e8) return "> 100000h";
  char buf[32];
  const long t = std::lround(s);
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

}  // namespace

Progress::Progress(std::FILE* out, double t_start, double t_end, double interval)
    : out_(out), tty_(::isatty(::fileno(out)) == 1), t_start_(t_start), t_end_(t_end), interval_(interval),
      start_(Clock::now()), last_(start_) {}

void Progress::update(double t, long step, double dt, bool at_output) {
  if (closed_) return;
  if (!at_output) cfl_dt_ = dt;
  const auto now = Clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (!at_output && since < (tty_ ? 0.25 : interval_)) return;
  last_ = now;
  const double wall = std::chrono::duration<double>(now - start_).count();
  const double done = (t - t_start_) / (t_end_ - t_start_);
  const double eta = done > 0 ? wall * (1 - done) / done : NAN;
  const double pct = 100 * t / t_end_;
  // Simulated seconds a wall second since the start (or the resumption).
  const double speed = wall > 0 ? (t - t_start_) / wall : 0;
  std::fprintf(out_, "%st = %.6g s / %.6g s (%5.1f%%)  step %ld  dt %.3g s  %.*fx real time  elapsed %s  left %s%s",
               tty_ ? "\r\033[K" : "", t, t_end_, pct, step, cfl_dt_ > 0 ? cfl_dt_ : dt, speed >= 100 ? 0 : 2, speed,
               duration(wall).c_str(), duration(eta).c_str(), tty_ ? "" : "\n");
  std::fflush(out_);
  live_ = tty_;
  closed_ = std::ferror(out_) != 0;
}

void Progress::finish() {
  if (closed_) return;
  if (live_) std::fputc('\n', out_);
  live_ = false;
  std::fflush(out_);
}

}  // namespace shwa::app
