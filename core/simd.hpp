// shwa/core/simd.hpp — loops the host compiler is asked to vectorize (OpenMP's simd directive,
// with the reductions the host kernels use); nothing where OpenMP is off or the compiler is nvcc's
// (device code does not run these loops).
#pragma once

#if defined(_OPENMP) && !defined(__CUDACC__)
#define SHWA_PRAGMA(x) _Pragma(#x)
#define SHWA_SIMD SHWA_PRAGMA(omp simd)
#define SHWA_SIMD_MIN(var) SHWA_PRAGMA(omp simd reduction(min : var))
#define SHWA_SIMD_MAX(var) SHWA_PRAGMA(omp simd reduction(max : var))
#define SHWA_SIMD_MAX2(a, b) SHWA_PRAGMA(omp simd reduction(max : a, b))
#define SHWA_SIMD_OR(var) SHWA_PRAGMA(omp simd reduction(| : var))
#else
#define SHWA_SIMD_OR(var)
#define SHWA_SIMD
#define SHWA_SIMD_MIN(var)
#define SHWA_SIMD_MAX(var)
#define SHWA_SIMD_MAX2(a, b)
#endif
