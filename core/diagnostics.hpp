// shwa/core/diagnostics.hpp — integrals and error norms over a block's owned cells, with Kokkos
// Kernels (KokkosBlas) on a packed copy of the owned cells.
#pragma once

#include "fields.hpp"
#include "grid.hpp"

#include <KokkosBlas1_nrm1.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_nrminf.hpp>
#include <KokkosBlas1_sum.hpp>

namespace shwa {

template <class E>
class Diagnostics {
 public:
  using Vec = Kokkos::View<Real*, typename E::memory_space>;

  explicit Diagnostics(const Grid& g) : g_(g), a_("diag_a", g.owned_cells()), b_("diag_b", g.owned_cells()) {}

  /// Sum over owned cells of f, times the cell area (a volume for h, a mass for hc).
  double integral(const Field<E>& f) {
    pack(f, a_);
    return double(KokkosBlas::sum(a_)) * g_.dx * g_.dy;
  }
  double volume(const Conserved<E>& w) { return integral(w.h); }
  /// The mass of tracer t.
  double pollutant_mass(const Conserved<E>& w, int t = 0) { return integral(w.hc[t]); }

  struct Norms {
    double l1, l2, linf;
  };
  /// Norms of f - ref over the owned cells (L1 and L2 weighted by the cell area).
  Norms error(const Field<E>& f, const Field<E>& ref) {
    pack(f, a_);
    pack(ref, b_);
    Kokkos::parallel_for("shwa::diag_diff", Kokkos::RangePolicy<E>(0, a_.extent(0)), Subtract{a_, b_});
    const double area = g_.dx * g_.dy;
    return Norms{double(KokkosBlas::nrm1(a_)) * area, double(KokkosBlas::nrm2(a_)) * std::sqrt(area),
                 double(KokkosBlas::nrminf(a_))};
  }

  // Functors rather than lambdas: nvcc 13 left the host copy of an extended __host__ __device__
  // lambda in this class template with a null destructor pointer when two translation units
  // instantiated it (a segfault on the H200 host, seen in the Ritter test).
  struct Pack {
    Field<E> f;
    Vec v;
    int nx, ng;
    KOKKOS_INLINE_FUNCTION void operator()(int k) const { v(k) = f(ng + k / nx, ng + k % nx); }
  };
  struct Subtract {
    Vec a, b;
    KOKKOS_INLINE_FUNCTION void operator()(int k) const { a(k) -= b(k); }
  };

  /// Copies the owned cells of f into v.
  void pack(const Field<E>& f, const Vec& v) const {
    Kokkos::parallel_for("shwa::diag_pack", Kokkos::RangePolicy<E>(0, v.extent(0)),
                         Pack{f, v, g_.nx, g_.ng});
  }

 private:
  Grid g_;
  Vec a_, b_;
};

}  // namespace shwa
