// shwa/comm/world.hpp — the ranks of a run and every collective operation the application asks of
// them, so that the application itself makes no MPI call: Session starts and ends MPI, World is
// MPI_COMM_WORLD (or a decomposition's communicator over the same ranks) with its queries,
// agreements, reductions, broadcasts, and the whole grid scattered and gathered through the root.
#pragma once

#include "cart.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shwa::comm {

/// MPI_Init and MPI_Finalize around a program (around Kokkos too). MPI_COMM_WORLD returns errors
/// (MPI_ERRORS_RETURN) instead of aborting, so that they reach the program's exit path. A process
/// started without a launcher runs without Open MPI's daemon and interconnect transports
/// (world.cpp).
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

/// What launchers set in a rank's environment: Open MPI's mpiexec, PMIx (Slurm's srun, prterun),
/// PMI (MPICH's hydra, srun --mpi=pmi2), any srun step, Flux, LSF's jsrun, Cray's PALS and ALPS.
inline constexpr const char* kLauncherVariables[] = {
    "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",    "PMI_RANK",           "PMI_SIZE",    "PMI_FD",
    "SLURM_STEP_NUM_TASKS", "FLUX_TASK_RANK", "JSM_NAMESPACE_RANK", "PALS_RANKID", "ALPS_APP_PE"};

/// Whether a launcher started this process as a rank of a job: one of kLauncherVariables is set.
/// False for a process started on its own.
bool launched_as_rank();

/// The ranks sharing this rank's node (and its host memory).
struct Node {
  int ranks = 1;            // ranks on this node
  bool holds_root = true;   // rank 0 is one of them
};

/// The error a rank reported to World::first_error: its rank, the caller's kind (nonzero) and
/// message.
struct RankError {
  int rank = 0;
  int kind = 0;
  std::string message;
};

/// A communicator's ranks: MPI_COMM_WORLD, or the communicator of a CartDecomposition (the same
/// ranks in the same order), through which the whole grid passes the root. A handle: it owns no
/// communicator and copies freely; it needs MPI initialized (Session). The operations marked
/// collective must be called by every rank of the communicator, in the same order.
class World {
 public:
  /// MPI_COMM_WORLD.
  World();
  /// The decomposition's communicator; gather and scatter go through its blocks. `cart` must
  /// outlive this World.
  explicit World(const CartDecomposition& cart);

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  /// The ranks on this rank's node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) and whether rank 0
  /// is one of them. Collective.
  Node node() const;
  /// The GPU this rank takes: its node-local rank modulo the GPUs it sees; -1 without a GPU
  /// backend (select_device). Collective; throws ConfigError when a GPU backend sees no GPU.
  int device() const;
  /// The decomposition of `global` (Grid::single(nx, ny, dx, dy, x0, y0, k)) over these ranks, one
  /// block a rank. Collective; throws ConfigError on every rank alike (CartDecomposition).
  std::unique_ptr<CartDecomposition> decompose(const Grid& global, Decomposition d) const;

  /// The lowest rank whose `digest` differs from rank 0's, on every rank; -1 when all agree.
  /// Collective.
  int first_other_digest(std::uint32_t digest) const;
  /// Every rank passes its error (kind nonzero; kinds are the caller's, carried as they are) or
  /// none (kind 0). Every rank gets the error of the lowest rank that has one, or nothing when no
  /// rank has. Collective; no rank is left waiting whichever ranks failed.
  std::optional<RankError> first_error(int kind, const std::string& message) const;

  /// The root's values on every rank (v has the same size everywhere). Collective.
  void broadcast(std::vector<double>& v) const;
  /// The maximum of x over the ranks, on every rank. Collective.
  double max(double x) const;
  /// The element-wise sum of v over the ranks, on every rank (v has the same size everywhere).
  /// Collective.
  void sum(std::vector<double>& v) const;

  /// Built from a CartDecomposition only (else std::logic_error). The whole grid on the root,
  /// row-major, from each rank's owned cells (row-major); empty elsewhere. Collective.
  std::vector<double> gather(const std::vector<double>& owned) const;
  /// The same into `whole` (the whole grid's values, every one written) on the root, from the n
  /// values at `owned`; `whole` is not used elsewhere. Collective.
  void gather(const double* owned, std::size_t n, double* whole) const;
  /// Built from a CartDecomposition only (else std::logic_error). This rank's owned cells
  /// (row-major) of a whole-grid array that the root holds (row-major; ignored elsewhere).
  /// Collective.
  std::vector<double> scatter(const std::vector<double>& global) const;
  /// The same from the whole grid's values at `global` on the root (ignored, and may be null, on
  /// the other ranks).
  std::vector<double> scatter(const double* global) const;

  /// Prints "shwa: error: <message>" on stderr on the root only: an error that every rank shares
  /// is reported once. No communication.
  void report_error(const std::string& message) const;

  /// The MPI library's name and version: the first line of MPI_Get_library_version up to a comma.
  static std::string library_version();
  /// Whether the MPI library takes CUDA device pointers (mpi_cuda_aware).
  static bool cuda_aware();

 private:
  const CartDecomposition& decomposition(const char* what) const;

  MPI_Comm comm_ = MPI_COMM_WORLD;
  const CartDecomposition* cart_ = nullptr;
  int rank_ = 0, size_ = 1;
};

}  // namespace shwa::comm
