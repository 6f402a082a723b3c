// shwa/core/math.hpp — the few math functions the kernels call, in one place.
//
// Kokkos 3.4 has them in Kokkos::Experimental, Kokkos 4.x and later in Kokkos::. This header is the
// only place that knows; kernels call shwa::sqrt etc.
#pragma once

#include <Kokkos_Core.hpp>

#include <cfloat>
#include <cmath>

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
// in every cell, dry land the root of zero depth. On GPUs sqrt_nonneg, and divide where it divides
// (SHWA_DEVICE_FAST_MATH below 2; the reciprocal of the levels above has no slow path), return a
// zero operand as it is, which is what the operation gives (the same sign), and branch around it;
// hosts compute as usual (a branch would stop the vectorization of the edge loops). The same
// values either way.
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

// Reciprocals and square roots on GPUs (docs/kernels.md, "Divisions and roots on GPUs"). A GPU
// divides and takes square roots in software: an approximation of the reciprocal or of the
// reciprocal square root, Newton steps to the correctly rounded result, and a check of the
// operands' range with a branch to a slow routine. The kernels take a cell's 1/h and sqrt(h), and
// an edge's a and 1/a, from one reciprocal square root (kPairedRoots); a reciprocal from the
// device's approximation and one step of Newton's kind, without the check (kFastReciprocal); the
// friction's cube root from the device's float logarithm and exponential and Newton steps
// (kFastCubeRoot); reciprocal square roots and square roots from the device's approximation of
// the reciprocal square root and steps of Newton's kind, without the check (kFastRoots). Each is
// within a few ulp of the rounded result for the operands the kernels pass (positive, normal, far
// from overflow; kMinEpsH keeps the friction's there; tested). Hosts divide and take roots as
// written (their vector loops have dividers and square-root units).
// SHWA_DEVICE_FAST_MATH (CMake, core/CMakeLists.txt): 0 none of these, 1 the paired roots, 2 and
// the reciprocals, 3 and the cube roots, 4 (the default) all.
#ifndef SHWA_DEVICE_FAST_MATH
#define SHWA_DEVICE_FAST_MATH 4
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
inline constexpr bool kPairedRoots = SHWA_DEVICE_FAST_MATH >= 1;
#else
inline constexpr bool kPairedRoots = false;
#endif
#if defined(__CUDA_ARCH__)
inline constexpr bool kFastReciprocal = SHWA_DEVICE_FAST_MATH >= 2;
inline constexpr bool kFastCubeRoot = SHWA_DEVICE_FAST_MATH >= 3;
inline constexpr bool kFastRoots = SHWA_DEVICE_FAST_MATH >= 4;
#else
inline constexpr bool kFastReciprocal = false;
inline constexpr bool kFastCubeRoot = false;
inline constexpr bool kFastRoots = false;
#endif

/// What the device kernels of this build divide and take roots with, for `shwa info` and shwa_bench.
inline const char* device_math() {
#if defined(KOKKOS_ENABLE_CUDA)
  return SHWA_DEVICE_FAST_MATH <= 0   ? "divisions and roots as written (SHWA_DEVICE_FAST_MATH=0)"
         : SHWA_DEVICE_FAST_MATH == 1 ? "paired roots (SHWA_DEVICE_FAST_MATH=1)"
         : SHWA_DEVICE_FAST_MATH == 2 ? "paired roots, fast reciprocals (SHWA_DEVICE_FAST_MATH=2)"
         : SHWA_DEVICE_FAST_MATH == 3 ? "paired roots, fast reciprocals, cube roots (SHWA_DEVICE_FAST_MATH=3)"
                                      : "paired roots, fast reciprocals, cube roots, square roots (SHWA_DEVICE_FAST_MATH=4)";
#elif defined(KOKKOS_ENABLE_HIP)
  return SHWA_DEVICE_FAST_MATH >= 1 ? "paired roots" : "divisions and roots as written";
#else
  return "divisions and roots as written";
#endif
}

