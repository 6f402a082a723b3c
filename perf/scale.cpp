// shwa_scale — throughput of a step over several MPI ranks, one GPU (or one CPU socket) a rank
// (docs/method.md sections 7 and 8): strong scaling (a fixed global grid) or weak scaling (a fixed block a
// rank), for each halo width k and overlap setting asked for, with the time of a step split into
// compute, halo exchange and allreduce.
//
// The problem is shwa_bench's (a wet basin with a bumpy bottom, a moving hump and a pollutant,
// walls). Timing: all ranks start together (barrier), run the steps, fence; the slowest rank's time
// counts. The split comes from the exchanger's CommTimes (comm/mpi_exchanger.hpp), which wait for
// the kernels queued before a phase outside its timer: halo = post + wait + unpack, allreduce = the
// MPI_Allreduce of dt (it includes waiting for slower ranks: load imbalance shows there), compute =
// the rest (boundary fill, CFL pass, update kernels). With overlap on, the wait for the messages
// runs while the GPU updates the interior, so there halo time is an upper bound of what is exposed;
// compare the total with overlap off.
//
//   mpirun -np 2 shwa_scale --n 8192 [--weak] --k 1,2,4 --overlap off,on --steps 100 --json r.json
#include "cart.hpp"
#include "device.hpp"
#include "init.hpp"
#include "mpi_exchanger.hpp"
#include "solver.hpp"
#include "common.hpp"

#include <CLI/CLI.hpp>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace shwa;
using namespace shwa::comm;

struct Row {
  int np, px, py, nx, ny, k;
  bool overlap, staged;
  long steps;
  double seconds, compute, halo, allreduce, cups;
};

using shwa::perf::split;

double max_over_ranks(double v, MPI_Comm c) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, c);
  return m;
}

