// A GPU warp emulated on one CPU thread, so that the block-type CUDA schedules' executor
// (LanePorts, cuda/lane_ports.cuh) runs on the CPU — a test-only executor
// (FLITSIM_STEP_ORDER=warp[:SEED], host/run/step_order.hpp).
//
// Each of the 32 lanes is a coroutine with its own stack running the same code (a router's
// cycle). A lane runs until it reaches a collective (sync, ballot, reduce_or, reduce_add);
// when every lane has reached one, the collective's result is computed from all 32 and the
// lanes run on to the next. Between two collectives the lanes run one after another in a
// seeded-shuffled order: as on a GPU, where they run concurrently, a result must not depend on
// which lane ran first (a lane reading what another lane wrote since the last collective would
// change results from one order to the next, and the corpus test would see it).
//
// What a GPU would do wrong and the emulator reports (WarpDivergence): lanes meeting at
// different collectives (another kind, or the same kind at another place in the code), and
// some lanes leaving the router's cycle while others wait at a collective — a warp that
// diverged around __syncwarp or __ballot_sync, which on a GPU hangs or gives undefined results.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace flitsim {

struct WarpDivergence : std::logic_error {
  using std::logic_error::logic_error;
};

class WarpEmulator {
 public:
  static constexpr int kLanes = 32;
  enum Kind : int { kSync, kBallot, kReduceOr, kReduceAdd };
  // Where in the source a lane called a collective.
  struct Site {
    const char* file;
    int line;
    static Site here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { return {file, line}; }
    bool operator==(const Site& o) const { return line == o.line && (file == o.file || same_file(o)); }
    bool same_file(const Site& o) const;
    std::string str() const;
  };

  WarpEmulator();
  ~WarpEmulator();
  WarpEmulator(const WarpEmulator&) = delete;
  WarpEmulator& operator=(const WarpEmulator&) = delete;

  // Runs body(lane) on every lane until all return; `key` seeds the lane orders.
  template <class Body>
  void run(Body& body, uint64_t key) {
    run_lanes([](void* b, int lane) { (*static_cast<Body*>(b))(lane); }, &body, key);
  }

  // Called by lane `lane` at a collective: waits for all lanes, returns the result (0 for sync).
  uint32_t collective(int lane, Kind kind, uint32_t value, Site site);

  // Collectives run by all runs so far (a test's sanity check that the lanes met).
  long long collectives() const { return collectives_; }

 private:
  using Entry = void (*)(void*, int);
  void run_lanes(Entry entry, void* body, uint64_t key);
  void resume(int lane);
  [[noreturn]] static void lane_main();
  [[noreturn]] void diverged(const std::string& what) const;

  struct Lane;  // a coroutine: its stack (unmapped by its destructor) and what it waits at
  std::unique_ptr<Lane[]> lanes_;
  void* scheduler_sp_ = nullptr;  // the scheduler's saved stack while a lane runs
  int running_ = -1;              // the lane running now
  Entry entry_ = nullptr;
  void* body_ = nullptr;
  long long collectives_ = 0;
};

// The Lanes of LanePorts (cuda/lane_ports.cuh) for an emulated warp. Each collective passes the
// source line it was called from, so that lanes at two different ballots do not pass as one
// (not the return address: the compiler may copy one call into several paths of a loop).
struct EmulatedLanes {
  WarpEmulator* warp;
  int lane_;
  using Site = WarpEmulator::Site;
  int lane() const { return lane_; }
  void sync(Site at = Site::here()) const { warp->collective(lane_, WarpEmulator::kSync, 0, at); }
  unsigned ballot(bool b, Site at = Site::here()) const { return warp->collective(lane_, WarpEmulator::kBallot, b, at); }
  unsigned reduce_or(unsigned v, Site at = Site::here()) const {
    return warp->collective(lane_, WarpEmulator::kReduceOr, v, at);
  }
  unsigned reduce_add(unsigned v, Site at = Site::here()) const {
    return warp->collective(lane_, WarpEmulator::kReduceAdd, v, at);
  }
};

}  // namespace flitsim
