// shwa/app/mpi_collective.hpp — the Collective of an MPI run (built only with SHWA_WITH_MPI): the
// Collective calls of the time loop as comm::World's operations over a Cartesian decomposition
// (the whole grid through its root), and the times of its halo transport.
#pragma once

#include "ranks.hpp"
#include "simulation.hpp"

#include "cart.hpp"
#include "mpi_exchanger.hpp"
#include "world.hpp"

#include <exception>
#include <string>
#include <vector>

namespace shwa::app {

/// comm::Transport of a deck's parallel.transport.
inline comm::Transport transport_of(const std::string& name) {
  if (name == "direct") return comm::Transport::Direct;
  if (name == "staged") return comm::Transport::Staged;
  return comm::Transport::Auto;
}

/// The whole grid through the root of a Cartesian decomposition.
template <class E>
class MpiCollective final : public Collective {
 public:
  MpiCollective(const comm::CartDecomposition& cart, const comm::MpiExchanger<E>& ex)
      : cart_(cart), world_(cart), ex_(ex) {}
  int rank() const override { return world_.rank(); }
  int ranks() const override { return world_.size(); }
  using Collective::gather;
  void gather(const double* owned, const Grid& block, double* whole) override {
    world_.gather(owned, std::size_t(block.owned_cells()), whole);
  }
  std::vector<double> scatter(const double* global, const Grid&) override { return world_.scatter(global); }
  std::vector<Extent> pieces(const Extent& mine) override {
    if (!root()) return {mine};
    std::vector<Extent> all;
    for (int r = 0; r < cart_.size(); ++r) all.push_back(cart_.grid_of(r).extent());
    return all;
  }
  void broadcast(std::vector<double>& v) override { world_.broadcast(v); }
  double max_all(double x) override { return world_.max(x); }
  void sum_all(std::vector<double>& v) override { world_.sum(v); }
  void agree(std::exception_ptr e) override { agree_on_error(world_, e); }
  double halo_seconds() const override {
    const comm::CommTimes& t = ex_.times();
    return t.post + t.wait + t.unpack;
  }
  double reduce_seconds() const override { return ex_.times().reduce; }
  void reset_comm_times() override { const_cast<comm::MpiExchanger<E>&>(ex_).reset_times(); }

 private:
  const comm::CartDecomposition& cart_;
  const comm::World world_;
  const comm::MpiExchanger<E>& ex_;
};

}  // namespace shwa::app
