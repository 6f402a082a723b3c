// The halo exchange alone, no physics: every cell of every field checked exactly after exchanges,
// for strips, columns and 2D blocks, halo widths 1 to 3, fields with more ghost layers than the
// width exchanged, both transports.
#include "mpi_exchanger.hpp"
#include "mpi_test.hpp"

#include <sstream>

using namespace shwa;
using namespace shwa::comm;
using namespace shwa::test;
using E = DefaultExec;

namespace {

constexpr int kNx = 19, kNy = 18;  // uneven splits; 4 blocks along either axis stay >= 4 cells

/// The value of field f at global cell (gi, gj): unique, exact in float too.
Real value(int f, int gi, int gj, Real shift) {
  return Real((f + 1) * 100000 + gj * 100 + gi) + shift;
}
/// What no exchange may write: unique per rank.
Real sentinel(int rank) { return Real(-1 - rank); }

using Host = HostMirror<Field<E>>;

/// Sentinel everywhere, value(f, ...) + shift on the owned cells.
void fill(const Field<E>& v, int f, const Grid& g, Real shift, int rank) {
  Host m = Kokkos::create_mirror_view(v);
  for (int j = 0; j < g.ny_padded(); ++j)
    for (int i = 0; i < g.nx_padded(); ++i) {
      const bool owned = i >= g.ng && i < g.ng + g.nx && j >= g.ng && j < g.ng + g.ny;
      m(j, i) = owned ? value(f, g.ioff + i - g.ng, g.joff + j - g.ng, shift) : sentinel(rank);
    }
  Kokkos::deep_copy(v, m);
}

/// Sets the owned cells to `junk`.
/// Sets every owned cell of v to junk with a kernel on `space`: queued behind what is already
/// queued there (a pack that begin_exchange left to run), it must not reach what was sent.
void overwrite_owned(const Field<E>& v, const Grid& g, Real junk, const E& space) {
  Kokkos::parallel_for(
      "overwrite_owned",
      Kokkos::MDRangePolicy<E, Kokkos::Rank<2>>(space, {g.ng, g.ng}, {g.ng + g.ny, g.ng + g.nx}),
      KOKKOS_LAMBDA(int j, int i) { v(j, i) = junk; });
}

/// Checks every cell of field f after an exchange of width w: owned cells hold `owned` (or their
/// value), ghost cells within w of the block and inside the domain hold the value of their global
/// cell, every other cell (outside the domain: the boundary conditions' ghosts) still holds the
/// sentinel. Returns the number of wrong cells; describes the first in `first`
/// unless it already describes one.
long check(const Field<E>& v, int f, const Grid& g, int w, Real shift, int rank,
           const Real* owned_junk, std::string& first) {
  Host m = Kokkos::create_mirror_view(v);
  Kokkos::deep_copy(m, v);
  long bad = 0;
  for (int j = 0; j < g.ny_padded(); ++j)
    for (int i = 0; i < g.nx_padded(); ++i) {
      const int gi = g.ioff + i - g.ng, gj = g.joff + j - g.ng;
      // Distance outside the owned cells along each axis (0 inside).
      const int ox = i < g.ng ? g.ng - i : (i >= g.ng + g.nx ? i - (g.ng + g.nx - 1) : 0);
      const int oy = j < g.ng ? g.ng - j : (j >= g.ng + g.ny ? j - (g.ng + g.ny - 1) : 0);
      const bool owned = ox == 0 && oy == 0;
      const bool in_domain = gi >= 0 && gi < g.nx_global && gj >= 0 && gj < g.ny_global;
      Real expected = sentinel(rank);
      if (owned)
        expected = owned_junk ? *owned_junk : value(f, gi, gj, shift);
      else if (in_domain && ox <= w && oy <= w)
        expected = value(f, gi, gj, shift);
      if (m(j, i) != expected) {
        ++bad;
        if (first.empty()) {
          std::ostringstream s;
          s << "rank " << rank << " field " << f << " storage (j, i) = (" << j << ", " << i
            << "), global (" << gi << ", " << gj << "): " << m(j, i) << ", expected " << expected;
          first = s.str();
        }
      }
    }
  return bad;
}

}  // namespace

