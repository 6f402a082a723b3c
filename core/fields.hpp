// shwa/core/fields.hpp — the conserved fields of one block.
#pragma once

#include "grid.hpp"
#include "types.hpp"

#include <string>

namespace shwa {

/// The four conserved variables W = (h, qx, qy, hc), one View each (docs/method.md section 6).
template <class ExecSpace>
struct Conserved {
  Field<ExecSpace> h, qx, qy, hc;

  Conserved() = default;
  Conserved(const std::string& tag, const Grid& g)
      : h(tag + "::h", g.ny_padded(), g.nx_padded()),
        qx(tag + "::qx", g.ny_padded(), g.nx_padded()),
        qy(tag + "::qy", g.ny_padded(), g.nx_padded()),
        hc(tag + "::hc", g.ny_padded(), g.nx_padded()) {}

  static constexpr int kNumFields = 4;
  Field<ExecSpace> operator[](int k) const {
    return k == 0 ? h : (k == 1 ? qx : (k == 2 ? qy : hc));
  }
};

}  // namespace shwa
