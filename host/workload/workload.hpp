// Closed-loop workloads on the host: per-rank message programs of jobs (built by
// flitsim.workload or read from a user's JSON file), checked and matched statically, placed on
// nodes and laid out as the flat CSR tables that cuda/workload/program.cuh executes.
//
// A program is, per rank, a list of steps; a step sends messages (destination rank, bytes),
// then waits for messages from listed source ranks, then computes for some cycles. The k-th
// message rank s sends to rank d is received by the k-th receive from s in d's program (MPI's
// non-overtaking order), so every message is matched to one step of its receiver before the
// run. Unmatched sends or receives, and programs that can never finish (cyclic waits), are
// errors naming the job, rank and step.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace flitsim {

struct HostState;

// A workload did not finish within workload.max_cycles (never expected after the static
// checks unless the network deadlocks or compute delays are huge); names the waiting ranks.
struct WorkloadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One job's program in rank space, in CSR form.
struct JobProgram {
  std::string label;                       // for messages, e.g. "workload.jobs[0] (alltoall)"
  int32_t ranks = 0;
  std::vector<int64_t> step_ptr;           // ranks + 1: steps of rank r
  std::vector<int64_t> send_ptr;           // steps + 1: sends of step k
  std::vector<int64_t> send_dst, send_bytes;
  std::vector<int64_t> recv_ptr;           // steps + 1: receives of step k
  std::vector<int64_t> recv_src;
  std::vector<int64_t> compute;            // steps: cycles after the step's receives
  // Set by match_program(): the receiver's step of every send.
  std::vector<int64_t> send_step;          // sends: the sender's step
  std::vector<int64_t> send_match_step;    // sends: the receiver's step
  int64_t steps() const { return int64_t(compute.size()); }
  int64_t sends() const { return int64_t(send_dst.size()); }
};

// Checks the CSR structure and values, matches sends to receives and proves that every rank
// can finish (ConfigError otherwise, naming rank and step).
void match_program(JobProgram& p);

// A job placed in one replica: which program, on which nodes (rank i on nodes[i]).
struct JobPlacement {
  int32_t program = 0;
  std::vector<int32_t> nodes;
  bool background = false;  // the run does not wait for it; it stops when the others finish
};

struct WorkloadSpec {
  std::vector<JobProgram> programs;
  std::vector<std::vector<JobPlacement>> replicas;  // per replica, its jobs
  int32_t packet_size = 16;   // flits per packet
  int64_t flit_bytes = 16;    // bytes per flit
  int64_t max_cycles = 100000000;
  int32_t ni_queues = 1;      // messages an interface interleaves packet by packet
};

// The spec laid out over nodes, ready for the device, plus host-side maps for statistics.
struct CompiledWorkload {
  int32_t reps = 0, N = 0, packet_size = 16, ni_queues = 1;
  int64_t flit_bytes = 16, max_cycles = 0;
  std::vector<int32_t> node_step;          // reps·N + 1
  std::vector<int32_t> step_send;          // steps + 1
  std::vector<int32_t> step_need;
  std::vector<long long> step_compute;
  std::vector<int32_t> msg_dst, msg_flits, msg_step;
  std::vector<uint8_t> node_bg;            // reps·N
  // Host-only.
  std::vector<int32_t> node_job, node_rank;            // reps·N (-1: idle node)
  std::vector<int32_t> step_job, step_rank, step_index;  // per step: job, rank, step of the rank
  std::vector<int32_t> msg_job;
  std::vector<int64_t> msg_bytes;
  std::vector<std::vector<int32_t>> job_program;       // per replica, per job
  std::vector<std::vector<uint8_t>> job_background;    // per replica, per job
  std::vector<std::string> program_label;
};

// Checks and lays out `spec` for N nodes (ConfigError naming the job for bad placements).
std::shared_ptr<const CompiledWorkload> compile_workload(WorkloadSpec spec, int32_t N);

// Copies the compiled tables into a freshly allocated state (sizes already set) and sets the
// initial program state: every node's first step released at cycle 0.
void init_workload_state(const CompiledWorkload& w, HostState& h);

// Per-replica workload statistics (integers; Python derives times and rates).
struct WorkloadStats {
  // Per job of the replica: messages of its programs, and the messages, payload bytes,
  // flits and packets completely delivered (all of them for foreground jobs).
  std::vector<int64_t> job_messages, job_delivered, job_bytes, job_flits, job_packets;
  std::vector<int64_t> job_first_inject, job_last_delivery, job_finish, job_unfinished;
  // Per node (reps slice): -1 where not applicable.
  std::vector<int64_t> node_first_inject, node_last_delivery, node_finish;
  std::vector<int32_t> node_job, node_rank;
  // Per step of the replica (its programs' steps in node order).
  std::vector<int32_t> step_job, step_rank, step_index;
  std::vector<int64_t> step_start, step_done;
  int64_t foreground_end = -1;  // cycle the last foreground program finished
};

WorkloadStats collect_workload(const CompiledWorkload& w, const HostState& h, int rep);

// Programs still running in replica rep (up to `limit` lines), for error messages.
std::string describe_waiting(const CompiledWorkload& w, const HostState& h, int rep, int limit);

// Problems the workload invariants find at the end of a run ("" when none): a message
// delivered more packets than it has, or an unfinished foreground job with the network empty.
std::string check_workload(const CompiledWorkload& w, const HostState& h);

}  // namespace flitsim
