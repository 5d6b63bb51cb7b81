// The warp emulator's coroutines (warp_emulator.hpp). On x86-64 a lane switch is a few
// instructions of assembly that save the callee-saved registers and swap stack pointers: the
// corpus makes tens of millions of switches, and glibc's swapcontext, which also saves the
// signal mask with a system call each time, would take minutes. Other architectures use
// swapcontext.
#include "warp_emulator.hpp"

#include <sys/mman.h>

#include <cstring>
#include <numeric>

#include "host/init/seeded_random.hpp"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace flitsim {

namespace {

constexpr size_t kStackBytes = 256 * 1024;  // a router's cycle needs a few KiB
constexpr size_t kGuardBytes = 4096;        // an inaccessible page below each stack
thread_local WarpEmulator* t_warp = nullptr;

const char* kind_name(int k) {
  static const char* names[] = {"sync", "ballot", "reduce_or", "reduce_add"};
  return names[k];
}

}  // namespace

#if defined(__x86_64__)
// flitsim_lane_switch(save, load): pushes the callee-saved registers, stores the stack
// pointer in *save, loads `load` as the stack pointer and pops the registers saved there.
extern "C" void flitsim_lane_switch(void** save, void* load);
asm(R"(
  .text
  .globl flitsim_lane_switch
  .hidden flitsim_lane_switch
  .type flitsim_lane_switch, @function
flitsim_lane_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size flitsim_lane_switch, .-flitsim_lane_switch
)");
#endif

struct WarpEmulator::Lane {
  char* stack = nullptr;  // the mapping: guard page, then the stack
  void* sp = nullptr;     // saved stack pointer while suspended
#if !defined(__x86_64__)
  ucontext_t context;
#endif
  bool finished = false;
  Kind kind = kSync;
  uint32_t value = 0, result = 0;
  Site site{"", 0};
  ~Lane() {
    if (stack) munmap(stack, kGuardBytes + kStackBytes);
  }
};

#if !defined(__x86_64__)
static thread_local ucontext_t t_scheduler_context;  // the fallback's scheduler
#endif

WarpEmulator::WarpEmulator() : lanes_(new Lane[kLanes]) {
  for (int l = 0; l < kLanes; ++l) {
    void* m = mmap(nullptr, kGuardBytes + kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::runtime_error("warp emulator: cannot map a lane stack");
    lanes_[l].stack = static_cast<char*>(m);
    mprotect(m, kGuardBytes, PROT_NONE);
  }
}

WarpEmulator::~WarpEmulator() = default;

void WarpEmulator::lane_main() {
  WarpEmulator* w = t_warp;
  const int l = w->running_;
  w->entry_(w->body_, l);  // the engine's code does not throw
  w->lanes_[l].finished = true;
#if defined(__x86_64__)
  flitsim_lane_switch(&w->lanes_[l].sp, w->scheduler_sp_);
#else
  swapcontext(&w->lanes_[l].context, &t_scheduler_context);
#endif
  __builtin_unreachable();  // a finished lane is never resumed
}

void WarpEmulator::resume(int lane) {
  running_ = lane;
#if defined(__x86_64__)
  flitsim_lane_switch(&scheduler_sp_, lanes_[lane].sp);
#else
  swapcontext(&t_scheduler_context, &lanes_[lane].context);
#endif
}

uint32_t WarpEmulator::collective(int lane, Kind kind, uint32_t value, Site site) {
  Lane& L = lanes_[lane];
  L.kind = kind, L.value = value, L.site = site;
#if defined(__x86_64__)
  flitsim_lane_switch(&L.sp, scheduler_sp_);
#else
  swapcontext(&L.context, &t_scheduler_context);
#endif
  return L.result;
}

bool WarpEmulator::Site::same_file(const Site& o) const { return std::strcmp(file, o.file) == 0; }
std::string WarpEmulator::Site::str() const { return std::string(file) + ":" + std::to_string(line); }

void WarpEmulator::diverged(const std::string& what) const { throw WarpDivergence("warp divergence: " + what); }

void WarpEmulator::run_lanes(Entry entry, void* body, uint64_t key) {
  t_warp = this, entry_ = entry, body_ = body;
  for (int l = 0; l < kLanes; ++l) {  // a fresh stack whose first switch "returns" into lane_main
    Lane& L = lanes_[l];
    L.finished = false;
#if defined(__x86_64__)
    // From the 16-byte-aligned top down: a null return address for lane_main (which never
    // returns; it makes the stack pointer at its entry 8 mod 16, as after a call), its entry
    // address for the switch's `ret`, and six zeros for the six registers it pops.
    auto* top = reinterpret_cast<void**>(L.stack + kGuardBytes + kStackBytes);
    top[-1] = nullptr;
    top[-2] = reinterpret_cast<void*>(&WarpEmulator::lane_main);
    for (int i = 3; i <= 8; ++i) top[-i] = nullptr;
    L.sp = top - 8;
#else
    getcontext(&L.context);
    L.context.uc_stack.ss_sp = L.stack + kGuardBytes;
    L.context.uc_stack.ss_size = kStackBytes;
    L.context.uc_link = nullptr;
    makecontext(&L.context, reinterpret_cast<void (*)()>(&WarpEmulator::lane_main), 0);
#endif
  }
  int order[kLanes];
  std::iota(order, order + kLanes, 0);
  uint64_t state = SplitMix{key}.next() | 1;  // xorshift64*: a cheap draw per swap
  for (;;) {
    for (int i = kLanes - 1; i > 0; --i) {  // Fisher–Yates; the index by multiplication
      state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
      std::swap(order[i], order[(((state * 0x2545F4914F6CDD1Dull) >> 32) * uint64_t(i + 1)) >> 32]);
    }
    for (int l : order)
      if (!lanes_[l].finished) resume(l);
    // Every lane has finished or waits at a collective: all the same one, or the warp diverged.
    const Lane& first = lanes_[0];
    uint32_t ballot = 0, any = 0, sum = 0;
    int finished = 0;
    for (int l = 0; l < kLanes; ++l) {
      const Lane& L = lanes_[l];
      finished += L.finished;
      if (L.finished != first.finished || (!L.finished && (L.kind != first.kind || !(L.site == first.site)))) {
        const Lane& waiting = L.finished ? first : L;
        const int at = L.finished ? 0 : l, done = L.finished ? l : 0;
        if (L.finished || first.finished)
          diverged("lane " + std::to_string(done) + " finished while lane " + std::to_string(at) + " waits at a " +
                   kind_name(waiting.kind) + " (" + waiting.site.str() + ")");
        diverged("lane " + std::to_string(l) + " is at a " + kind_name(L.kind) + " (" + L.site.str() + ") while lane 0 is at a " +
                 kind_name(first.kind) + " (" + first.site.str() + ")");
      }
      ballot |= uint32_t(L.value != 0) << l, any |= L.value, sum += L.value;
    }
    if (finished == kLanes) return;
    const uint32_t result = first.kind == kBallot ? ballot : first.kind == kReduceOr ? any : first.kind == kReduceAdd ? sum : 0;
    for (int l = 0; l < kLanes; ++l) lanes_[l].result = result;
    ++collectives_;
  }
}

}  // namespace flitsim
