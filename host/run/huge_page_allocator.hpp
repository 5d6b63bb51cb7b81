// Storage for the state arrays on the host: arrays of 2 MiB or more are 2 MiB aligned and
// advised to use transparent huge pages (MADV_HUGEPAGE) before they are first touched. A large
// network's state (16,512-node dragonfly: ~250 MiB) is read at scattered places every cycle;
// with 4 KiB pages nearly every such access also misses the TLB. Where the kernel has huge
// pages disabled the advice is ignored and nothing changes.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace flitsim {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t(2) << 20;
  static constexpr size_t kLine = 64;
  static_assert(alignof(T) <= kLine, "state records are at most one cache line aligned");
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) {  // cache-line aligned: records such as PortRings are one line each
      if (void* p = std::aligned_alloc(kLine, (bytes + kLine) / kLine * kLine)) return static_cast<T*>(p);
      throw std::bad_alloc();
    }
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure leaves ordinary pages
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const { return false; }
};

// One state array on the host (host_state.hpp).
template <class T>
using StateVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace flitsim
