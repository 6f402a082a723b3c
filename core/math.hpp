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

// Zeros in still water and on dry land. A GPU's double division and square root take a slow path
// (a call to a routine of several dozen instructions) when the result is zero: their fast paths
// check the result's range. Still water divides zero momenta and takes the root of zero discharge
// in every cell, dry land the root of zero depth. On GPUs these two return a zero operand as it is,
// which is what the operation gives (the same sign), and branch around it; hosts compute as usual
// (a branch would stop the vectorization of the edge loops). The same values either way.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SHWA_BRANCH_ON_ZERO 1
#else
#define SHWA_BRANCH_ON_ZERO 0
#endif

/// num / den for den > 0.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T divide(T num, T den) {
#if SHWA_BRANCH_ON_ZERO
  if (num == T(0)) return num;
#endif
  return num / den;
}
/// sqrt(x) for x >= 0.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sqrt_nonneg(T x) {
#if SHWA_BRANCH_ON_ZERO
  if (x == T(0)) return x;
#endif
  return sqrt(x);
}

}  // namespace shwa
