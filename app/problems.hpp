// shwa/app/problems.hpp — the built-in initial conditions (the test problems of docs/method.md section 9).
//
//   dam_break        flat bottom, water h_left west of x_dam and h_right east of it, at rest:
//                    Stoker's wet-bed solution (h_right > 0) or Ritter's dry-bed one (h_right = 0)
//   lake_at_rest     still water at level `level` over a bumpy bottom whose highest bumps rise
//                    above it as islands: must stay at rest to round-off
//   thacker          Thacker's planar surface oscillating in a paraboloid (moving wet/dry front)
//   pollutant_patch  a uniform depth, velocity and background concentration over a flat bottom,
//                    carrying the patch of a [pollutant] spill (the transport test); without a
//                    spill, the consistency test (a constant c stays constant exactly)
//
// Each reads its parameters from [initial] and the grid from [grid], and fills cfg.init (and
// cfg.exact where an exact solution exists). Boundaries come from the deck as for any run.
#pragma once

#include "config.hpp"

#include <string>
#include <vector>

namespace shwa::app {

const std::vector<std::string>& problem_names();

/// Fills cfg.init and cfg.exact for the built-in problem `name`; cfg.grid must be set.
void setup_problem(const std::string& name, io::Deck& deck, RunConfig& cfg);

}  // namespace shwa::app
