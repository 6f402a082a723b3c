// shwa/comm/world.cpp — see world.hpp.
#include "world.hpp"

#include "device.hpp"
#include "mpi_check.hpp"

#include <cstdlib>
#include <stdexcept>

namespace shwa::comm {

bool launched_as_rank() {
  for (const char* v : kLauncherVariables)
    if (std::getenv(v)) return true;
  return false;
}

Session::Session(int& argc, char**& argv) {
  // A process started without a launcher (a singleton) is a world of one. Open MPI would start a
  // daemon (orted) beside it, which only spawning processes need (shwa never spawns), and would
  // open the interconnects' transports through its cm layer: Debian's Open MPI loads the
  // Omni-Path library (PSM2), whose start sleeps even without the hardware. A world of one talks
  // only to itself, which the ob1 layer does with its `self` component. Where the environment
  // sets a variable, it decides; other MPI implementations ignore them; a launched rank keeps
  // its MPI's own choices.
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  if (!launched_as_rank()) setenv("OMPI_MCA_pml", "ob1", 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

Session::~Session() { MPI_Finalize(); }

World::World() {
  SHWA_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  SHWA_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

World::World(const CartDecomposition& cart)
    : comm_(cart.comm()), cart_(&cart), rank_(cart.rank()), size_(cart.size()) {}

Node World::node() const {
  MPI_Comm node = MPI_COMM_NULL;
  SHWA_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  Node n;
  int lowest = 0;
  const int rc1 = MPI_Comm_size(node, &n.ranks);
  const int rc2 = MPI_Allreduce(&rank_, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  SHWA_MPI_CHECK(rc1);
  SHWA_MPI_CHECK(rc2);
  n.holds_root = lowest == 0;
  return n;
}

int World::device() const { return select_device(comm_); }

std::unique_ptr<CartDecomposition> World::decompose(const Grid& global, Decomposition d) const {
  return std::make_unique<CartDecomposition>(comm_, global, d);
}

int World::first_other_digest(std::uint32_t digest) const {
  std::vector<std::uint32_t> digests(static_cast<std::size_t>(size_));
  SHWA_MPI_CHECK(MPI_Allgather(&digest, 1, MPI_UINT32_T, digests.data(), 1, MPI_UINT32_T, comm_));
  for (std::size_t r = 1; r < digests.size(); ++r)
    if (digests[r] != digests[0]) return int(r);
  return -1;
}

std::optional<RankError> World::first_error(int kind, const std::string& message) const {
  // The lowest failing rank (size_ where none failed) in one reduction that every rank makes; then
  // its kind, length and message from it.
  const int mine = kind != 0 ? rank_ : size_;
  int first = size_;
  SHWA_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_));
  if (first == size_) return std::nullopt;
  RankError e;
  e.rank = first;
  e.message = message;
  int head[2] = {kind, int(message.size())};
  SHWA_MPI_CHECK(MPI_Bcast(head, 2, MPI_INT, first, comm_));
  e.kind = head[0];
  e.message.resize(std::size_t(head[1]));
  SHWA_MPI_CHECK(MPI_Bcast(e.message.data(), head[1], MPI_CHAR, first, comm_));
  return e;
}

void World::broadcast(std::vector<double>& v) const {
  SHWA_MPI_CHECK(MPI_Bcast(v.data(), int(v.size()), MPI_DOUBLE, 0, comm_));
}

double World::max(double x) const {
  double all = x;
  SHWA_MPI_CHECK(MPI_Allreduce(&x, &all, 1, MPI_DOUBLE, MPI_MAX, comm_));
  return all;
}

void World::sum(std::vector<double>& v) const {
  if (v.empty()) return;
  SHWA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_SUM, comm_));
}

const CartDecomposition& World::decomposition(const char* what) const {
  if (!cart_) throw std::logic_error(std::string("comm::World::") + what + " needs a World of a CartDecomposition");
  return *cart_;
}

std::vector<double> World::gather(const std::vector<double>& owned) const {
  return gather_to_root(decomposition("gather"), owned);
}

void World::gather(const double* owned, std::size_t n, double* whole) const {
  gather_to_root(decomposition("gather"), owned, n, whole);
}

std::vector<double> World::scatter(const std::vector<double>& global) const {
  return scatter_from_root(decomposition("scatter"), global);
}

std::vector<double> World::scatter(const double* global) const {
  return scatter_from_root(decomposition("scatter"), global);
}

void World::report_error(const std::string& message) const { report_on_root(comm_, message); }

std::string World::library_version() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  SHWA_MPI_CHECK(MPI_Get_library_version(lib, &len));
  const std::string name(lib, std::size_t(len));
  return name.substr(0, name.find_first_of("\n,"));
}

bool World::cuda_aware() { return mpi_cuda_aware(); }

}  // namespace shwa::comm
