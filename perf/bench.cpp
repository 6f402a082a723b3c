// shwa_bench — throughput of a shwa step on one device (docs/method.md section 8).
//
// A fixed problem (a wet basin with a bumpy bottom, a moving hump of water and a pollutant patch,
// walls) at the requested sizes, for each kernel variant and tile shape: a warm-up, then a fixed
// number of steps timed between fences. Reported: cell updates per second, the modelled traffic of a
// step (13 values a cell: the CFL pass reads h, qx, qy, H; the update reads them and hc and writes
// four; the bench sets no per-cell Manning field; each tracer past the first (--tracers) adds its
// read and its write), the bandwidth that implies, and its percent of the bandwidth a copy kernel
// of the same size reaches in the same process.
//
// For CI's instruction counts (perf/regression/): the timed steps run inside the noinline function
// shwa_bench_timed_loop, which `valgrind --tool=callgrind --toggle-collect=shwa_bench_timed_loop*`
// counts alone; --extra-work F (only the regression test uses it) adds, before each step, the CFL
// pass and the update kernel on the first F*n rows, a deliberate slowdown of about F.
#include "diagnostics.hpp"
#include "init.hpp"
#include "solver.hpp"
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace shwa;
using Clock = std::chrono::steady_clock;

/// Sustainable bandwidth [bytes/s] of a copy between two Views of n Reals (bytes read + written),
/// with a TeamPolicy (Kokkos 3.4's RangePolicy launch leaves half of an H200's bandwidth unused).
double copy_bandwidth(std::int64_t n, int reps) {
  Kokkos::View<Real*> a("copy_a", n), b("copy_b", n);
  Kokkos::deep_copy(a, Real(1));
  const int chunk = 4096;
  const std::int64_t nteams = (n + chunk - 1) / chunk;
  const int team = is_host_space<DefaultExec>() ? 1 : 256;
  auto copy = [&]() {
    Kokkos::parallel_for(
        "shwa::bench_copy", Kokkos::TeamPolicy<>(nteams, team),
        KOKKOS_LAMBDA(const Kokkos::TeamPolicy<>::member_type& m) {
          const std::int64_t base = std::int64_t(m.league_rank()) * chunk;
          const int len = int(n - base < chunk ? n - base : chunk);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len),
                               [&](int k) { b(base + k) = a(base + k); });
        });
  };
  copy();
  Kokkos::fence();
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    copy();
    Kokkos::fence();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, 2.0 * sizeof(Real) * double(n) / s);
  }
  return best;
}

}  // namespace

/// The timed steps; a named, non-inlined function so that callgrind can count exactly this
/// (--toggle-collect=shwa_bench_timed_loop*). extra_rows > 0: the deliberate slowdown (see above);
/// it writes only the next-state Views, which each step then overwrites, so the fields are unchanged.
__attribute__((noinline)) void shwa_bench_timed_loop(shwa::Solver<shwa::DefaultExec>& s,
                                                     shwa::SingleBlock<shwa::DefaultExec>& ex,
                                                     int steps, int extra_rows) {
  const shwa::Box o = s.grid().owned();
  const shwa::Box extra{o.i0, o.i1, o.j0, o.j0 + extra_rows};
  for (int k = 0; k < steps; ++k) {
    if (extra_rows > 0) s.update(extra, s.local_dt(extra));
    s.step(1e300, ex);
  }
  Kokkos::fence();
}