/// From an approximation r of x^(-1/2) with relative error d: one with error about d^4, the
/// series r (1 - e)^(-1/2) = r (1 + e/2 + 3e^2/8 + 5e^3/16 + ...), e = 1 - x r^2, to its fourth
/// term (35 e^4 / 128 left out: about 2^-70 for d = 2^-18; tested from such seeds on every build).
KOKKOS_FORCEINLINE_FUNCTION double rsqrt_step(double x, double r) {
#if defined(__CUDA_ARCH__)
  const double e = __fma_rn(-x, __dmul_rn(r, r), 1.0);
  const double p = __fma_rn(e, __fma_rn(e, 0.3125, 0.375), 0.5);
  return __fma_rn(__dmul_rn(r, e), p, r);
#else
  const double e = std::fma(-x, r * r, 1.0);
  const double p = std::fma(e, std::fma(e, 0.3125, 0.375), 0.5);
  return std::fma(r * e, p, r);
#endif
}

/// sqrt(x) from an approximation r of x^(-1/2) with relative error d: s = x r and h = r / 2 take
/// one coupled step (Goldschmidt's; errors about d^2), then s the residual's correction
/// s + (x - s^2) h (about d^4 and the roundings: within the rounded root's ulp).
KOKKOS_FORCEINLINE_FUNCTION double sqrt_step(double x, double r) {
#if defined(__CUDA_ARCH__)
  double s = __dmul_rn(x, r), h = __dmul_rn(0.5, r);
  const double e = __fma_rn(-s, h, 0.5);
  s = __fma_rn(s, e, s);
  h = __fma_rn(h, e, h);
  return __fma_rn(__fma_rn(-s, s, x), h, s);
#else
  double s = x * r, h = 0.5 * r;
  const double e = std::fma(-s, h, 0.5);
  s = std::fma(s, e, s);
  h = std::fma(h, e, h);
  return std::fma(std::fma(-s, s, x), h, s);
#endif
}

#if defined(__CUDA_ARCH__)
/// The device's approximation of x^(-1/2) (rsqrt.approx.ftz: a zero or subnormal x gives +inf).
KOKKOS_FORCEINLINE_FUNCTION double rsqrt_seed(double x) {
  double r;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}
KOKKOS_FORCEINLINE_FUNCTION float rsqrt_seed(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#endif

/// 1 / sqrt(x) for a normal, finite x > 0: with kFastRoots the device's approximation
/// (rsqrt_seed) and, in double, rsqrt_step; on other GPUs the device's reciprocal square root
/// (CUDA: within 1 ulp in double, 2 in single precision); 1 / sqrt(x) on hosts.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T rsqrt(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (kFastRoots) {
    if constexpr (sizeof(T) == 8)
      return T(rsqrt_step(double(x), rsqrt_seed(double(x))));
    else
      return T(rsqrt_seed(float(x)));
  }
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::rsqrt(x);
#else
  return T(1) / sqrt(x);
#endif
}

/// r + r (e + e^2), e = 1 - x r: from an approximation r of 1 / x with relative error d, one with
/// error about d^3 (the series r / (1 - e) to its third term), each operation rounded on its own.
/// From rcp.approx.ftz.f64, which reads the operand's upper 32 bits (d up to about 2^-19), that is
/// within 2^-57 before the roundings (tested from such seeds on every build).
KOKKOS_FORCEINLINE_FUNCTION double reciprocal_step(double x, double r) {
#if defined(__CUDA_ARCH__)
  double e = __fma_rn(-x, r, 1.0);
  e = __fma_rn(e, e, e);
  return __fma_rn(e, r, r);
#else
  double e = std::fma(-x, r, 1.0);
  e = std::fma(e, e, e);
  return std::fma(e, r, r);
#endif
}

