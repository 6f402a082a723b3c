// shwa/comm/gather.hpp — a field's owned cells from every block, on rank 0 (for outputs).
#pragma once

#include "cart.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

namespace shwa::comm {

/// The owned cells of a padded (j, i) field of this rank's block, gathered from every rank into one
/// global row-major array (j * nx_global + i) on rank 0; empty elsewhere. Collective.
template <class View>
std::vector<double> gather_field(const CartDecomposition& cart, const View& f) {
  const Grid& g = cart.grid();
  auto m = Kokkos::create_mirror_view(f);
  Kokkos::deep_copy(m, f);
  std::vector<double> owned(size_t(g.owned_cells()));
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) owned[size_t(j) * g.nx + i] = double(m(j + g.ng, i + g.ng));
  return gather_to_root(cart, owned);
}

}  // namespace shwa::comm
