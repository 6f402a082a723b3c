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
// SHWA_BRANCH_ON_ZERO_MIN_BYTES: the smallest type that branches (4: float and double; 8: double
// only), a build setting so that single precision can be timed both ways: in single precision the
// branch gains at small grids and costs the capped update of large ones (docs/kernels.md).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SHWA_BRANCH_ON_ZERO 1
#else
#define SHWA_BRANCH_ON_ZERO 0
#endif
#ifndef SHWA_BRANCH_ON_ZERO_MIN_BYTES
#define SHWA_BRANCH_ON_ZERO_MIN_BYTES 4
#endif
template <class T>
inline constexpr bool kBranchOnZero = SHWA_BRANCH_ON_ZERO && sizeof(T) >= SHWA_BRANCH_ON_ZERO_MIN_BYTES;

// Arithmetic that no compiler contracts. Compilers may fuse a product and the sum or difference
// it feeds into one FMA (rounded once, not twice), and which pairs they fuse depends on the code
// around an expression once inlined, not on its source alone: the same statement can round
// differently in two kernels. nvcc fuses by default (--fmad=true), in its front end and again in
// ptxas. The three below round each operation to nearest on every compiler: on CUDA devices
// through the __d*_rn / __f*_rn intrinsics, which nvcc and ptxas never fuse (PTX mul.rn, add.rn,
// sub.rn); under Clang with contraction turned off in their bodies; GCC contracts by default
// (-ffp-contract=fast) wherever the target has FMAs, which core/CMakeLists.txt turns off in every
// build (in CUDA builds, for the host compiler).
// The tracers' arithmetic goes through them (roe.hpp, kernels.hpp, kernels_host.hpp), so that a
// tracer's bits depend on its operands only, whichever kernel and tracer count computes it. The
// water's arithmetic does not: it reads no tracer, its statements are the same in every kernel,
// and FMAs make it faster on devices.
#if defined(__clang__) && !defined(__NVCC__)
#define SHWA_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define SHWA_NO_CONTRACT
#endif

/// Which operations this build fuses into FMAs, for `shwa info` and shwa_bench: host code none
/// (-ffp-contract=off, core/CMakeLists.txt); CUDA device code the water's, unless built with
/// SHWA_DEVICE_FMA=OFF.
inline const char* fma_contraction() {
#if defined(SHWA_DEVICE_FMA)
  return SHWA_DEVICE_FMA ? "device code fuses the water's products and sums (SHWA_DEVICE_FMA=OFF: none)"
                         : "none (device code built with --fmad=false)";
#else
  return "none";
#endif
}

/// a * b, rounded once and never fused with another operation.
KOKKOS_FORCEINLINE_FUNCTION double mul_rn(double a, double b) {
  SHWA_NO_CONTRACT
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
KOKKOS_FORCEINLINE_FUNCTION float mul_rn(float a, float b) {
  SHWA_NO_CONTRACT
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
/// a + b, likewise.
KOKKOS_FORCEINLINE_FUNCTION double add_rn(double a, double b) {
  SHWA_NO_CONTRACT
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
KOKKOS_FORCEINLINE_FUNCTION float add_rn(float a, float b) {
  SHWA_NO_CONTRACT
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
/// a - b, likewise.
KOKKOS_FORCEINLINE_FUNCTION double sub_rn(double a, double b) {
  SHWA_NO_CONTRACT
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
KOKKOS_FORCEINLINE_FUNCTION float sub_rn(float a, float b) {
  SHWA_NO_CONTRACT
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

/// num / den for den > 0.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T divide(T num, T den) {
  if constexpr (kBranchOnZero<T>)
    if (num == T(0)) return num;
  return num / den;
}
/// sqrt(x) for x >= 0.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sqrt_nonneg(T x) {
  if constexpr (kBranchOnZero<T>)
    if (x == T(0)) return x;
  return sqrt(x);
}

}  // namespace shwa