Row run_one(int nx, int ny, Decomposition d, int k, bool overlap, Transport tr, Variant v, Tiling t,
            int warmup, int steps) {
  SolverParams p;
  p.variant = v;
  p.tiling = t;
  p.cfl = 0.9;
  p.manning = 0.02;
  const double dx = 1000.0 / std::max(nx, ny);
  CartDecomposition cart(MPI_COMM_WORLD, Grid::single(nx, ny, dx, dx, 0, 0, k), d);
  MpiExchanger<DefaultExec> ex(cart, ExchangeOptions{tr});
  Solver<DefaultExec> s(cart.grid(), p);
  s.set_overlap(overlap);
  const double Lx = nx * dx, Ly = ny * dx;
  initialize(s, ex, [&](double x, double y, CellInit& c) {
    c.H = 10.0 + 2.0 * std::sin(x / 70.0) * std::cos(y / 90.0);
    c.eta = 1.0 * std::exp(-((x - 0.4 * Lx) * (x - 0.4 * Lx) + (y - 0.5 * Ly) * (y - 0.5 * Ly)) / 20000.0);
    c.u = 0.5;
    c.c[0] = (x > 0.6 * Lx && y > 0.6 * Ly) ? 1.0 : 0.0;
  });
  for (int n = 0; n < warmup; ++n) s.step(1e300, ex);
  Kokkos::fence();
  ex.reset_times();
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int n = 0; n < steps; ++n) s.step(1e300, ex);
  Kokkos::fence();
  const double mine = MPI_Wtime() - t0;
  const CommTimes& c = ex.times();
  Row r;
  r.np = cart.size();
  r.px = cart.px();
  r.py = cart.py();
  r.nx = nx;
  r.ny = ny;
  r.k = k;
  r.overlap = overlap;
  r.staged = ex.staged();
  r.steps = steps;
  r.seconds = max_over_ranks(mine, MPI_COMM_WORLD);
  // The split of the slowest rank's kind: each part's maximum over ranks.
  r.halo = max_over_ranks(c.post + c.wait + c.unpack, MPI_COMM_WORLD);
  r.allreduce = max_over_ranks(c.reduce, MPI_COMM_WORLD);
  r.compute = max_over_ranks(mine - (c.post + c.wait + c.unpack + c.reduce), MPI_COMM_WORLD);
  r.cups = double(nx) * ny * steps / r.seconds;
  return r;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  CLI::App app{"shwa_scale: strong or weak scaling of a shwa step over MPI ranks"};
  int n = 4096, steps = 100, warmup = 10;
  bool weak = false;
  std::string ks = "1", overlaps = "off", decomp = "auto", transport = "auto", variant = "decoupled",
              tile = "32x8", json;
  app.add_option("--n", n, "strong: the global grid is n x n; weak: each rank's block is n x n")
      ->check(CLI::PositiveNumber);
  app.add_flag("--weak", weak, "weak scaling (n x n cells a rank)");
  app.add_option("--k", ks, "comma-separated halo widths");
  app.add_option("--overlap", overlaps, "comma-separated: off, on");
  app.add_option("--decomposition", decomp, "auto, strips (1 x P, rows), or PXxPY");
  app.add_option("--transport", transport, "auto, direct, staged");
  app.add_option("--variant", variant, "recompute or decoupled");
  app.add_option("--tile", tile, "TXxTY");
  app.add_option("--steps", steps, "timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_option("--json", json, "also write the results to this JSON file (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : 0;
    MPI_Finalize();
    return code;
  }
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(kokkos_settings(kokkos_options(MPI_COMM_WORLD)));
    try {
      Decomposition d = Decomposition::automatic();
      if (decomp == "strips") {
        d = Decomposition::strips();
      } else if (decomp != "auto") {
        const auto xy = split(decomp, 'x');
        if (xy.size() != 2) throw ConfigError("--decomposition '" + decomp + "' is not auto, strips or PXxPY");
        d = Decomposition::forced(std::stoi(xy[0]), std::stoi(xy[1]));
      }
      const Transport tr = transport == "direct" ? Transport::Direct
                           : transport == "staged" ? Transport::Staged
                                                   : Transport::Auto;
      const Tiling t = shwa::perf::parse_tile(tile);
      const Variant v = variant == "recompute" ? Variant::Recompute : Variant::Decoupled;
      // Weak scaling: the blocks are n x n, laid out as the decomposition of an n x n grid would be.
      int nx = n, ny = n;
      if (weak) {
        const Dims dims = choose_dims(np, Grid::single(n, n, 1.0, 1.0), d);
        nx = n * dims.px;
        ny = n * dims.py;
        d = Decomposition::forced(dims.px, dims.py);
      }
      std::vector<Row> rows;
      if (rank == 0) {
        std::printf("# shwa_scale: %s, %s, %d ranks, %s scaling, %s kernels, tile %s\n",
                    DefaultExec::name(), sizeof(Real) == 8 ? "double" : "single", np,
                    weak ? "weak" : "strong", variant.c_str(), tile.c_str());
        std::printf("%5s %6s %13s %2s %7s %6s %6s %9s %9s %9s %9s %9s\n", "ranks", "blocks", "grid",
                    "k", "overlap", "staged", "steps", "ms/step", "compute", "halo", "allred",
                    "Gcells/s");
      }
      for (const auto& kk : split(ks, ','))
        for (const auto& ov : split(overlaps, ',')) {
          const Row r = run_one(nx, ny, d, std::stoi(kk), ov == "on", tr, v, t, warmup, steps);
          rows.push_back(r);
          if (rank == 0) {
            const double ms = 1e3 / double(r.steps);
            std::printf("%5d %3dx%-2d %6dx%-6d %2d %7s %6s %6ld %9.3f %9.3f %9.3f %9.3f %9.3f\n",
                        r.np, r.px, r.py, r.nx, r.ny, r.k, r.overlap ? "on" : "off",
                        r.staged ? "yes" : "no", r.steps, r.seconds * ms, r.compute * ms,
                        r.halo * ms, r.allreduce * ms, r.cups / 1e9);
            std::fflush(stdout);
          }
        }
      if (rank == 0 && !json.empty()) {
        std::ofstream f(json);
        f << "{\n  \"space\": \"" << DefaultExec::name() << "\",\n  \"precision\": \""
          << (sizeof(Real) == 8 ? "double" : "float") << "\",\n  \"scaling\": \""
          << (weak ? "weak" : "strong") << "\",\n  \"variant\": \"" << variant
          << "\",\n  \"tile\": \"" << tile << "\",\n  \"results\": [\n";
        for (size_t q = 0; q < rows.size(); ++q) {
          const Row& r = rows[q];
          f << "    {\"ranks\": " << r.np << ", \"px\": " << r.px << ", \"py\": " << r.py
            << ", \"nx\": " << r.nx << ", \"ny\": " << r.ny << ", \"k\": " << r.k
            << ", \"overlap\": " << (r.overlap ? "true" : "false")
            << ", \"staged\": " << (r.staged ? "true" : "false") << ", \"steps\": " << r.steps
            << ", \"seconds\": " << r.seconds << ", \"compute_s\": " << r.compute
            << ", \"halo_s\": " << r.halo << ", \"allreduce_s\": " << r.allreduce
            << ", \"cell_updates_per_s\": " << r.cups << "}" << (q + 1 < rows.size() ? "," : "")
            << "\n";
        }
        f << "  ]\n}\n";
      }
    } catch (const std::exception& e) {
      report_on_root(MPI_COMM_WORLD, e.what());
      code = 1;
    }
  }
  MPI_Finalize();
  return code;
}
