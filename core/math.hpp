// shwa/core/math.hpp — the few math functions the kernels call, in one place.
//
// Kokkos 3.4 has them in Kokkos::Experimental, Kokkos 4.x and later in Kokkos::. This header is the
// only place that knows; kernels call shwa::sqrt etc.
#pragma once

#include <Kokkos_Core.hpp>

#if KOKKOS_VERSION >= 40000
#define SHWA_KOKKOS_MATH Kokkos
#else
#define SHWA_KOKKOS_MATH Kokkos::Experimental
#endif

namespace shwa {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sqrt(T x) { return SHWA_KOKKOS_MATH::sqrt(x); }
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T cbrt(T x) { return SHWA_KOKKOS_MATH::cbrt(x); }
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T abs(T x) { return x < T(0) ? -x : x; }
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T max(T a, T b) { return a < b ? b : a; }
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T min(T a, T b) { return b < a ? b : a; }
template <class T>
KOKKOS_FORCEINLINE_FUNCTION bool isfinite(T x) { return SHWA_KOKKOS_MATH::isfinite(x); }

}  // namespace shwa
