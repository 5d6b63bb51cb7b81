// End-of-run checks of the model's invariants on a downloaded state.
#pragma once
#include <string>

#include "host/init/host_state.hpp"

namespace flitsim {

// Every flit a node sent is delivered, buffered or on a channel; every VC's credits plus the
// flits and credits in transit for it equal the buffer depth. Returns "" or what broke.
std::string check_conservation(const HostState& h);

// Describes up to `limit` occupied input VCs of replica `rep` (router, port, VC, flits, output
// port and VC, downstream credits) and, with router.architecture = "cioq", the occupancy of its
// output queues (up to `limit` non-empty ones) and the credits its inputs still owe upstream:
// the diagnostics of a deadlock report.
std::string describe_blocked(const HostState& h, int rep, int limit);

}  // namespace flitsim
