// shwa/app/mpi_collective.hpp — the Collective of an MPI run (built only with SHWA_WITH_MPI):
// the whole grid through the root of a Cartesian decomposition, and the transport of its halos.
#pragma once

#include "parallel.hpp"
#include "simulation.hpp"

#include "cart.hpp"
#include "mpi_exchanger.hpp"

#include <mpi.h>

#include <exception>
#include <string>
#include <vector>

namespace shwa::app {

/// comm::Transport of a deck's parallel.transport.
comm::Transport transport_of(const std::string& name);

/// The whole grid through the root of a Cartesian decomposition.
template <class E>
class MpiCollective final : public Collective {
 public:
  MpiCollective(const comm::CartDecomposition& cart, const comm::MpiExchanger<E>& ex) : cart_(cart), ex_(ex) {}
  int rank() const override { return cart_.rank(); }
  int ranks() const override { return cart_.size(); }
  std::vector<double> gather(const std::vector<double>& owned, const Grid&) override {
    return comm::gather_to_root(cart_, owned);
  }
  std::vector<double> scatter(const std::vector<double>& global, const Grid& block) override;
  std::vector<io::Extent> pieces(const io::Extent& mine) override {
    if (!root()) return {mine};
    std::vector<io::Extent> all;
    for (int r = 0; r < cart_.size(); ++r) {
      const Grid b = cart_.grid_of(r);
      all.push_back(io::Extent{b.ioff, b.ioff + b.nx, b.joff, b.joff + b.ny});
    }
    return all;
  }
  void broadcast(std::vector<double>& v) override;
  double max_all(double x) override;
  void sum_all(std::vector<double>& v) override;
  void agree(std::exception_ptr e) override { agree_on_error(cart_.comm(), e); }
  double halo_seconds() const override {
    const comm::CommTimes& t = ex_.times();
    return t.post + t.wait + t.unpack;
  }
  double reduce_seconds() const override { return ex_.times().reduce; }
  void reset_comm_times() override { const_cast<comm::MpiExchanger<E>&>(ex_).reset_times(); }

 private:
  const comm::CartDecomposition& cart_;
  const comm::MpiExchanger<E>& ex_;
};

template <class E>
std::vector<double> MpiCollective<E>::scatter(const std::vector<double>& global, const Grid&) {
  return scatter_from_root(cart_, global);
}
template <class E>
void MpiCollective<E>::broadcast(std::vector<double>& v) {
  broadcast_from_root(cart_.comm(), v);
}
template <class E>
double MpiCollective<E>::max_all(double x) {
  return max_over(cart_.comm(), x);
}

template <class E>
void MpiCollective<E>::sum_all(std::vector<double>& v) {
  sum_over(cart_.comm(), v);
}

}  // namespace shwa::app
