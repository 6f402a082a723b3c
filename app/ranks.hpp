// shwa/app/ranks.hpp — the processes of a run as the app sees them. With the MPI layer
// (SHWA_WITH_MPI), Session and World are comm::Session and comm::World (comm/world.hpp), through
// which every MPI operation of the app goes; without it, one process with the same calls, so that
// the app's driver code is the same in both builds. On top of them, the agreement on errors that
// keeps every rank on the same path: one error printed by rank 0, every rank exits with the same
// code, none waits.
#pragma once

#ifdef SHWA_WITH_MPI
#include "world.hpp"
#endif

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

namespace shwa::app {

#ifdef SHWA_WITH_MPI
using Session = comm::Session;
using World = comm::World;
#else
/// Without MPI there is nothing to start or end.
class Session {
 public:
  Session(int&, char**&) {}
};

/// One process: rank 0 of 1, the whole node and no GPU to choose.
class World {
 public:
  /// The ranks sharing this process's node (ranks = 1, holds_root = true).
  struct Node {
    int ranks = 1;
    bool holds_root = true;
  };
  int rank() const { return 0; }
  int size() const { return 1; }
  bool root() const { return true; }
  Node node() const { return {}; }
  /// -1: Kokkos' default device, or --device.
  int device() const { return -1; }
  /// Nothing to compare with: -1.
  int first_other_digest(std::uint32_t) const { return -1; }
  void report_error(const std::string& message) const { std::fprintf(stderr, "shwa: error: %s\n", message.c_str()); }
};
#endif

/// The kinds of error the ranks agree on, each thrown as its own class.
enum class ErrorKind : int { None = 0, Input = 1, Output = 2, BlowUp = 3 };

/// What an exception is to the agreement: BlowUp, io::OutputError, or anything else (Input), and
/// its message ("unknown error" where it has none). {None, ""} for no exception.
std::pair<ErrorKind, std::string> classify_error(std::exception_ptr e);

/// Throws the error that rank `rank` had: BlowUp, io::OutputError, else io::InputError, whose
/// message is prefixed "rank R: " when R is not 0.
[[noreturn]] void throw_agreed_error(ErrorKind kind, int rank, const std::string& message);

/// When any rank of `world` passes an exception, every rank throws the lowest failing rank's
/// error (classify_error, throw_agreed_error). Collective. One process (a build without MPI):
/// e as it is.
void agree_on_error(const World& world, std::exception_ptr e);

/// Runs f on every rank of `world`; an exception on any rank is thrown on all (agree_on_error).
template <class F>
void collectively(const World& world, F&& f) {
  std::exception_ptr e;
  try {
    f();
  } catch (...) {
    e = std::current_exception();
  }
  agree_on_error(world, e);
}

}  // namespace shwa::app
