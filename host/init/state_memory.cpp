#include "state_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "host/config/engine_config.hpp"

namespace flitsim {

namespace {

thread_local bool g_sizes_only = false;

// A number of bytes as "1.5 GiB" / "12.0 MiB".
std::string human(size_t b) {
  char buf[64];
  if (b >= (size_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(size_t(1) << 30));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(size_t(1) << 20));
  return buf;
}

// The first integer in a file, or -1 (absent, unreadable, or "max").
long long read_number(const char* path) {
  std::ifstream f(path);
  long long v = -1;
  if (f && (f >> v)) return v;
  return -1;
}

}  // namespace

size_t state_bytes(const Sizes& sz) {
  size_t b = 0;
#define FLITSIM_COUNT_BYTES(type, name, count) b += size_t(count) * sizeof(type);
  FLITSIM_STATE_ARRAYS(FLITSIM_COUNT_BYTES)
#undef FLITSIM_COUNT_BYTES
  return b;
}

size_t state_replica_bytes(const Sizes& sz) {
  size_t b = 0;
#define FLITSIM_COUNT_BYTES(type, name, count) b += size_t(count) * sizeof(type);
  FLITSIM_REPLICA_ARRAYS(FLITSIM_COUNT_BYTES)
#undef FLITSIM_COUNT_BYTES
  return sz.reps ? b / size_t(sz.reps) : 0;
}

unsigned long long parse_memory_limit(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return ConfigError("FLITSIM_MEMORY_LIMIT: must be a whole number of bytes > 0, optionally with a unit K, M, G "
                       "or T (powers of 1024), e.g. 1048576, 512M or 2G; got \"" + text + "\" (" + why + ")");
  };
  size_t i = 0;
  unsigned long long v = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (ULLONG_MAX - 9) / 10) throw bad("too large");
    v = v * 10 + unsigned(text[i] - '0');
  }
  if (i == 0) throw bad(!text.empty() && text[0] == '-' ? "negative" : "no digits");
  int shift = 0;
  if (i < text.size()) {
    const char u = text[i++];
    shift = u == 'K' || u == 'k' ? 10 : u == 'M' || u == 'm' ? 20 : u == 'G' || u == 'g' ? 30 : u == 'T' || u == 't' ? 40 : -1;
    if (shift < 0 || i != text.size()) throw bad("unknown unit or trailing characters");
  }
  if (v == 0) throw bad("zero would leave no memory");
  if (v > (ULLONG_MAX >> shift)) throw bad("too large");
  return v << shift;
}

size_t available_host_bytes() {
  long long avail = -1;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream in(line.substr(13));
      long long kib = 0;
      if (in >> kib) avail = kib * 1024;
      break;
    }
  }
  if (avail < 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) avail = (long long)pages * page;
  }
  const long long limit = read_number("/sys/fs/cgroup/memory.max");
  const long long used = read_number("/sys/fs/cgroup/memory.current");
  if (limit > 0 && used >= 0) {
    const long long room = std::max(0LL, limit - used);
    avail = avail < 0 ? room : std::min(avail, room);
  }
  // An address-space limit (ulimit -v) leaves its limit minus what the process maps already.
  struct rlimit as {};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    std::ifstream statm("/proc/self/statm");
    long long pages = 0;
    statm >> pages;
    const long long room = std::max(0LL, (long long)as.rlim_cur - pages * sysconf(_SC_PAGESIZE));
    avail = avail < 0 ? room : std::min(avail, room);
  }
  // FLITSIM_MEMORY_LIMIT caps it further: a shared machine, or a test of the refusal.
  if (const char* cap = std::getenv("FLITSIM_MEMORY_LIMIT")) {
    const long long v = (long long)std::min<unsigned long long>(parse_memory_limit(cap), (unsigned long long)LLONG_MAX);
    avail = avail < 0 ? v : std::min(avail, v);
  }
  return avail < 0 ? 0 : size_t(avail);
}

void check_host_memory(const Sizes& sz) {
  const size_t need = state_bytes(sz), avail = available_host_bytes();
  if (avail == 0 || need <= avail) return;
  throw ConfigError("sim: the simulation state needs " + human(need) + " (" + human(state_replica_bytes(sz)) +
                    " per replica x " + std::to_string(sz.reps) + " replicas; " + std::to_string(sz.R) +
                    " routers, " + std::to_string(sz.P) + " ports, " + std::to_string(sz.V) + " VCs x " +
                    std::to_string(sz.B) + " flits, " + std::to_string(sz.S) + " packet slots per node, " +
                    std::to_string(sz.bins) + " latency bins) but only " + human(avail) +
                    " of host memory are available; reduce router.vcs, router.buffer, sim.packet_slots, "
                    "sim.latency_bins, the replicas or the topology");
}

bool sizes_only_requested() { return g_sizes_only; }

Sizes initial_sizes(const Topology& topo, const EngineConfig& cfg) {
  struct Reset {
    ~Reset() { g_sizes_only = false; }
  } reset;
  g_sizes_only = true;
  try {
    make_initial_state(topo, cfg);
  } catch (const SizesOnly& s) {
    return s.sz;
  }
  throw std::logic_error("initial_sizes: make_initial_state allocated nothing");
}

}  // namespace flitsim