namespace {

struct Result {
  int n;
  std::string variant;
  Tiling tile;
  long steps;
  double seconds, cups, gbs, pct;
  std::string update_ghosts;
};

/// The problem's initial x-velocity [m/s], unless --velocity sets another.
constexpr double kVelocity = 0.5;

Result run_one(int n, Variant v, Tiling t, int warmup, int steps, double copy_bw, int extra_rows,
               bool skip_dry, int tracers, double velocity, const std::string& update_ghosts) {
  SolverParams p;
  p.tracers = tracers;
  p.variant = v;
  p.tiling = t;
  p.skip_dry = skip_dry;
  p.cfl = 0.9;
  p.manning = 0.02;
  const double L = 1000.0, dx = L / n;
  Grid g = Grid::single(n, n, dx, dx);
  SingleBlock<DefaultExec> ex;
  Solver<DefaultExec> s(g, p);
  if (update_ghosts == "off") s.set_update_ghosts_max_cells(0);
  if (update_ghosts == "all") s.set_update_ghosts_max_cells(g.owned().size());
  initialize(s, ex, [&](double x, double y, CellInit& c) {
    c.H = 10.0 + 2.0 * std::sin(x / 70.0) * std::cos(y / 90.0);
    c.eta = 1.0 * std::exp(-((x - 400) * (x - 400) + (y - 500) * (y - 500)) / 20000.0);
    c.u = velocity;
    c.c[0] = (x > 600 && y > 600) ? 1.0 : 0.0;
    for (int k = 1; k < tracers; ++k) c.c[k] = 0.001 * (k * x + y);  // the others: gradients
  });
  for (int k = 0; k < warmup; ++k) s.step(1e300, ex);
  Kokkos::fence();
  const auto t0 = Clock::now();
  shwa_bench_timed_loop(s, ex, steps, extra_rows);
  const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
  Result r;
  r.n = n;
  r.variant = to_string(v);
  r.tile = s.params().tiling;  // the tile as the solver resolved it
  r.tile.rows = shwa::detail::update_rows<DefaultExec>(g.owned(), t.rows);  // as the kernels resolve them
  // The last step's CFL rows where the device chose them from the teams that ran, else as resolved
  // from the block's size.
  r.tile.cfl_rows = s.last_cfl_rows() > 0 ? s.last_cfl_rows() : shwa::detail::cfl_rows<DefaultExec>(g.owned(), t);
  r.steps = steps;
  r.update_ghosts = update_ghosts;
  r.seconds = sec;
  r.cups = double(n) * n * steps / sec;
  r.gbs = r.cups * (11.0 + 2.0 * tracers) * sizeof(Real) / 1e9;
  r.pct = 100.0 * r.gbs * 1e9 / copy_bw;
  return r;
}

const char* compiler_id() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "unknown";
#endif
}

using shwa::perf::split;

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);  // takes its --kokkos-* arguments out first
  CLI::App app{"shwa_bench: cell updates per second of a shwa step, and percent of the copy bandwidth"};
  std::string sizes = "1024,2048", variants = "recompute,decoupled", tiles = "auto";
  int steps = 50, warmup = 5;
  std::string json;
  double extra_work = 0;
  int tracers = 1;
  std::string skip_dry = "on", update_ghosts = "on";
  double velocity = kVelocity;
  app.add_option("--sizes", sizes, "comma-separated grid sizes n (n x n cells)");
  app.add_option("--variants", variants, "comma-separated: recompute, decoupled");
  app.add_option("--tiles", tiles,
                 "comma-separated tile shapes TXxTY, TXxTY/R or TXxTY/R/C (R: rows a team of the device "
                 "decoupled kernel sweeps, C: of the device CFL pass; 0 or left out: chosen from the "
                 "grid's size, shown as Ra, Ca); auto: the build's default tile (default_tile)");
  app.add_option("--steps", steps, "timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_option("--skip-dry", skip_dry, "skip dry land that cannot change (the field is all wet: its cost)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--update-ghosts", update_ghosts,
                 "where the step comes from the device, the update writes the walls' ghost layers and "
                 "no fill runs before the next step: on (blocks up to the solver's size for it), off, "
                 "all (any size), or a comma-separated list of these run in turn");
  app.add_option("--velocity", velocity,
                 "the water's initial x-velocity [m/s]; 0: still water away from the hump, where the "
                 "kernels divide zero momenta (perf/history.py records only the default)");
  app.add_option("--json", json, "also write the results to this JSON file");
  app.add_option("--tracers", tracers, "passive tracers (pollutants) carried; the modelled traffic is 11 + 2 x tracers values a cell")
      ->check(CLI::Range(1, shwa::kMaxTracers));
  app.add_option("--extra-work", extra_work,
                 "TESTS ONLY: a deliberate slowdown; each step also runs the CFL pass and the update "
                 "on this fraction of the rows")
      ->check(CLI::Range(0.0, 1.0));
  CLI11_PARSE(app, argc, argv);

  for (const auto& ug : split(update_ghosts, ','))
    if (ug != "on" && ug != "off" && ug != "all") {
      std::fprintf(stderr, "shwa_bench: --update-ghosts: '%s' is not on, off or all\n", ug.c_str());
      return 2;
    }
  std::vector<Tiling> tilings;
  try {
    for (const auto& ts : split(tiles, ',')) tilings.push_back(shwa::perf::parse_tile(ts));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shwa_bench: %s\n", e.what());
    return 2;
  }
  std::vector<Result> results;
