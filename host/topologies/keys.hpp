// Rejects keys a topology builder does not read, so a typo ("grups = 10") is an error naming
// the key instead of a silently different network. Every builder calls it first.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <string>

#include "../params.hpp"

namespace flitsim {

inline void check_topology_keys(const Params& prm, const std::string& kind,
                                std::initializer_list<const char*> known) {
  for (const std::string& k : prm.keys()) {
    if (k == "kind" || std::any_of(known.begin(), known.end(), [&](const char* n) { return k == n; })) continue;
    std::string list = "kind";
    for (const char* n : known) list += std::string(", ") + n;
    prm.fail(k, "unknown key for topology kind \"" + kind + "\" (known: " + list + ")");
  }
}

}  // namespace flitsim
