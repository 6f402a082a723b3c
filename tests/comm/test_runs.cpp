// Whole runs on several ranks against one block: a wet/dry dam break with a pollutant over a bumpy
// bottom with an island, Manning friction (a per-cell field), a stage segment, a discharge segment
// and an open side. Every decomposition, halo width and overlap setting must give the fields of
// the single-block run bit for bit, with the same time steps.
#include "gather.hpp"
#include "init.hpp"
#include "mpi_exchanger.hpp"
#include "mpi_test.hpp"

#include <algorithm>
#include <cmath>

using namespace shwa;
using namespace shwa::comm;
using namespace shwa::test;
using E = DefaultExec;

namespace {

constexpr int kNx = 80, kNy = 60;
constexpr double kDx = 10.0, kTEnd = 240.0;

void initial(double x, double y, CellInit& c) {
  const double island = std::exp(-((x - 330) * (x - 330) + (y - 380) * (y - 380)) / (45.0 * 45.0));
  // Bed rising eastwards with bumps; the island top stands ~2 m above the reference level.
  c.H = 1.2 - 2.0 * x / (kNx * kDx) + 0.3 * std::sin(x / 37.0) * std::cos(y / 23.0) - 3.5 * island;
  c.eta = x < 250 ? 1.0 : -0.3;  // the reservoir; downstream wet only where the bed is deep
  c.c[0] = (x < 150 && y > 200 && y < 400) ? 1.0 : 0.0;
  c.c[1] = 0.001 * y;  // a second tracer: every cell's halo carries one
  c.n = x > 500 ? 0.05 : 0.025;
}

Boundaries boundaries() {
  Boundaries b = Boundaries::all(BcType::Wall);
  b.side_default[East] = BcType::Open;
  BcSegment stage;
  stage.side = West;
  stage.begin = 35;
  stage.end = 50;
  stage.type = BcType::Stage;
  stage.stage = Series({0.0, 100.0}, {1.0, 1.4});
  BcSegment river;
  river.side = South;
  river.begin = 30;
  river.end = 45;
  river.type = BcType::Discharge;
  river.discharge = Series({0.0, 60.0}, {5.0, 25.0});
  river.concentration = {Series(0.5), Series(2.0)};
  b.segments = {stage, river};
  return b;
}

SolverParams params(Variant v) {
  SolverParams p;
  p.cfl = 0.9;
  p.eps_h = 1e-3;
  p.manning = 0.03;  // replaced by the per-cell field
  p.variant = v;
  p.tiling = {16, 4};  // tiles that straddle the block boundaries
  p.tracers = 2;
  return p;
}

struct Result {
  std::vector<double> h, qx, qy, hc, hc2;  // the whole grid (rank 0 only for the decomposed runs)
  std::vector<double> dt;
  long steps = 0;
  double time = 0;
};

/// The whole domain on one block, k = 1, no MPI.
Result single_block(Variant v) {
  SingleBlock<E> ex;
  Solver<E> s(Grid::single(kNx, kNy, kDx, kDx), params(v), boundaries());
  initialize(s, ex, initial);
  Result r;
  while (s.time() < kTEnd) r.dt.push_back(s.step(kTEnd, ex));
  r.h = owned_to_host(s.state().h, s.grid());
  r.qx = owned_to_host(s.state().qx, s.grid());
  r.qy = owned_to_host(s.state().qy, s.grid());
  r.hc = owned_to_host(s.state().hc[0], s.grid());
  r.hc2 = owned_to_host(s.state().hc[1], s.grid());
  r.steps = s.steps();
  r.time = s.time();
  return r;
}

Result decomposed(Variant v, Decomposition d, int k, bool overlap, Transport t) {
  CartDecomposition cart(MPI_COMM_WORLD, Grid::single(kNx, kNy, kDx, kDx, 0, 0, k), d);
  MpiExchanger<E> ex(cart, ExchangeOptions{t});
  Solver<E> s(cart.grid(), params(v), boundaries());
  s.set_overlap(overlap);
  initialize(s, ex, initial);
  Result r;
  while (s.time() < kTEnd) r.dt.push_back(s.step(kTEnd, ex));
  r.h = gather_field(cart, s.state().h);
  r.qx = gather_field(cart, s.state().qx);
  r.qy = gather_field(cart, s.state().qy);
  r.hc = gather_field(cart, s.state().hc[0]);
  r.hc2 = gather_field(cart, s.state().hc[1]);
  r.steps = s.steps();
  r.time = s.time();
  return r;
}

/// Cells that differ in any bit (== on doubles; NaN counts as different).
long differing(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return long(std::max(a.size(), b.size()));
  long n = 0;
  for (size_t c = 0; c < a.size(); ++c) n += !(a[c] == b[c]);
  return n;
}

/// The first step whose dt differs, -1 if none (and the sequences are as long).
long first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t n = 0; n < std::min(a.size(), b.size()); ++n)
    if (!(a[n] == b[n])) return long(n);
  return a.size() == b.size() ? -1 : long(std::min(a.size(), b.size()));
}

}  // namespace

TEST_CASE("whole runs: any decomposition, k and overlap give the single block's answer bit for bit",
          "[runs]") {
  const int rank = world_rank(), np = world_size();
  for (Variant v : {Variant::Decoupled, Variant::Recompute}) {
    const Result ref = single_block(v);
    INFO(to_string(v) << " kernels, " << ref.steps << " steps");
    // The case is meant to be a few hundred steps with wet and dry cells and pollutant.
    CHECK(ref.steps >= 200);
    CHECK(std::count(ref.h.begin(), ref.h.end(), 0.0) > 100);
    CHECK(*std::max_element(ref.hc.begin(), ref.hc.end()) > 0.1);

    for (const auto& nd : {decompositions()[0], decompositions()[1]})
      for (int k : {1, 2, 4})
        for (bool overlap : {false, true}) {
          // Both transports, alternately.
          const Transport t = ((k + overlap) % 2 || !direct_transport_usable()) ? Transport::Staged
                                                                             : Transport::Direct;
          INFO(nd.name << " on " << np << " ranks, k = " << k << ", overlap "
                       << (overlap ? "on" : "off") << ", "
                       << (t == Transport::Staged ? "staged" : "direct"));
          const Result r = decomposed(v, nd.d, k, overlap, t);
          CHECK(r.steps == ref.steps);
          CHECK(r.time == ref.time);
          CHECK(first_difference(r.dt, ref.dt) == -1);
          // Rank 0 holds the gathered fields; every rank learns the verdict.
          long diff[5] = {0, 0, 0, 0, 0};
          if (rank == 0) {
            diff[0] = differing(r.h, ref.h);
            diff[1] = differing(r.qx, ref.qx);
            diff[2] = differing(r.qy, ref.qy);
            diff[3] = differing(r.hc, ref.hc);
            diff[4] = differing(r.hc2, ref.hc2);
          }
          MPI_Bcast(diff, 5, MPI_LONG, 0, MPI_COMM_WORLD);
          INFO("cells differing in h " << diff[0] << ", qx " << diff[1] << ", qy " << diff[2]
                                       << ", hc " << diff[3] << ", hc2 " << diff[4]);
          CHECK((diff[0] == 0 && diff[1] == 0 && diff[2] == 0 && diff[3] == 0 && diff[4] == 0));
        }
  }
}
