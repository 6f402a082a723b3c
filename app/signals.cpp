// shwa/app/signals.cpp — see signals.hpp.
#include "signals.hpp"

#include <atomic>

#include <signal.h>

namespace shwa::app {

namespace {

// The first signal, and how many came. Any thread of the process (OpenMP's, MPI's) may take a
// signal, several at the same time, and the time loop reads them from another: atomics, lock-free
// and hence async-signal-safe.
std::atomic<int> g_stop_signal{0};
std::atomic<int> g_count{0};
std::atomic<bool> g_caught_int{false}, g_caught_term{false}, g_caught_hup{false};  // the handler is installed
bool g_ignored_int = false, g_ignored_term = false, g_ignored_hup = false;  // at the process' start
static_assert(std::atomic<int>::is_always_lock_free);

void set_action(int sig, void (*handler)(int)) {
  struct sigaction a = {};
  a.sa_handler = handler;
  sigemptyset(&a.sa_mask);
  a.sa_flags = SA_RESTART;  // a write or a wait the signal interrupts goes on
  sigaction(sig, &a, nullptr);
}

/// Records the first signal and gives SIGINT back its default action (sigaction is
/// async-signal-safe), so that a Ctrl-C after it terminates the process. A later signal where it
/// or the first is a SIGINT terminates the process itself (the kernel delivers pending signals
/// lowest number first, so a SIGTERM and a SIGINT sent together may arrive in either order):
/// raised again with the default action, it is delivered as this handler returns. A SIGTERM or
/// SIGHUP after a SIGTERM or SIGHUP asks the same again and is only counted: `timeout` sends
/// SIGTERM to the process and then to its process group, and schedulers that want a process gone
/// at once send SIGKILL.
void on_stop_signal(int sig) {
  if (g_count.fetch_add(1) > 0) {
    if (sig == SIGINT || g_stop_signal == SIGINT) {
      set_action(sig, SIG_DFL);
      raise(sig);
    }
    return;
  }
  g_stop_signal = sig;
  if (g_caught_int) set_action(SIGINT, SIG_DFL);
}

/// Whether `sig` was ignored when the process started (by nohup, or by a shell for a job it runs
/// in the background), which a program keeps so.
bool ignored(int sig) {
  struct sigaction now = {};
  return sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN;
}

}  // namespace

void remember_ignored_signals() {
  g_ignored_int = ignored(SIGINT);
  g_ignored_term = ignored(SIGTERM);
  g_ignored_hup = ignored(SIGHUP);
}

void catch_stop_signals() {
  g_stop_signal = 0;
  g_count = 0;
  g_caught_int = !g_ignored_int;
  g_caught_term = !g_ignored_term;
  g_caught_hup = !g_ignored_hup;
  if (g_caught_int) set_action(SIGINT, on_stop_signal);
  if (g_caught_term) set_action(SIGTERM, on_stop_signal);
  if (g_caught_hup) set_action(SIGHUP, on_stop_signal);
}

void ignore_sigpipe() { set_action(SIGPIPE, SIG_IGN); }

int stop_signal() { return g_stop_signal.load(std::memory_order_relaxed); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace shwa::app
