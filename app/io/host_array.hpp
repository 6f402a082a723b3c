// shwa/app/io/host_array.hpp — a std::vector whose new values are left unset, for arrays of a
// grid's cells that a pass then writes whole (app/host_values.hpp says why).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace shwa::io {

/// std::allocator, except that a value constructed without arguments is default-initialised: a
/// double made by resize or the size constructor is left unset instead of zeroed.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector of T whose resize and size constructor leave new values unset.
template <class T>
using HostArray = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace shwa::io
