#include "host_state.hpp"

#include <algorithm>

namespace flitsim {

void HostState::allocate() {
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
