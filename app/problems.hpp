// shwa/app/problems.hpp — the built-in initial conditions (the test problems of docs/method.md
// section 9), one entry each in problems() (problems.cpp): its name, its documentation and the
// function that builds it. Each reads its parameters from [initial] and the grid from [grid], and
// gives the initial state of every cell (and cfg.exact where an exact solution exists).
// Boundaries come from the deck as for any run.
#pragma once

#include "config.hpp"

#include <string>
#include <vector>

namespace shwa::app {

/// A built-in problem of initial.problem.
struct ProblemInfo {
  std::string name;         // as initial.problem spells it
  std::string description;  // one line, for `shwa info`
  std::string keys;         // its [initial] keys and their defaults, as inputs/README.md lists them
  /// The initial state of every cell (and cfg.exact where an exact solution exists) from the
  /// deck's [initial] and cfg.grid.
  InitialField (*setup)(io::Deck& deck, RunConfig& cfg);
};

/// The one list of built-in problems, in the order `shwa info` and inputs/README.md list them.
const std::vector<ProblemInfo>& problems();

/// The names of problems(), in order.
std::vector<std::string> problem_names();

/// The initial state of the built-in problem `name` (and cfg.exact); cfg.grid must be set.
InitialField setup_problem(const std::string& name, io::Deck& deck, RunConfig& cfg);

}  // namespace shwa::app
