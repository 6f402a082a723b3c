// shwa/core/types.hpp — every type the kernels use, named once (the plain ones, Real and the
// sides of a block, in params.hpp).
//
// Fields are 2D Kokkos Views indexed (j, i) with LayoutRight, so i (x, east) is the fastest index.
// j grows northwards: row j = 0 is the southern edge of the block. Every field carries `ng` ghost
// layers on each side; kernels work in these padded ("storage") indices, owned cells are
// [ng, ng+nx) x [ng, ng+ny).
#pragma once

#include "compat.hpp"
#include "params.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace shwa {

/// A field of one execution space's memory: (j, i), i fastest.
template <class ExecSpace>
using Field = Kokkos::View<Real**, Kokkos::LayoutRight, typename ExecSpace::memory_space>;

/// Whether the device computes cell positions in 32 bits (cell_at): by default in single precision,
/// where the update and the CFL pass issue fewer instructions and ran faster, and not in double,
/// whose update took more registers and ran slower at 4096^2 (docs/kernels.md, "Positions in 32
/// bits"). SHWA_DEVICE_CELL_AT_32 1 or 0 sets it for both. Only CUDA devices use it.
#ifndef SHWA_DEVICE_CELL_AT_32
#define SHWA_DEVICE_CELL_AT_32 (sizeof(Real) == 4)
#endif
inline constexpr bool kCellAt32 = SHWA_DEVICE_CELL_AT_32;

/// The position of cell (j, i) in the data of a field laid out as `f` (2-D, LayoutRight): f(j, i)
/// is f.data()[cell_at(f, j, i)]. Fields of one shape share it (same_layout), so a kernel that
/// reads and writes several computes it once for all of them, where f(j, i) computes the row
/// offset again for each field (docs/kernels.md). Builds with Kokkos' bounds checks check (j, i).
template <class V>
KOKKOS_FORCEINLINE_FUNCTION size_t cell_at(const V& f, int j, int i) {
  static_assert(int(V::rank) == 2 && std::is_same_v<typename V::array_layout, Kokkos::LayoutRight>,
                "cell_at addresses 2-D LayoutRight fields");
#if defined(KOKKOS_ENABLE_DEBUG_BOUNDS_CHECK)
  if (j < 0 || i < 0 || size_t(j) >= f.extent(0) || size_t(i) >= f.extent(1))
    Kokkos::abort("cell_at: (j, i) outside the field");
#endif
#if defined(__CUDA_ARCH__)
  if constexpr (kCellAt32) {
    // One 32-bit IMAD (check_layouts refuses device fields of more positions, fits_cell_at),
    // widened behind an empty asm that nvcc cannot see through: each field's address stays its
    // base plus this one 64-bit offset, where a visibly 32-bit offset lets nvcc widen it again for
    // every field, in more registers.
    unsigned long long o = unsigned(j) * unsigned(f.stride_0()) + unsigned(i);
    asm("" : "+l"(o));
    return size_t(o);
  } else
#endif
  return size_t(j) * size_t(f.stride_0()) + size_t(i);
}
/// Whether every position of a field laid out as `f` fits in 32 bits (kCellAt32).
template <class V>
bool fits_cell_at(const V& f) {
  return uint64_t(f.extent(0)) * uint64_t(f.stride_0()) <= (uint64_t(1) << 32);
}
/// Whether `f` has the extents and row stride of `like`, so that cell_at(like, j, i) addresses it.
template <class A, class B>
bool same_layout(const A& like, const B& f) {
  return f.extent(0) == like.extent(0) && f.extent(1) == like.extent(1) && f.stride_0() == like.stride_0();
}

/// Team scratch (shared memory on GPUs), flat.
template <class ExecSpace>
using ScratchArray = Kokkos::View<Real*, typename ExecSpace::scratch_memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

using DefaultExec = Kokkos::DefaultExecutionSpace;
using HostExec = Kokkos::DefaultHostExecutionSpace;

/// True when ExecSpace runs on the host (Serial, OpenMP, Threads): kernels then use one thread a
/// team and loop over the tile, instead of one thread a cell. Asked of the execution space (can it
/// reach host memory), not of its memory space (can the host reach that), which unified memory
/// would make true for a GPU.
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
}

/// The policy p with its kernels' functor passed as a kernel argument. Otherwise Kokkos 3.x (CUDA)
/// copies a functor of 512 bytes or more to constant memory, and first waits for the last kernel
/// that used that memory to end: every such launch would wait for the device, and the host could
/// not queue a step's kernels ahead of it. Functors up to 4 KB fit (the boundary fill's, the
/// largest of a step, is 3.6 KB in double).
template <class Policy>
auto launch_light(const Policy& p) {
  return Kokkos::Experimental::require(p, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

/// A half-open rectangle of cells in storage indices: [i0, i1) x [j0, j1).
struct Box {
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;
  KOKKOS_INLINE_FUNCTION int nx() const { return i1 - i0; }
  KOKKOS_INLINE_FUNCTION int ny() const { return j1 - j0; }
  KOKKOS_INLINE_FUNCTION bool empty() const { return i1 <= i0 || j1 <= j0; }
  KOKKOS_INLINE_FUNCTION std::int64_t size() const {
    return empty() ? 0 : std::int64_t(nx()) * std::int64_t(ny());
  }
};

}  // namespace shwa
