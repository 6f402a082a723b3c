// shwa/app/cli.cpp — the command line (CLI11) and the program's single exit path.
#include "cli.hpp"

#include "compat.hpp"
#include "math.hpp"

#include "affinity.hpp"
#include "checkpointing.hpp"
#include "config.hpp"
#include "output_files.hpp"
#include "outputs.hpp"
#include "problems.hpp"
#include "ranks.hpp"
#include "signals.hpp"
#include "simulation.hpp"
#include "time_loop.hpp"

#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "io/error.hpp"
#include "io/raster.hpp"
#include "io/text.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#ifdef SHWA_WITH_MPI
#include "cart.hpp"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace shwa::app {

namespace {

struct Arguments {
  std::string deck;
  std::vector<std::string> sets;
  bool restart = false;
  bool overwrite = false;
  int threads = -1;
  int device = -1;
};

/// The deck with the command line's overrides applied.
io::Deck load_deck(const Arguments& a) {
  io::Deck d = io::Deck::load(a.deck);
  for (const std::string& s : a.sets) d.set_override(s);
  return d;
}

/// The blocks of the run's decomposition on `ranks` ranks, or the io::InputError the run would
/// give.
std::pair<int, int> decomposition_dims(const RunConfig& cfg, int ranks) {
#ifdef SHWA_WITH_MPI
  const Domain& g = cfg.grid;
  const ParallelConfig& p = cfg.parallel;
  const Grid global = Grid::single(g, p.halo_width);
  const comm::Decomposition d = p.decomposition == "strips"   ? comm::Decomposition::strips()
                                : p.decomposition == "forced" ? comm::Decomposition::forced(p.px, p.py)
                                                              : comm::Decomposition::automatic();
  try {
    const comm::Dims dims = comm::choose_dims(ranks, global, d);
    return {dims.px, dims.py};
  } catch (const comm::ConfigError& e) {
    throw io::InputError(cfg.deck_path + ": [parallel]: " + e.what());
  }
#else
  (void)cfg;
  (void)ranks;
  return {1, 1};
#endif
}

/// This rank's block of the run's decomposition over `world` (rank r holds block (r mod px, r / px),
/// each axis split by comm::split_evenly, as comm::CartDecomposition makes it), or the
/// io::InputError the run would give.
Extent block_extent(const RunConfig& cfg, const World& world) {
#ifdef SHWA_WITH_MPI
  const auto [px, py] = decomposition_dims(cfg, world.size());
  const int r = world.rank();
  const comm::Span x = comm::split_evenly(cfg.grid.nx, px, r % px), y = comm::split_evenly(cfg.grid.ny, py, r / px);
  return Extent{x.offset, x.offset + x.size, y.offset, y.offset + y.size};
#else
  (void)world;
  return Extent{0, cfg.grid.nx, 0, cfg.grid.ny};
#endif
}

/// How the run would split: every rank checks the decomposition against the ranks (an
/// io::InputError, as the run would give).
std::string parallel_line(const RunConfig& cfg, const World& world) {
  const Domain& g = cfg.grid;
  const ParallelConfig& p = cfg.parallel;
  std::string how;
#ifdef SHWA_WITH_MPI
  (void)g;
  const auto [px, py] = decomposition_dims(cfg, world.size());
  how = std::to_string(px) + " x " + std::to_string(py) + " blocks";
#else
  (void)g;
  if (p.decomposition == "forced" && p.px * p.py != 1)
    throw io::InputError(cfg.deck_path + ": [parallel]: decomposition " + p.describe() + " needs " +
                         std::to_string(p.px * p.py) + " ranks; this shwa was built without MPI and runs 1");
  how = "1 x 1 block (built without MPI)";
#endif
  char line[512];
  std::snprintf(line, sizeof line,
                "# parallel: %d rank(s), decomposition %s: %s; halo width k = %d, overlap %s, transport %s\n",
                world.size(), p.describe().c_str(), how.c_str(), p.halo_width, p.overlap ? "on" : "off",
                p.transport.c_str());
  return line;
}

void print_check(const RunConfig& cfg, const std::string& parallel) {
  std::printf("# shwa check: %s is valid. The resolved configuration:\n%s", cfg.deck_path.c_str(),
              cfg.resolved_deck.c_str());
  const Domain& g = cfg.grid;
  std::printf("# grid: %d x %d cells (%lld), dx = %s m, dy = %s m, south-west corner (%s, %s)\n", g.nx, g.ny,
              g.cells(), io::format_double(g.dx).c_str(), io::format_double(g.dy).c_str(),
              io::format_double(g.x0).c_str(), io::format_double(g.y0).c_str());
  std::printf("# initial state: %s; %zu output times up to %s s; %zu gauges; boundary segments: %zu\n",
              cfg.problem.c_str(), cfg.out.times.size(), io::format_double(cfg.t_end).c_str(), cfg.out.gauges.size(),
              cfg.bc.segments.size());
  if (cfg.pollutants.size() > 1 || !cfg.pollutants[0].empty())
    std::printf("# pollutants: %s\n", io::join(cfg.pollutants).c_str());
  std::fputs(parallel.c_str(), stdout);
  if (cfg.memory) {
    const MemoryAvailable& a = cfg.memory_available;
    std::printf("# memory: about %s of host memory for rank 0%s%s\n", format_bytes(cfg.memory->host).c_str(),
                a.host ? ("; " + format_bytes(*a.host) + " available (" + a.host_source + ")").c_str() : "",
                cfg.memory->device > 0 ? ("; " + format_bytes(cfg.memory->device) + " of device memory a rank" +
                                          (a.device ? " (" + format_bytes(*a.device) + " " + a.device_source + ")"
                                                    : std::string()))
                                             .c_str()
                                       : "");
  }
  std::printf("# outputs would go to %s\n", cfg.out.dir.c_str());
  if (!cfg.out.projection.empty()) {
    std::vector<std::string> keep;
    if (cfg.out.has_format("asc")) keep.push_back("beside each .asc");
    if (cfg.out.has_format("netcdf")) keep.push_back("in shwa.nc");
    const std::string name = io::projection_name(cfg.out.projection);
    std::printf("# coordinate system: %s from %s, written %s\n", name.empty() ? "(unnamed)" : io::quote(name).c_str(),
                cfg.out.projection_file.c_str(),
                keep.empty() ? "nowhere: only the asc and netcdf formats keep it"
                             : (keep[0] + (keep.size() > 1 ? " and " + keep[1] : "")).c_str());
  }
  // What `shwa run` would find there (output_files.hpp).
  if (const auto conflict = output_dir_conflict(cfg.out.dir, definition_metadata(cfg.definition)))
    std::printf("# note: %s %s: shwa run refuses it unless %s\n",
                cfg.out.dir.c_str(), conflict->c_str(), kOverwriteOption);
}

void print_info(const World& world) {
  const int v = KOKKOS_VERSION;
  std::printf("shwa %s\n", SHWA_VERSION);
  std::printf("Kokkos %d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
  std::printf("execution space: %s (concurrency %d)\n", Kokkos::DefaultExecutionSpace::name(),
              Kokkos::DefaultExecutionSpace().concurrency());
  std::printf("host execution space: %s\n", Kokkos::DefaultHostExecutionSpace::name());
  std::printf("precision: %s\n", SHWA_PRECISION_NAME);
  std::printf("FMA contraction: %s\n", fma_contraction());
  std::printf("device math: %s\n", device_math());
#ifdef SHWA_WITH_MPI
  std::printf("MPI: yes (%s); %d rank(s) in this run, one block per rank; CUDA-aware: %s\n",
              World::library_version().c_str(), world.size(), World::cuda_aware() ? "yes" : "no");
#else
  (void)world;
  std::printf("MPI: no\n");
#endif
  // The output formats this build writes, and what builds the others.
  std::string built, missing;
  for (const OutputFormatInfo& f : output_formats()) {
    if (f.available) built += (built.empty() ? "" : ", ") + f.name;
    else missing += "\n  " + f.name + ": " + f.description + "; " + f.to_enable;
  }
  std::printf("output formats: %s\n", built.c_str());
  std::printf("output formats not in this build:%s\n", missing.empty() ? " none" : missing.c_str());
  // The deck's other choices, from the tables that define them (inputs/README.md lists the same).
  std::printf("\noutput fields (output.fields; gauges.csv has them all):\n");
  for (const OutputFieldInfo& f : output_fields()) std::printf("  %s: %s\n", f.name.c_str(), f.description.c_str());
  std::printf("built-in problems (initial.problem):\n");
  for (const ProblemInfo& p : problems()) {
    std::string keys = p.keys;
    keys.erase(std::remove(keys.begin(), keys.end(), '`'), keys.end());  // Markdown's code marks
    std::printf("  %s: %s\n    [initial] keys: %s\n", p.name.c_str(), p.description.c_str(), keys.c_str());
  }
  std::printf("boundary types (boundary.SIDE.type):\n");
  for (const BoundaryTypeInfo& b : boundary_types()) std::printf("  %s: %s\n", b.name.c_str(), b.description.c_str());
  std::printf("\nKokkos configuration:\n");
  std::fflush(stdout);
  Kokkos::print_configuration(std::cout, false);
}

/// `s` as a POSIX shell reads it back: as it is if it holds only safe characters, else in single
/// quotes.
std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                      "0123456789_-+=./:,@%") == std::string::npos;
  if (safe) return s;
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The command line that continues an interrupted run: this one with --restart (and without
/// --overwrite, which a restart excludes: it would remove the run's own files).
std::string resume_command(int argc, char** argv) {
  std::string cmd;
  bool restart = false;
  for (int k = 0; k < argc; ++k) {
    if (k > 0 && std::string(argv[k]) == kOverwriteOption) continue;
    cmd += (k > 0 ? " " : "") + shell_word(argv[k]);
    restart = restart || std::string(argv[k]) == "--restart";
  }
  return restart ? cmd : cmd + " --restart";
}

/// Refuses a run whose MPI ranks resolved different decks (another --set, deck or working
/// folder on one rank), which would otherwise hang in or run past each other's messages: each
/// rank digests the record of every resolved deck key (RunConfig::definition, what a checkpoint
/// records) and whether it restarts, and every rank compares all the digests. Collective; every
/// rank throws the same io::InputError. Nothing to compare in one process.
void check_ranks_agree(const RunConfig& cfg, const Arguments& a, const World& world) {
  std::string record = std::string(a.restart ? "--restart\n" : "\n") + (a.overwrite ? "--overwrite\n" : "\n");
  for (const auto& [key, value] : cfg.definition.values) record += key + " = " + value + "\n";
  const int other = world.first_other_digest(io::crc32(record.data(), record.size()));
  if (other >= 0)
    throw io::InputError("the MPI ranks were given different runs: rank " + std::to_string(other) +
                         " resolved another deck than rank 0 (other deck values, --set options or --restart); "
                         "every rank must run the same deck with the same options");
}

/// Runs the chosen subcommand; errors propagate as exceptions.
int dispatch(const CLI::App& run, const CLI::App& check, const Arguments& a, const World& world) {
  if (run.parsed() || check.parsed()) {
    // Every rank reads the deck; an error on any rank stops all, reported once.
    // The memory a run needs is checked against what this node has before the state is built.
    LoadOptions lo;
    lo.restart = run.parsed() && a.restart;
    const auto node = world.node();
    lo.node = NodeShare{node.ranks, node.holds_root};
    lo.root = world.root();
    lo.dims = [&world](const RunConfig& c) { return decomposition_dims(c, world.size()); };
    lo.block = [&world](const RunConfig& c) { return block_extent(c, world); };
    RunConfig cfg;
    // The run's wall time starts here: reading the deck and its inputs is part of it.
    const auto started = std::chrono::steady_clock::now();
    collectively(world, [&] {
      io::Deck deck = load_deck(a);
      cfg = load_config(deck, a.deck, lo);
    });
    check_ranks_agree(cfg, a, world);
    if (check.parsed()) {
      std::string parallel;
      collectively(world, [&] { parallel = parallel_line(cfg, world); });
      if (world.root()) print_check(cfg, parallel);
      return kSuccess;
    }
    RunOptions opt;
    opt.started = started;
    opt.inputs_s = seconds_since(started);
    // A large deck's inputs take seconds, its set-up as long again: said before the first
    // progress line.
    if (world.root()) {
      std::printf("shwa: run %s: %d x %d cells to t = %s s; inputs read in %.3g s\n", a.deck.c_str(), cfg.grid.nx,
                  cfg.grid.ny, io::format_double(cfg.t_end).c_str(), opt.inputs_s);
      std::fflush(stdout);
    }
    opt.restart = a.restart;
    opt.overwrite = a.overwrite;
    catch_stop_signals();
    const RunStats s = run_simulation(cfg, opt);
    // Where the run's time went, so that a run whose outputs take longer than its steps says so:
    // the whole and the steps as summary.json's wall_time_s and time_loop_s (the slowest rank's),
    // the rest as its wall_time_split_s (rank 0's).
    if (world.root())
      std::printf("shwa: done: %ld steps, t = %s s in %.3g s (the steps %.3g s at %.3g cell updates/s, outputs %.3g s, "
                  "checkpoints %.3g s, inputs and set-up %.3g s); outputs in %s\n",
                  s.steps, io::format_double(cfg.t_end).c_str(), s.wall_total, s.wall_loop,
                  s.wall_loop > 0 ? double(s.nx) * double(s.ny) * double(s.steps_this_run) / s.wall_loop : 0.0,
                  s.outputs_s, s.checkpoints_s, s.inputs_s + s.set_up_s, cfg.out.dir.c_str());
    return kSuccess;
  }
  if (world.root()) print_info(world);
  return kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  remember_ignored_signals();  // before MPI's and the GPU's runtimes install their own handlers
  const Session session(argc, argv);
  const World world;
  // An error every rank shares: printed once, by rank 0.
  const auto error_line = [&world](const std::string& message) { world.report_error(message); };
  Arguments a;
  CLI::App app{"shwa: shallow-water flow and pollutant transport on Kokkos (Roe scheme, wet/dry fronts).\n"
               "Decks are TOML files; inputs/README.md describes their keys.",
               "shwa"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("shwa ") + SHWA_VERSION);
  // Kokkos' OpenMP thread pool fails beyond a few hundred threads: more than kMaxThreads is refused
  // as a bad command line, like a count below 1.
  constexpr int kMaxThreads = 256;
  app.add_option("--threads", a.threads, "Host threads Kokkos uses (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(1, kMaxThreads));
  app.add_option("--device", a.device, "GPU to run on (GPU builds)")->check(CLI::Range(0, 65535));
  app.footer("Examples:\n  shwa run inputs/estuary.toml\n  shwa run inputs/dam_break_stoker.toml --set grid.nx=800\n"
             "  shwa check inputs/estuary.toml --set numerics.cfl=0.5\n"
             "Exit codes: 0 success, 1 bad input or unwritable output, 2 bad command line, 3 the run blew up,\n"
             "4 SIGINT, SIGTERM or SIGHUP stopped the run after writing a checkpoint (two signals of which one is a SIGINT end it at once).");
  CLI::App* run = app.add_subcommand("run", "Run the simulation a deck describes");
  CLI::App* check = app.add_subcommand("check", "Validate a deck and print its resolved configuration; run nothing");
  app.add_subcommand("info", "Print the version, the Kokkos backends and device, the precision, MPI support, the "
                             "output formats, and the output fields, built-in problems and boundary types of decks");
  for (CLI::App* sub : {run, check}) {
    sub->fallthrough();  // --threads and --device after the command too
    sub->add_option("deck", a.deck, "The input deck (TOML)")->required()->type_name("DECK");
    // Without a key and an '=' it is a bad command line (exit 2); a bad key or value, the deck's
    // (Deck::set_override, exit 1).
    sub->add_option("--set,-s", a.sets, "Override a deck value (repeatable): --set numerics.cfl=0.5")
        ->type_name("SECTION.KEY=VALUE")
        ->allow_extra_args(false)
        ->check([](const std::string& s) {
          const auto eq = s.find('=');
          return eq == std::string::npos || s.find_first_not_of(" \t") == eq
                     ? "expected SECTION.KEY=VALUE, got " + io::quote(s)
                     : std::string();
        });
  }
  CLI::Option* restart =
      run->add_flag("--restart", a.restart, "Resume from the latest checkpoint in the output directory");
  run->add_flag(kOverwriteOption, a.overwrite,
                "Start over in an output directory that holds another run's files: remove shwa's files there "
                "first (other files stay)")
      ->excludes(restart);

  ignore_sigpipe();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return world.root() ? app.exit(e) : 0;  // --help
    std::string what = e.what();
    // A first word that is no command: name it, rather than that a command is required.
    if (app.get_subcommands().empty())
      for (int k = 1; k < argc; ++k) {
        const std::string word = argv[k];
        if (word == "--threads" || word == "--device") {
          ++k;
          continue;
        }
        if (!word.empty() && word[0] != '-') {
          what = "unknown command " + io::quote(word) + "; the commands are run, check and info";
          break;
        }
      }
    error_line(what + " (see shwa --help)");
    return kUsageError;
  }

  int code = kSuccess;
  KokkosOptions kopt{a.threads, a.device, /*disable_warnings=*/true};
  // One GPU per rank, chosen from the rank's place on its node (unless --device says).
  try {
    collectively(world, [&] {
      const int device = world.device();
      if (a.device < 0) kopt.device = device;
    });
  } catch (const std::exception& e) {
    error_line(e.what());
    return kInputError;
  }
  {
    note_process_cpus();  // the CPUs the output writers may use (affinity.hpp)
    Kokkos::ScopeGuard kokkos(kokkos_settings(kopt));
    try {
      code = dispatch(*run, *check, a, world);
    } catch (const BlowUp& e) {
      std::fflush(stdout);
      error_line(e.what());
      code = kBlowUp;
    } catch (const Interrupted& e) {
      // Every rank stopped after the same step; the root wrote the checkpoint and says so.
      std::fflush(stdout);
      if (world.root())
        std::fprintf(stderr, "shwa: %s\nshwa: resume with: %s%s\n", e.what(), resume_command(argc, argv).c_str(),
                     world.size() > 1 ? "  (behind the same mpirun; any number of ranks)" : "");
      code = kInterrupted;
    } catch (const std::bad_alloc&) {
      // An allocation the memory check did not foresee (numerics.memory_check = false, or memory
      // other programs took), or an input read into memory that was far larger than expected.
      std::fflush(stdout);
      error_line("out of memory: an allocation failed (the run's grid and outputs, or an input file "
                 "far larger than a deck's; numerics.memory_check estimates a run's needs before it starts)");
      code = kInputError;
    } catch (const std::exception& e) {
      std::fflush(stdout);
      error_line(e.what());
      code = kInputError;
    }
  }
  return code;
}

}  // namespace shwa::app
