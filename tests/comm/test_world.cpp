// comm::World: the collective operations the application makes through it, on every rank count.
// Every rank runs every case; the cases use CHECK so that a failure on one rank keeps it on the
// same path as the others.
#include "world.hpp"

#include "mpi_test.hpp"

#include <cstdlib>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

using namespace shwa;
using namespace shwa::comm;
using namespace shwa::test;

namespace {

Grid global(int nx, int ny, int k) { return Grid::single(nx, ny, 1.0, 1.0, 0.0, 0.0, k); }

}  // namespace

TEST_CASE("World: rank and size of MPI_COMM_WORLD and of a decomposition", "[world]") {
  const World world;
  CHECK(world.rank() == world_rank());
  CHECK(world.size() == world_size());
  CHECK(world.root() == (world_rank() == 0));
  const auto cart = world.decompose(global(13, 11, 1), Decomposition::strips());
  const World blocks(*cart);
  CHECK(blocks.rank() == world_rank());  // the decomposition keeps the ranks' order
  CHECK(blocks.size() == world_size());
  CHECK(cart->py() == world_size());
}

TEST_CASE("World: a decomposition that does not fit throws ConfigError on every rank", "[world]") {
  const World world;
  std::string what;
  try {
    world.decompose(global(13, 11, 1), Decomposition::forced(world.size() + 1, 1));
  } catch (const ConfigError& e) {
    what = e.what();
  }
  CHECK(what == "decomposition " + std::to_string(world.size() + 1) + " x 1 needs " +
                    std::to_string(world.size() + 1) + " ranks, the run has " + std::to_string(world.size()));
}

TEST_CASE("World: the node holds every rank of the test, rank 0 among them; a device", "[world]") {
  const World world;
  const Node n = world.node();  // the tests run on one host
  CHECK(n.ranks == world_size());
  CHECK(n.holds_root);
  CHECK(world.device() == select_device(MPI_COMM_WORLD));
}

TEST_CASE("World: the first rank whose digest differs from rank 0's", "[world]") {
  const World world;
  const int r = world.rank(), np = world.size();
  CHECK(world.first_other_digest(0xC0FFEEu) == -1);
  // The last rank differs.
  CHECK(world.first_other_digest(r == np - 1 ? 1u : 2u) == (np > 1 ? np - 1 : -1));
  // Rank 0 differs from every other: the first other is rank 1.
  CHECK(world.first_other_digest(r == 0 ? 7u : 9u) == (np > 1 ? 1 : -1));
  // Every rank its own digest.
  CHECK(world.first_other_digest(std::uint32_t(100 + r)) == (np > 1 ? 1 : -1));
}

TEST_CASE("World: every rank gets the lowest failing rank's error, or none", "[world]") {
  const World world;
  const int r = world.rank(), np = world.size();
  CHECK_FALSE(world.first_error(0, "").has_value());
  // The last rank fails alone.
  {
    const auto e = world.first_error(r == np - 1 ? 3 : 0, r == np - 1 ? "last rank: disk full" : "");
    CHECK(e.has_value());
    if (e) {
      CHECK(e->rank == np - 1);
      CHECK(e->kind == 3);
      CHECK(e->message == "last rank: disk full");
    }
  }
  // Every rank but 0 fails, each with its own kind and message: rank 1's (rank 0's alone at 1 rank).
  {
    const bool fails = r > 0 || np == 1;
    const auto e = world.first_error(fails ? 10 + r : 0, fails ? "error of rank " + std::to_string(r) : "");
    CHECK(e.has_value());
    const int first = np > 1 ? 1 : 0;
    if (e) {
      CHECK(e->rank == first);
      CHECK(e->kind == 10 + first);
      CHECK(e->message == "error of rank " + std::to_string(first));
    }
  }
  // An empty message from a failing rank stays empty; a long one arrives whole.
  {
    const std::string longer(10000, 'x');
    const auto e = world.first_error(r == 0 ? 1 : 2, r == 0 ? longer : "");
    CHECK(e.has_value());
    if (e) {
      CHECK(e->rank == 0);
      CHECK(e->kind == 1);
      CHECK(e->message == longer);
    }
  }
}

TEST_CASE("World: broadcast, max and sum over the ranks", "[world]") {
  const World world;
  const int r = world.rank(), np = world.size();
  std::vector<double> v = {double(r) + 0.5, -double(r), 3.0};
  world.broadcast(v);
  CHECK(v == std::vector<double>{0.5, 0.0, 3.0});
  CHECK(world.max(double(r) - 10.0) == double(np - 1) - 10.0);
  std::vector<double> s = {1.0, double(r), 0.25};
  world.sum(s);
  CHECK(s == std::vector<double>{double(np), double(np * (np - 1) / 2), 0.25 * np});
  std::vector<double> none;
  world.sum(none);
  CHECK(none.empty());
}

TEST_CASE("World of a decomposition: scatter from the root and gather back", "[world]") {
  for (const auto& nd : decompositions()) {
    INFO(nd.name);
    const auto cart = World().decompose(global(13, 11, 1), nd.d);
    const World world(*cart);
    std::vector<double> all;
    if (world.root()) {
      all.resize(13 * 11);
      std::iota(all.begin(), all.end(), 0.0);
    }
    const std::vector<double> owned = world.scatter(all);
    const Grid g = cart->grid();
    CHECK(owned.size() == size_t(g.owned_cells()));
    bool exact = owned.size() == size_t(g.owned_cells());
    for (int j = 0; exact && j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) exact = exact && owned[size_t(j) * g.nx + i] == (g.joff + j) * 13 + g.ioff + i;
    CHECK(exact);
    const std::vector<double> back = world.gather(owned);
    if (world.root()) CHECK(back == all);
    else CHECK(back.empty());
  }
  // The root's array must be the whole grid.
  const auto cart = World().decompose(global(13, 11, 1), Decomposition::automatic());
  const World world(*cart);
  if (world.size() == 1) CHECK_THROWS_AS(world.scatter(std::vector<double>(5)), std::invalid_argument);
  // MPI_COMM_WORLD has no blocks to gather or scatter.
  CHECK_THROWS_AS(World().gather({}), std::logic_error);
  CHECK_THROWS_AS(World().scatter(std::vector<double>{}), std::logic_error);
  CHECK_THROWS_AS(World().scatter(static_cast<const double*>(nullptr)), std::logic_error);
}

TEST_CASE("World: the MPI library's name", "[world]") {
  const std::string v = World::library_version();
  CHECK_FALSE(v.empty());
  CHECK(v.find('\n') == std::string::npos);
  CHECK(World::cuda_aware() == mpi_cuda_aware());
}

TEST_CASE("World: a rank that mpiexec started knows it was launched; any launcher's variable says so", "[world]") {
  // These tests run under mpiexec, at every rank count; a rank that took itself for a process
  // started on its own would replace its MPI's choice of transport with one for a world of one
  // (Session).
  CHECK(launched_as_rank());
  // Without any of the variables: a process on its own; with any one of them: launched.
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* v : kLauncherVariables)
    if (const char* value = std::getenv(v)) saved.emplace_back(v, value);
  for (const char* v : kLauncherVariables) unsetenv(v);
  CHECK_FALSE(launched_as_rank());
  for (const char* v : kLauncherVariables) {
    INFO(v);
    setenv(v, "0", 1);
    CHECK(launched_as_rank());
    unsetenv(v);
  }
  for (const auto& [v, value] : saved) setenv(v.c_str(), value.c_str(), 1);
  CHECK(launched_as_rank());
}
