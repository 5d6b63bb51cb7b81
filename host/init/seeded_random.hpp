// Host-side seeded randomness for set-up (random wirings, permutation patterns, placements):
// SplitMix64 and Fisher–Yates give the same result on every platform and compiler, unlike
// std:: distributions, so a seed names one network and one traffic table everywhere.
#pragma once
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace flitsim {

struct SplitMix {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }  // bias < n/2^64, irrelevant here
};

// Uniform random permutation of [0, n) (Fisher–Yates) for `seed`.
inline std::vector<int32_t> random_permutation(int32_t n, uint64_t seed) {
  std::vector<int32_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  SplitMix rng{seed};
  for (int32_t i = n - 1; i > 0; --i) std::swap(v[i], v[rng.below(uint64_t(i) + 1)]);
  return v;
}

}  // namespace flitsim