#ifndef SHWA_HOST_ISA
#define SHWA_HOST_ISA "default"
#endif
  std::printf("# shwa_bench: %s, %s precision, Kokkos %d, compiler %s, host ISA %s\n",
              DefaultExec::name(), sizeof(Real) == 8 ? "double" : "single", KOKKOS_VERSION,
              compiler_id(), SHWA_HOST_ISA);
  // The device column kernels' team widths, which a build can set (docs/kernels.md).
  if (!is_host_space<DefaultExec>())
    std::printf("# column teams: %d lanes; the capped update: %d lanes, in blocks of %ld teams or more; FMA "
                "contraction: %s; device math: %s\n",
                detail::kLanes, detail::kCappedLanes, detail::capped_update_teams<DefaultExec>(), fma_contraction(),
                device_math());
  if (extra_work > 0) std::printf("# extra work (deliberate slowdown): %g of the rows\n", extra_work);
  if (tracers != 1) std::printf("# %d tracers\n", tracers);
  if (velocity != kVelocity) std::printf("# initial x-velocity %g m/s\n", velocity);
  std::printf("%7s %-10s %10s %7s %10s %12s %9s %8s %9s\n", "n", "variant", "tile/rows", "steps", "time[s]",
              "Gcells/s", "GB/s", "copyGB/s", "%copy");
  for (const auto& ns : split(sizes, ',')) {
    const int n = std::stoi(ns);
    const double bw = copy_bandwidth(std::int64_t(n) * n * 4, 10);
    for (const auto& vs : split(variants, ',')) {
      const Variant v = vs == "recompute" ? Variant::Recompute : Variant::Decoupled;
      if (vs != "recompute" && vs != "decoupled") {
        std::fprintf(stderr, "shwa_bench: unknown variant '%s'\n", vs.c_str());
        return 2;
      }
      for (const Tiling& t : tilings) for (const auto& ug : split(update_ghosts, ',')) {
        const Result r = run_one(n, v, t, warmup, steps, bw, int(std::lround(extra_work * n)), skip_dry == "on", tracers,
                                 velocity, ug);
        results.push_back(r);
        const std::string ts = std::to_string(r.tile.tx) + "x" + std::to_string(r.tile.ty) + "/" + std::to_string(r.tile.rows) +
                               (t.rows > 0 ? "" : "a") + "/" + std::to_string(r.tile.cfl_rows) + (t.cfl_rows > 0 ? "" : "a");
        std::printf("%7d %-10s %10s %7ld %10.4f %12.4f %9.1f %8.1f %8.1f%%%s\n", r.n,
                    r.variant.c_str(), ts.c_str(), r.steps, r.seconds, r.cups / 1e9, r.gbs,
                    bw / 1e9, r.pct, r.update_ghosts == "on" ? "" : ("  update ghosts " + r.update_ghosts).c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!json.empty()) {
    std::ofstream f(json);
    f << "{\n  \"space\": \"" << DefaultExec::name() << "\",\n  \"precision\": \""
      << (sizeof(Real) == 8 ? "double" : "float") << "\",\n  \"tracers\": " << tracers << ",\n  \"velocity\": " << velocity;
    if (!is_host_space<DefaultExec>())
      f << ",\n  \"column_lanes\": " << detail::kLanes << ",\n  \"capped_lanes\": " << detail::kCappedLanes;
    f << ",\n  \"results\": [\n";
    for (size_t k = 0; k < results.size(); ++k) {
      const auto& r = results[k];
      f << "    {\"n\": " << r.n << ", \"variant\": \"" << r.variant << "\", \"tile\": [" << r.tile.tx
        << ", " << r.tile.ty << "], \"rows\": " << r.tile.rows << ", \"cfl_rows\": " << r.tile.cfl_rows << ", \"steps\": " << r.steps << ", \"seconds\": " << r.seconds
        << ", \"cell_updates_per_s\": " << r.cups << ", \"GBps\": " << r.gbs
        << ", \"percent_of_copy\": " << r.pct
        << ", \"update_ghosts\": \"" << r.update_ghosts << "\"}" << (k + 1 < results.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
  }
  return 0;
}
