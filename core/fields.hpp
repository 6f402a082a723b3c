// shwa/core/fields.hpp — the conserved fields of one block, indexed.
#pragma once

#include "grid.hpp"
#include "types.hpp"

#include <stdexcept>
#include <string>

namespace shwa {

/// The conserved variables of a block, one View each (docs/method.md section 6), indexed: field 0
/// is the depth h, 1 and 2 the discharges qx and qy, then one field a passive tracer, its mass per
/// area h c. Code that handles every field (the boundary fill, the halo exchange, the initial
/// state, checkpoints, the blow-up message) goes through size() and operator[]; name(k) is a
/// field's name in files.
template <class ExecSpace>
struct Conserved {
  static constexpr int kFirstTracer = 3;
  static constexpr int kMaxFields = kFirstTracer + kMaxTracers;

  Field<ExecSpace> h, qx, qy;
  Field<ExecSpace> hc[kMaxTracers];  // tracer t's h c for t < ntracers; empty Views beyond
  int ntracers = 0;

  Conserved() = default;
  Conserved(const std::string& tag, const Grid& g, int tracers = 1)
      : h(tag + "::h", g.ny_padded(), g.nx_padded()),
        qx(tag + "::qx", g.ny_padded(), g.nx_padded()),
        qy(tag + "::qy", g.ny_padded(), g.nx_padded()),
        ntracers(tracers) {
    if (tracers < 0 || tracers > kMaxTracers)
      throw std::invalid_argument(std::to_string(tracers) + " tracers: a block carries 0 to " +
                                  std::to_string(kMaxTracers));
    for (int t = 0; t < tracers; ++t)
      hc[t] = Field<ExecSpace>(tag + "::" + name(kFirstTracer + t), g.ny_padded(), g.nx_padded());
  }

  /// The number of fields: h, qx, qy and the tracers.
  KOKKOS_INLINE_FUNCTION int size() const { return kFirstTracer + ntracers; }
  KOKKOS_INLINE_FUNCTION const Field<ExecSpace>& operator[](int k) const {
    return k == 0 ? h : (k == 1 ? qx : (k == 2 ? qy : hc[k - kFirstTracer]));
  }
  /// "h", "qx", "qy", then "hc" for the first tracer and "hc2", "hc3", ... for the others.
  static std::string name(int k) {
    if (k == 0) return "h";
    if (k == 1) return "qx";
    if (k == 2) return "qy";
    const int t = k - kFirstTracer;
    return t == 0 ? "hc" : "hc" + std::to_string(t + 1);
  }
};

}  // namespace shwa
