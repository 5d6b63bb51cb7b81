#include "host_state.hpp"

#include <algorithm>
#include <numeric>

#include "state_memory.hpp"

namespace flitsim {

void HostState::allocate() {
  if (sizes_only_requested()) throw SizesOnly{sz};  // initial_sizes(): the sizes are all it wants
  check_host_memory(sz);                             // refuse before allocating, not bad_alloc after
#define FLITSIM_ALLOC(type, name, count) name.assign(size_t(count), type{});
  FLITSIM_STATE_ARRAYS(FLITSIM_ALLOC)
#undef FLITSIM_ALLOC
#define FLITSIM_INIT(name, value) std::fill(name.begin(), name.end(), value);
  FLITSIM_STATE_INITIAL(FLITSIM_INIT)
#undef FLITSIM_INIT
}

SimView HostState::view() {
  SimView v;
  v.sz = sz;
  v.prm = prm;
#define FLITSIM_POINT(type, name, count) v.name = name.data();
  FLITSIM_STATE_ARRAYS(FLITSIM_POINT)
#undef FLITSIM_POINT
  return v;
}

void HostState::reduce_counters() {
  counters.assign(size_t(sz.reps), ReplicaCounters{});
  for (int rep = 0; rep < sz.reps; ++rep) {
#define FLITSIM_REDUCE(field, array, stride, first, length, op)                          \
  if ((long long)(length) > 0) {                                                          \
    auto begin = array.begin() + (long long)rep * (stride) + (first);                     \
    counters[rep].field = CounterOp::op == CounterOp::Max                                 \
                              ? (long long)*std::max_element(begin, begin + (length))     \
                              : std::accumulate(begin, begin + (length), 0LL);            \
  }
    FLITSIM_DRIVER_COUNTERS(FLITSIM_REDUCE)
#undef FLITSIM_REDUCE
  }
}

size_t HostState::bytes() const {
  size_t b = 0;
#define FLITSIM_BYTES(type, name, count) b += name.size() * sizeof(type);
  FLITSIM_STATE_ARRAYS(FLITSIM_BYTES)
#undef FLITSIM_BYTES
  return b;
}

size_t HostState::replica_bytes() const {
  size_t b = 0;
#define FLITSIM_BYTES(type, name, count) b += name.size() * sizeof(type);
  FLITSIM_REPLICA_ARRAYS(FLITSIM_BYTES)
#undef FLITSIM_BYTES
  return sz.reps ? b / size_t(sz.reps) : 0;
}

}  // namespace flitsim
