// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11). A draw is a pure
// function of (seed; entity, cycle, purpose), so results never depend on thread order,
// thread count or backend, and a replica's traffic is the same whatever else runs with it.
#pragma once
#include "hd.cuh"

namespace flitsim {

enum RngPurpose : uint32_t {
  kRngInject = 1,     // Bernoulli packet generation at a node
  kRngDest = 2,       // destination choice
  kRngRoute = 3,      // routing choices (random minimal port, intermediates)
  kRngSize = 4,       // random packet sizes
  kRngBurst = 5,      // on/off source state transitions
  kRngVc = 6,         // router.vc_policy = "random" / "by-hop": VC choices
  kRngGap = 7,        // Bernoulli injection: cycles from a node's packet k − 1 to packet k
};

struct Rng4 {
  uint32_t v[4];
};

FLITSIM_HD void mulhilo32(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = uint64_t(a) * uint64_t(b);
  hi = uint32_t(p >> 32);
  lo = uint32_t(p);
}

FLITSIM_HD Rng4 philox4x32(uint64_t key, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3) {
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  uint32_t x0 = c0, x1 = c1, x2 = c2, x3 = c3;
  for (int i = 0; i < 10; ++i) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo32(0xD2511F53u, x0, hi0, lo0);
    mulhilo32(0xCD9E8D57u, x2, hi1, lo1);
    uint32_t y0 = hi1 ^ x1 ^ k0, y2 = hi0 ^ x3 ^ k1;
    x0 = y0;
    x1 = lo1;
    x2 = y2;
    x3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Rng4{{x0, x1, x2, x3}};
}

// One 32-bit draw for (entity, cycle, purpose) under `seed`.
FLITSIM_HD uint32_t draw32(uint64_t seed, uint32_t entity, int64_t cycle, uint32_t purpose,
                           uint32_t salt = 0) {
  return philox4x32(seed, entity, uint32_t(cycle), uint32_t(uint64_t(cycle) >> 32) ^ salt, purpose).v[0];
}

// Uniform integer in [0, n) from a 32-bit draw (multiply-shift: exact integer arithmetic).
FLITSIM_HD uint32_t draw_below(uint32_t u, uint32_t n) { return uint32_t((uint64_t(u) * n) >> 32); }

}  // namespace flitsim