/// 1 / x for a normal x > 0 whose reciprocal is normal: with kFastReciprocal the device's
/// approximation (rcp.approx) and, in double, reciprocal_step; in single precision one Newton step
/// r + r (1 - x r). Else 1 / x.
KOKKOS_FORCEINLINE_FUNCTION double reciprocal(double x) {
#if defined(__CUDA_ARCH__)
  if constexpr (kFastReciprocal) {
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    return reciprocal_step(x, r);
  }
#endif
  return 1.0 / x;
}
KOKKOS_FORCEINLINE_FUNCTION float reciprocal(float x) {
#if defined(__CUDA_ARCH__)
  if constexpr (kFastReciprocal) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return __fmaf_rn(r, __fmaf_rn(-x, r, 1.0f), r);
  }
#endif
  return 1.0f / x;
}

/// cbrt(x) for x > 0 within the normal range of float: with kFastCubeRoot z ~ x^(-1/3) from the
/// device's float log2 and exp2 (relative error about 2^-21), then Newton steps
/// z <- z + z (1 - x z^3) / 3, each of which squares the error (two in double, one in single
/// precision), and x z^2; else cbrt(x).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T cube_root(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (kFastCubeRoot) {
    float l, zf;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(float(x)));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(zf) : "f"(l * (-1.0f / 3.0f)));
    T z = T(zf);
    for (int k = 0; k < (sizeof(T) == 8 ? 2 : 1); ++k) {
      const T e = T(1) - x * (z * z * z);
      z = z + z * e * T(1.0 / 3.0);
    }
    return mul_rn(x, mul_rn(z, z));
  }
#endif
  return cbrt(x);
}

/// num / den for den > 0: num times the reciprocal with kFastReciprocal, else the division.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T quotient(T num, T den) {
  if constexpr (kFastReciprocal)
    return mul_rn(num, reciprocal(den));
  else
    return num / den;
}
/// quotient(num, den), returning a zero num as it is where the division has a slow path for it
/// (kBranchOnZero, without kFastReciprocal).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T divide(T num, T den) {
  if constexpr (kBranchOnZero<T> && !kFastReciprocal)
    if (num == T(0)) return num;
  return quotient(num, den);
}
#if defined(__CUDA_ARCH__)
/// sqrt(x) for a normal x > 0 on CUDA devices (kFastRoots): from the device's approximation of the
/// reciprocal square root (rsqrt_seed) and sqrt_step in double, in single precision x r and the
/// residual's correction.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T fast_sqrt_normal(T x) {
  if constexpr (sizeof(T) == 8) {
    return T(sqrt_step(double(x), rsqrt_seed(double(x))));
  } else {
    const float r = rsqrt_seed(float(x)), s = __fmul_rn(float(x), r);
    return T(__fmaf_rn(__fmaf_rn(-s, s, float(x)), __fmul_rn(0.5f, r), s));
  }
}
#endif
/// sqrt(x) for a finite x >= 0. With kFastRoots, for a normal x, fast_sqrt_normal; zeros and
/// subnormals (a film's depth, a still cell's |q|^2) as below.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sqrt_nonneg(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (kFastRoots)
    if (x >= T(sizeof(T) == 8 ? DBL_MIN : FLT_MIN)) return fast_sqrt_normal(x);
#endif
  if constexpr (kBranchOnZero<T>)
    if (x == T(0)) return x;
  return sqrt(x);
}
/// sqrt(x) where the caller uses the result only for a normal x > 0 (an edge's wave speed: g (h_L +
/// h_R) / 2 with a wet side, at least 1e-18, as for rsqrt): with kFastRoots fast_sqrt_normal
/// without sqrt_nonneg's test of the operand and its branch, the same bits for such an x and an
/// unspecified value (inf or NaN) for others; elsewhere sqrt_nonneg.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sqrt_normal(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (kFastRoots) return fast_sqrt_normal(x); else
#endif
  return sqrt_nonneg(x);
}

}  // namespace shwa
