// shwa/app/cli.cpp — the command line (CLI11) and the program's single exit path.
#include "cli.hpp"

#include "config.hpp"
#include "simulation.hpp"

#include "io/deck.hpp"
#include "io/error.hpp"
#include "io/text.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace shwa::app {

namespace {

struct Arguments {
  std::string deck;
  std::vector<std::string> sets;
  bool restart = false;
  int threads = -1;
  int device = -1;
};

/// The deck with the command line's overrides applied.
io::Deck load_deck(const Arguments& a) {
  io::Deck d = io::Deck::load(a.deck);
  for (const std::string& s : a.sets) d.set_override(s);
  return d;
}

void print_check(const RunConfig& cfg) {
  std::printf("# shwa check: %s is valid. The resolved configuration:\n%s", cfg.deck_path.c_str(),
              cfg.resolved_deck.c_str());
  const io::Grid& g = cfg.grid;
  std::printf("# grid: %d x %d cells (%lld), dx = %s m, dy = %s m, south-west corner (%s, %s)\n", g.nx, g.ny,
              g.cells(), io::format_double(g.dx).c_str(), io::format_double(g.dy).c_str(),
              io::format_double(g.x0).c_str(), io::format_double(g.y0).c_str());
  std::printf("# initial state: %s; %zu output times up to %s s; %zu gauges; boundary segments: %zu\n",
              cfg.problem.c_str(), cfg.out.times.size(), io::format_double(cfg.t_end).c_str(), cfg.out.gauges.size(),
              cfg.bc.segments.size());
  std::printf("# outputs would go to %s\n", cfg.out.dir.c_str());
}

void print_info() {
  const int v = KOKKOS_VERSION;
  std::printf("shwa %s\n", SHWA_VERSION);
  std::printf("Kokkos %d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
  std::printf("execution space: %s (concurrency %d)\n", Kokkos::DefaultExecutionSpace::name(),
              Kokkos::DefaultExecutionSpace().concurrency());
  std::printf("host execution space: %s\n", Kokkos::DefaultHostExecutionSpace::name());
  std::printf("precision: %s\n", SHWA_PRECISION_NAME);
#ifdef SHWA_WITH_MPI
  std::printf("MPI: built (comm/); the app runs one block\n");
#else
  std::printf("MPI: no\n");
#endif
  std::printf("\nKokkos configuration:\n");
  std::fflush(stdout);
  Kokkos::print_configuration(std::cout, false);
}

/// Runs the chosen subcommand; errors propagate as exceptions.
int dispatch(const CLI::App& run, const CLI::App& check, const Arguments& a) {
  if (run.parsed() || check.parsed()) {
    io::Deck deck = load_deck(a);
    RunConfig cfg = load_config(deck, a.deck);
    if (check.parsed()) {
      print_check(cfg);
      return kSuccess;
    }
    RunOptions opt;
    opt.restart = a.restart;
    const RunStats s = run_simulation(cfg, opt);
    std::printf("shwa: done: %ld steps, t = %s s, %.3g cell updates/s; outputs in %s\n", s.steps,
                io::format_double(cfg.t_end).c_str(),
                s.wall_loop > 0 ? double(s.nx) * double(s.ny) * double(s.steps_this_run) / s.wall_loop : 0.0,
                cfg.out.dir.c_str());
    return kSuccess;
  }
  print_info();
  return kSuccess;
}

void error_line(const std::string& message) { std::fprintf(stderr, "shwa: error: %s\n", message.c_str()); }

}  // namespace

int main(int argc, char** argv) {
  Arguments a;
  CLI::App app{"shwa: shallow-water flow and pollutant transport on Kokkos (Roe scheme, wet/dry fronts).\n"
               "Decks are TOML files; inputs/README.md describes their keys.",
               "shwa"};
  app.require_subcommand(1);
  app.add_option("--threads", a.threads, "Host threads Kokkos uses (default: OMP_NUM_THREADS or all cores)");
  app.add_option("--device", a.device, "GPU to run on (GPU builds)");
  app.footer("Examples:\n  shwa run inputs/estuary.toml\n  shwa run inputs/dam_break_stoker.toml --set grid.nx=800\n"
             "  shwa check inputs/estuary.toml --set numerics.cfl=0.5\n"
             "Exit codes: 0 success, 1 bad input or unwritable output, 2 bad command line, 3 the run blew up.");
  CLI::App* run = app.add_subcommand("run", "Run the simulation a deck describes");
  CLI::App* check = app.add_subcommand("check", "Validate a deck and print its resolved configuration; run nothing");
  app.add_subcommand("info", "Print the version, the Kokkos backends and device, the precision and MPI support");
  for (CLI::App* sub : {run, check}) {
    sub->add_option("deck", a.deck, "The input deck (TOML)")->required()->type_name("DECK");
    sub->add_option("--set,-s", a.sets, "Override a deck value (repeatable): --set numerics.cfl=0.5")
        ->type_name("SECTION.KEY=VALUE")
        ->allow_extra_args(false);
  }
  run->add_flag("--restart", a.restart, "Resume from the latest checkpoint in the output directory");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    error_line(std::string(e.what()) + " (see shwa --help)");
    return kUsageError;
  }

  int code = kSuccess;
  {
    Kokkos::InitArguments kargs(a.threads, -1, a.device, /*disable_warnings=*/true);
    Kokkos::ScopeGuard kokkos(kargs);
    try {
      code = dispatch(*run, *check, a);
    } catch (const BlowUp& e) {
      std::fflush(stdout);
      error_line(e.what());
      code = kBlowUp;
    } catch (const std::exception& e) {
      std::fflush(stdout);
      error_line(e.what());
      code = kInputError;
    }
  }
  return code;
}

}  // namespace shwa::app
