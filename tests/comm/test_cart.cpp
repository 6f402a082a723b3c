// The Cartesian decomposition: block sizes, dims, errors, neighbours, gather, device choice.
#include "cart.hpp"
#include "device.hpp"
#include "mpi_check.hpp"
#include "mpi_test.hpp"

#include <algorithm>
#include <numeric>

using namespace shwa;
using namespace shwa::comm;
using namespace shwa::test;
using Catch::Matchers::Contains;

namespace {

Grid global(int nx, int ny, int k) { return Grid::single(nx, ny, 1.0, 1.0, 0.0, 0.0, k); }

std::string error_of(int np, const Grid& g, Decomposition d) {
  try {
    choose_dims(np, g, d);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("split_evenly: every cell once, sizes within one", "[cart]") {
  for (int n : {1, 7, 60, 61, 80})
    for (int p = 1; p <= std::min(n, 9); ++p) {
      int next = 0, smallest = n, largest = 0;
      for (int c = 0; c < p; ++c) {
        const Span s = split_evenly(n, p, c);
        CHECK(s.offset == next);
        next = s.offset + s.size;
        smallest = std::min(smallest, s.size);
        largest = std::max(largest, s.size);
      }
      CHECK(next == n);
      CHECK(largest - smallest <= 1);
      CHECK(smallest == n / p);  // what choose_dims assumes of the thinnest block
    }
}

TEST_CASE("choose_dims: automatic, strips, forced", "[cart]") {
  auto dims = [](int np, int nx, int ny, Decomposition d) {
    const Dims r = choose_dims(np, global(nx, ny, 1), d);
    return std::make_pair(r.px, r.py);
  };
  using P = std::pair<int, int>;
  CHECK(dims(1, 80, 60, Decomposition::automatic()) == P{1, 1});
  CHECK(dims(4, 80, 60, Decomposition::automatic()) == P{2, 2});
  CHECK(dims(2, 80, 60, Decomposition::automatic()) == P{2, 1});  // the longer side is split
  CHECK(dims(2, 60, 80, Decomposition::automatic()) == P{1, 2});
  CHECK(dims(6, 80, 60, Decomposition::automatic()) == P{3, 2});
  CHECK(dims(6, 60, 80, Decomposition::automatic()) == P{2, 3});
  CHECK(dims(4, 80, 60, Decomposition::strips()) == P{1, 4});
  CHECK(dims(4, 80, 60, Decomposition::forced(4, 1)) == P{4, 1});
  CHECK(dims(8, 80, 60, Decomposition{2, 0}) == P{2, 4});
  // A single block along an axis needs no halo there, however thin.
  CHECK(dims(2, 2, 40, Decomposition::strips()) == P{1, 2});
  // A square grid: the tie between 2 x 1 and 1 x 2 goes to strips of whole rows.
  CHECK(dims(2, 64, 64, Decomposition::automatic()) == P{1, 2});
}

TEST_CASE("choose_dims: automatic takes a valid split of thin grids", "[cart]") {
  auto dims = [](int np, int nx, int ny, int k) {
    const Dims r = choose_dims(np, global(nx, ny, k), Decomposition::automatic());
    return std::make_pair(r.px, r.py);
  };
  using P = std::pair<int, int>;
  // 2 x 2 would leave blocks 0 cells tall: 4 x 1 is the split that works.
  CHECK(dims(4, 4, 1, 1) == P{4, 1});
  CHECK(dims(4, 1, 4, 1) == P{1, 4});
  CHECK(dims(4, 400, 1, 1) == P{4, 1});
  CHECK(dims(4, 1000, 10, 1) == P{4, 1});  // valid 2 x 2, but 4 x 1 cuts fewer cells
  CHECK(dims(4, 2, 40, 1) == P{1, 4});
  CHECK(dims(6, 12, 2, 2) == P{6, 1});    // 3 x 2 and 2 x 3 have blocks 1 cell tall
  CHECK(dims(8, 16, 3, 2) == P{8, 1});
  CHECK(error_of(8, global(4, 1, 1), Decomposition::automatic()) ==
        "no split of the 4 x 1 grid into 8 blocks gives every block at least the halo width k = 1 "
        "cell(s) along each split axis; run fewer ranks or a smaller halo width");
  CHECK(error_of(4, global(7, 1, 2), Decomposition::automatic()) ==
        "no split of the 7 x 1 grid into 4 blocks gives every block at least the halo width k = 2 "
        "cell(s) along each split axis; run fewer ranks or a smaller halo width");
}

TEST_CASE("choose_dims: automatic is valid and cuts least among all splits", "[cart]") {
  // Against every factorisation, by brute force over small grids, rank counts and halo widths.
  for (int np = 1; np <= 12; ++np)
    for (int nx : {1, 2, 3, 5, 8, 13, 40})
      for (int ny : {1, 2, 4, 7, 30})
        for (int k : {1, 2, 3}) {
          INFO(np << " ranks, " << nx << " x " << ny << ", k = " << k);
          const Grid g = global(nx, ny, k);
          auto valid = [&](int px, int py) {
            return (px == 1 || nx / px >= k) && (py == 1 || ny / py >= k);
          };
          auto surface = [&](int px, int py) { return (px - 1) * ny + (py - 1) * nx; };
          int least = -1;
          for (int px = 1; px <= np; ++px)
            if (np % px == 0 && valid(px, np / px) && (least < 0 || surface(px, np / px) < least))
              least = surface(px, np / px);
          if (least < 0) {
            CHECK_THAT(error_of(np, g, Decomposition::automatic()), Contains("no split of the"));
            continue;
          }
          const Dims d = choose_dims(np, g, Decomposition::automatic());
          CHECK(d.px * d.py == np);
          CHECK(valid(d.px, d.py));
          CHECK(surface(d.px, d.py) == least);
        }
}

TEST_CASE("choose_dims: bad configurations give one clear message", "[cart]") {
  CHECK(error_of(2, global(80, 60, 1), Decomposition::forced(3, 1)) ==
        "decomposition 3 x 1 needs 3 ranks, the run has 2");
  CHECK(error_of(2, global(80, 60, 1), Decomposition::forced(2, 2)) ==
        "decomposition 2 x 2 needs 4 ranks, the run has 2");
  CHECK(error_of(4, global(80, 60, 1), Decomposition{3, 0}) ==
        "3 blocks along x cannot divide 4 ranks");
  CHECK(error_of(4, global(80, 60, 1), Decomposition{0, 3}) ==
        "3 blocks along y cannot divide 4 ranks");
  CHECK(error_of(1, global(80, 60, 0), Decomposition::automatic()) ==
        "the halo width k must be at least 1, got 0");
  CHECK(error_of(4, global(80, 6, 2), Decomposition::strips()) ==
        "blocks of the 80 x 6 grid split 1 x 4 are 1 cell(s) thin along y, fewer than the halo "
        "width k = 2");
  CHECK(error_of(4, global(7, 60, 4), Decomposition::forced(2, 2)) ==
        "blocks of the 7 x 60 grid split 2 x 2 are 3 cell(s) thin along x, fewer than the halo "
        "width k = 4");
  CHECK(error_of(3, global(2, 60, 1), Decomposition::forced(3, 1)) ==
        "blocks of the 2 x 60 grid split 3 x 1 are 0 cell(s) thin along x, fewer than the halo "
        "width k = 1");
  CHECK(error_of(2, global(80, 60, 1), Decomposition{-1, 2}) ==
        "decomposition -1 x 2: negative block count");
  CHECK(error_of(4, global(80, 60, 3), Decomposition::automatic()).empty());
}

TEST_CASE("the blocks tile the domain; neighbours and physical sides agree", "[cart]") {
  const int np = world_size();
  for (const auto& nd : decompositions()) {
    INFO(nd.name << " on " << np << " ranks");
    CartDecomposition cart(MPI_COMM_WORLD, global(23, 17, 2), nd.d);
    CHECK(cart.size() == np);
    CHECK(cart.rank() == world_rank());
    CHECK(cart.px() * cart.py() == np);
    if (nd.name == "strips 1 x P") CHECK(cart.px() == 1);
    if (nd.name == "columns P x 1") CHECK(cart.py() == 1);
    CHECK(cart.rank() == cart.cy() * cart.px() + cart.cx());

    std::vector<int> covered(23 * 17, 0);
    const Domain whole = global(23, 17, 2).domain();
    for (int r = 0; r < np; ++r) {
      const Grid b = cart.grid_of(r);
      CHECK(b.ng == 2);
      CHECK(b.nx_global == 23);
      CHECK(b.ny_global == 17);
      // Its geometry in the words of decks and outputs: the same domain, its cells as an extent.
      const Domain d = b.domain();
      CHECK((d.nx == whole.nx && d.ny == whole.ny && d.dx == whole.dx && d.dy == whole.dy &&
             d.x0 == whole.x0 && d.y0 == whole.y0));
      const Extent e = b.extent();
      CHECK((e.i0 == b.ioff && e.nx() == b.nx && e.j0 == b.joff && e.ny() == b.ny));
      CHECK(d.xc(e.i0) == b.xc(b.ng));
      CHECK(d.yc(e.j1 - 1) == b.yc(b.ng + b.ny - 1));
      for (int j = e.j0; j < e.j1; ++j)
        for (int i = e.i0; i < e.i1; ++i) ++covered[size_t(j) * 23 + i];
    }
    CHECK(std::count(covered.begin(), covered.end(), 1) == 23 * 17);

    const Grid me = cart.grid();
    const Grid same = cart.grid_of(cart.rank());
    CHECK((me.ioff == same.ioff && me.joff == same.joff && me.nx == same.nx && me.ny == same.ny));
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        if (di == 0 && dj == 0) continue;
        INFO("neighbour " << di << ", " << dj);
        const bool outside = (di < 0 && me.physical[West]) || (di > 0 && me.physical[East]) ||
                             (dj < 0 && me.physical[South]) || (dj > 0 && me.physical[North]);
        const int nb = cart.neighbor(di, dj);
        CHECK((nb == MPI_PROC_NULL) == outside);
        if (nb == MPI_PROC_NULL) continue;
        const Grid o = cart.grid_of(nb);
        // The neighbour's block touches ours on that side or corner.
        if (di < 0) CHECK(o.ioff + o.nx == me.ioff);
        if (di > 0) CHECK(o.ioff == me.ioff + me.nx);
        if (di == 0) CHECK((o.ioff == me.ioff && o.nx == me.nx));
        if (dj < 0) CHECK(o.joff + o.ny == me.joff);
        if (dj > 0) CHECK(o.joff == me.joff + me.ny);
        if (dj == 0) CHECK((o.joff == me.joff && o.ny == me.ny));
      }
    CHECK(me.physical[West] == (me.ioff == 0));
    CHECK(me.physical[East] == (me.ioff + me.nx == 23));
    CHECK(me.physical[South] == (me.joff == 0));
    CHECK(me.physical[North] == (me.joff + me.ny == 17));
  }
}

TEST_CASE("ranks given different inputs all throw, none waits", "[cart]") {
  const int rank = world_rank();
  if (world_size() == 1) return;
  // Rank 0 sees one more cell: every rank must throw the same error.
  std::string what;
  try {
    CartDecomposition cart(MPI_COMM_WORLD, global(40 + (rank == 0), 30, 1));
  } catch (const ConfigError& e) {
    what = e.what();
  }
  CHECK(what == "the ranks were given different grid sizes, halo widths or decompositions");
}

TEST_CASE("a failing MPI call is an MpiError naming the call and the place", "[cart]") {
  CartDecomposition cart(MPI_COMM_WORLD, global(8, 8, 1));
  double x = 0;
  // The decomposition's communicator returns errors: a send to a rank that does not exist.
  CHECK_THROWS_AS(SHWA_MPI_CHECK(MPI_Send(&x, 1, MPI_DOUBLE, cart.size() + 5, 0, cart.comm())),
                  MpiError);
  CHECK_THROWS_WITH(SHWA_MPI_CHECK(MPI_Send(&x, 1, MPI_DOUBLE, cart.size() + 5, 0, cart.comm())),
                    Contains("MPI_Send(&x, 1, MPI_DOUBLE, cart.size() + 5, 0, cart.comm()) failed "
                             "at ") &&
                        Contains("test_cart.cpp:"));
}

TEST_CASE("gather_to_root assembles the owned blocks on rank 0", "[cart]") {
  for (const auto& nd : decompositions()) {
    INFO(nd.name);
    CartDecomposition cart(MPI_COMM_WORLD, global(13, 11, 1), nd.d);
    const Grid g = cart.grid();
    std::vector<double> owned(size_t(g.owned_cells()));
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) owned[size_t(j) * g.nx + i] = (g.joff + j) * 13 + g.ioff + i;
    const std::vector<double> all = gather_to_root(cart, owned);
    if (cart.rank() == 0) {
      std::vector<double> expected(13 * 11);
      std::iota(expected.begin(), expected.end(), 0.0);
      CHECK(all == expected);
    } else {
      CHECK(all.empty());
    }
  }
}

TEST_CASE("device choice from the node-local rank", "[device]") {
  // The tests run on one host: the node-local ranks are the world ranks.
  const NodeRank r = node_rank(MPI_COMM_WORLD);
  CHECK(r.local_rank == world_rank());
  CHECK(r.local_size == world_size());
  const int dev = select_device(MPI_COMM_WORLD);
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  CHECK(dev >= 0);
#else
  CHECK(dev == -1);
#endif
  CHECK(kokkos_options(MPI_COMM_WORLD).device == dev);
}