TEST_CASE("halo exchange: every cell exact, all widths, decompositions and transports", "[halo]") {
  const int rank = world_rank(), np = world_size();
  for (const auto& nd : decompositions())
    for (int k = 1; k <= 3; ++k)
      for (Transport t : {Transport::Direct, Transport::Staged}) {
        if (t == Transport::Direct && !direct_transport_usable()) continue;
        CartDecomposition cart(MPI_COMM_WORLD, Grid::single(kNx, kNy, 1, 1, 0, 0, k), nd.d);
        MpiExchanger<E> ex(cart, ExchangeOptions{t});
        const Grid& g = cart.grid();
        INFO(nd.name << " (" << cart.px() << " x " << cart.py() << ") on " << np
                     << " ranks, halo width " << k << ", "
                     << (t == Transport::Staged ? "staged" : "direct"));
        CHECK(ex.staged() == (t == Transport::Staged));
        // Neighbours: every side and corner that does not lie on the domain boundary.
        const int options_x = 1 + !g.physical[West] + !g.physical[East];
        const int options_y = 1 + !g.physical[South] + !g.physical[North];
        CHECK(ex.neighbors() == options_x * options_y - 1);

        Conserved<E> w("W", g);
        std::string first;
        long bad = 0;

        // A blocking exchange.
        for (int f = 0; f < 4; ++f) fill(w[f], f, g, 0, rank);
        ex.exchange(w);
        for (int f = 0; f < 4; ++f) bad += check(w[f], f, g, k, 0, rank, nullptr, first);
        INFO("plain exchange: " << first);
        CHECK(sum_over_ranks(bad) == 0);

        // Split phase, the same buffers again, sending at once and at end_exchange: the ghosts
        // get the owned cells as they were at begin_exchange, whatever happens to them on the
        // same instance before end_exchange.
        for (Send send : {Send::Now, Send::AtEnd}) {
          bad = 0;
          first.clear();
          for (int f = 0; f < 4; ++f) fill(w[f], f, g, Real(0.5), rank);
          const E space;
          ex.begin_exchange(w, space, send);
          const Real junk = Real(-1000);
          for (int f = 0; f < 4; ++f) overwrite_owned(w[f], g, junk, space);
          ex.end_exchange(w);
          for (int f = 0; f < 4; ++f) bad += check(w[f], f, g, k, Real(0.5), rank, &junk, first);
          INFO("split-phase exchange, " << (send == Send::Now ? "sent at once: " : "sent at the end: ")
                                        << first);
          CHECK(sum_over_ranks(bad) == 0);
        }

        // One static field.
        bad = 0;
        first.clear();
        Field<E> H("H", g.ny_padded(), g.nx_padded());
        fill(H, 7, g, 0, rank);
        ex.exchange_field(H);
        bad += check(H, 7, g, k, 0, rank, nullptr, first);
        INFO("exchange_field: " << first);
        CHECK(sum_over_ranks(bad) == 0);
      }
}

TEST_CASE("halo exchange: the buffer state machine refuses misuse", "[halo]") {
  CartDecomposition cart(MPI_COMM_WORLD, Grid::single(kNx, kNy, 1, 1, 0, 0, 2));
  MpiExchanger<E> ex(cart);
  const Grid& g = cart.grid();
  Conserved<E> w("W", g), other("other", g);
  Field<E> H("H", g.ny_padded(), g.nx_padded());

  CHECK_THROWS_AS(ex.end_exchange(w), std::logic_error);  // nothing in flight
  ex.begin_exchange(w);
  CHECK_THROWS_AS(ex.begin_exchange(w), std::logic_error);
  CHECK_THROWS_AS(ex.exchange_field(H), std::logic_error);
  CHECK_THROWS_AS(ex.end_exchange(other), std::invalid_argument);
  ex.end_exchange(w);  // the exchange begun first completes normally
  CHECK_THROWS_AS(ex.end_exchange(w), std::logic_error);

  Conserved<E> wrong("wrong", Grid::single(3, 3, 1, 1, 0, 0, 2));
  CHECK_THROWS_AS(ex.begin_exchange(wrong), std::invalid_argument);
  ex.exchange(w);  // still usable
  // The only rank holds the whole domain: the solver may keep the step on the device.
  CHECK(ex.single_block() == (world_size() == 1));
}

TEST_CASE("min_all and sum_all reduce over every rank; NaN anywhere is NaN everywhere", "[halo]") {
  CartDecomposition cart(MPI_COMM_WORLD, Grid::single(kNx, kNy, 1, 1, 0, 0, 1));
  MpiExchanger<E> ex(cart);
  const int rank = world_rank(), np = world_size();
  CHECK(ex.min_all(10.0 - rank) == 10.0 - (np - 1));
  CHECK(ex.sum_all(rank + 0.5) == np * (np - 1) / 2.0 + 0.5 * np);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(ex.min_all(rank == np - 1 ? nan : 1.0)));
  CHECK(std::isnan(ex.min_all(rank == 0 ? nan : 1.0)));
  // Auto on host memory hands MPI the buffers themselves.
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, E::memory_space>::accessible)
    CHECK_FALSE(ex.staged());
}

TEST_CASE("the exchanger counts its exchanges and reductions and times them", "[halo]") {
  CartDecomposition cart(MPI_COMM_WORLD, Grid::single(kNx, kNy, 1, 1, 0, 0, 1));
  MpiExchanger<E> ex(cart);
  Conserved<E> w("W", cart.grid());
  ex.exchange(w);
  ex.exchange_field(w.h);
  ex.min_all(1.0);
  const CommTimes& t = ex.times();
  CHECK(t.exchanges == (ex.neighbors() > 0 ? 2 : 0));
  CHECK(t.reductions == 1);
  CHECK((t.post >= 0 && t.wait >= 0 && t.unpack >= 0 && t.reduce >= 0));
  ex.reset_times();
  CHECK((ex.times().exchanges == 0 && ex.times().reductions == 0 && ex.times().reduce == 0));
}
