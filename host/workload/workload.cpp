#include "workload.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "host/init/host_state.hpp"
#include "host/config/params.hpp"

namespace flitsim {

namespace {

[[noreturn]] void fail(const JobProgram& p, const std::string& what) { throw ConfigError(p.label + ": " + what); }

// Rank owning each step (steps are grouped by rank).
std::vector<int64_t> step_owner(const JobProgram& p) {
  std::vector<int64_t> owner(p.steps());
  for (int32_t r = 0; r < p.ranks; ++r)
    for (int64_t k = p.step_ptr[r]; k < p.step_ptr[r + 1]; ++k) owner[k] = r;
  return owner;
}

void check_csr(const JobProgram& p, const std::vector<int64_t>& ptr, size_t rows, int64_t items,
               const char* name) {
  if (ptr.size() != rows + 1 || ptr[0] != 0 || ptr.back() != items)
    fail(p, std::string("malformed program: ") + name + " must have " + std::to_string(rows + 1) +
                " entries from 0 to " + std::to_string(items));
  for (size_t i = 0; i < rows; ++i)
    if (ptr[i + 1] < ptr[i]) fail(p, std::string("malformed program: ") + name + " must not decrease");
}

// "rank 3 step 2" with the step counted within the rank's program.
std::string at(const JobProgram& p, int64_t rank, int64_t step) {
  return "rank " + std::to_string(rank) + " step " + std::to_string(step - p.step_ptr[rank]);
}

}  // namespace

void match_program(JobProgram& p) {
  if (p.ranks < 0) fail(p, "needs at least 0 ranks, got " + std::to_string(p.ranks));  // 0: an idle job
  const int64_t S = p.steps(), M = p.sends();
  check_csr(p, p.step_ptr, size_t(p.ranks), S, "step_ptr");
  check_csr(p, p.send_ptr, size_t(S), M, "send_ptr");
  check_csr(p, p.recv_ptr, size_t(S), int64_t(p.recv_src.size()), "recv_ptr");
  if (p.send_bytes.size() != size_t(M)) fail(p, "malformed program: one size per send");
  const std::vector<int64_t> owner = step_owner(p);
  const int64_t R = p.ranks;

  // Values.
  p.send_step.assign(M, 0);
  for (int64_t k = 0; k < S; ++k) {
    const int64_t r = owner[k];
    if (p.compute[k] < 0)
      fail(p, at(p, r, k) + ": compute must be >= 0 cycles, got " + std::to_string(p.compute[k]));
    for (int64_t i = p.send_ptr[k]; i < p.send_ptr[k + 1]; ++i) {
      p.send_step[i] = k;
      const int64_t d = p.send_dst[i];
      if (d < 0 || d >= R)
        fail(p, at(p, r, k) + ": sends to rank " + std::to_string(d) + ", outside [0, " + std::to_string(R) + ")");
      if (d == r) fail(p, at(p, r, k) + ": sends a message to itself");
      if (p.send_bytes[i] <= 0)
        fail(p, at(p, r, k) + ": message size must be > 0 bytes, got " + std::to_string(p.send_bytes[i]));
    }
    for (int64_t i = p.recv_ptr[k]; i < p.recv_ptr[k + 1]; ++i) {
      const int64_t src = p.recv_src[i];
      if (src < 0 || src >= R)
        fail(p, at(p, r, k) + ": receives from rank " + std::to_string(src) + ", outside [0, " +
                    std::to_string(R) + ")");
      if (src == r) fail(p, at(p, r, k) + ": receives a message from itself");
    }
  }

  // Matching: sends grouped by (destination, source) and receives by (receiver, source), each
  // in program order (stable sorts of indices that are already in program order).
  const int64_t Q = int64_t(p.recv_src.size());
  std::vector<int64_t> recv_step(Q);
  for (int64_t k = 0; k < S; ++k)
    for (int64_t i = p.recv_ptr[k]; i < p.recv_ptr[k + 1]; ++i) recv_step[i] = k;
  auto send_key = [&](int64_t i) { return p.send_dst[i] * R + owner[p.send_step[i]]; };
  auto recv_key = [&](int64_t i) { return owner[recv_step[i]] * R + p.recv_src[i]; };
  std::vector<int64_t> so(M), ro(Q);
  std::iota(so.begin(), so.end(), 0);
  std::iota(ro.begin(), ro.end(), 0);
  std::stable_sort(so.begin(), so.end(), [&](int64_t a, int64_t b) { return send_key(a) < send_key(b); });
  std::stable_sort(ro.begin(), ro.end(), [&](int64_t a, int64_t b) { return recv_key(a) < recv_key(b); });
  p.send_match_step.assign(M, -1);
  std::vector<int64_t> recv_match(Q, -1);  // receive -> send
  int64_t a = 0, b = 0;
  while (a < M || b < Q) {
    const int64_t ka = a < M ? send_key(so[a]) : INT64_MAX, kb = b < Q ? recv_key(ro[b]) : INT64_MAX;
    const int64_t key = std::min(ka, kb), d = key / R, src = key % R;
    int64_t a1 = a, b1 = b;
    while (a1 < M && send_key(so[a1]) == key) ++a1;
    while (b1 < Q && recv_key(ro[b1]) == key) ++b1;
    const int64_t ns = a1 - a, nr = b1 - b;
    for (int64_t j = 0; j < std::min(ns, nr); ++j) {
      p.send_match_step[so[a + j]] = recv_step[ro[b + j]];
      recv_match[ro[b + j]] = so[a + j];
    }
    if (ns > nr) {
      const int64_t i = so[a + nr];
      fail(p, at(p, src, p.send_step[i]) + ": sends a message to rank " + std::to_string(d) +
                  " that is never received (rank " + std::to_string(src) + " sends " + std::to_string(ns) +
                  " message(s) to rank " + std::to_string(d) + ", which receives " + std::to_string(nr) + " from it)");
    }
    if (nr > ns) {
      const int64_t i = ro[b + ns];
      fail(p, at(p, d, recv_step[i]) + ": waits for a message from rank " + std::to_string(src) +
                  " that is never sent (rank " + std::to_string(d) + " receives " + std::to_string(nr) +
                  " message(s) from rank " + std::to_string(src) + ", which sends " + std::to_string(ns) + " to it)");
    }
    a = a1, b = b1;
  }

  // Can every rank finish? Release steps as the run would, ignoring time: a step completes
  // when the sends matched to it have been released by their senders.
  std::vector<int64_t> cur(R), got(S, 0);
  std::vector<int32_t> work;
  auto need = [&](int64_t k) { return p.recv_ptr[k + 1] - p.recv_ptr[k]; };
  auto release = [&](int64_t k) {
    for (int64_t i = p.send_ptr[k]; i < p.send_ptr[k + 1]; ++i) {
      const int64_t rk = p.send_match_step[i], d = p.send_dst[i];
      if (++got[rk] == need(rk) && cur[d] == rk) work.push_back(int32_t(d));
    }
  };
  for (int64_t r = 0; r < R; ++r) cur[r] = p.step_ptr[r];
  for (int64_t r = 0; r < R; ++r) {
    if (cur[r] < p.step_ptr[r + 1]) release(cur[r]);
    work.push_back(int32_t(r));
  }
  while (!work.empty()) {
    const int64_t r = work.back();
    work.pop_back();
    while (cur[r] < p.step_ptr[r + 1] && got[cur[r]] == need(cur[r]))
      if (++cur[r] < p.step_ptr[r + 1]) release(cur[r]);
  }
  for (int64_t r = 0; r < R; ++r) {
    if (cur[r] == p.step_ptr[r + 1]) continue;
    const int64_t k = cur[r];
    for (int64_t i = p.recv_ptr[k]; i < p.recv_ptr[k + 1]; ++i) {
      const int64_t snd = recv_match[i], src = p.recv_src[i], sk = p.send_step[snd];
      if (cur[src] >= sk) continue;  // already released
      fail(p, "deadlock: " + at(p, r, k) + " waits for the message rank " + std::to_string(src) +
                  " sends at its step " + std::to_string(sk - p.step_ptr[src]) + ", which rank " +
                  std::to_string(src) + " never reaches (it waits forever at its step " +
                  std::to_string(cur[src] - p.step_ptr[src]) + ")");
    }
    fail(p, "deadlock: " + at(p, r, k) + " can never complete");
  }
}

std::shared_ptr<const CompiledWorkload> compile_workload(WorkloadSpec spec, int32_t N) {
  const Params where("workload");
  if (spec.packet_size < 1) where.fail("packet_size", "must be >= 1 flits");
  if (spec.flit_bytes < 1) where.fail("flit_bytes", "must be >= 1 bytes");
  if (spec.ni_queues < 1 || spec.ni_queues > 4096) where.fail("ni_queues", "must be in [1, 4096]");
  if (spec.replicas.empty()) throw ConfigError("workload: no replicas");
  for (JobProgram& p : spec.programs) match_program(p);

  auto w = std::make_shared<CompiledWorkload>();
  const int32_t reps = int32_t(spec.replicas.size());
  w->reps = reps, w->N = N, w->packet_size = spec.packet_size, w->flit_bytes = spec.flit_bytes;
  w->max_cycles = spec.max_cycles;
  w->ni_queues = spec.ni_queues;
  for (const JobProgram& p : spec.programs) w->program_label.push_back(p.label);
  const int64_t RN = int64_t(reps) * N;
  w->node_job.assign(RN, -1);
  w->node_rank.assign(RN, -1);
  w->node_bg.assign(RN, 0);
  w->node_step.assign(RN + 1, 0);
  w->job_program.resize(reps);
  w->job_background.resize(reps);

  // Placement.
  for (int32_t rep = 0; rep < reps; ++rep) {
    bool foreground = false;
    for (size_t j = 0; j < spec.replicas[rep].size(); ++j) {
      const JobPlacement& jp = spec.replicas[rep][j];
      if (jp.program < 0 || size_t(jp.program) >= spec.programs.size())
        throw ConfigError("workload: job " + std::to_string(j) + " names program " + std::to_string(jp.program) +
                          " of " + std::to_string(spec.programs.size()));
      const JobProgram& p = spec.programs[jp.program];
      if (jp.nodes.size() != size_t(p.ranks))
        fail(p, "placed on " + std::to_string(jp.nodes.size()) + " nodes for " + std::to_string(p.ranks) + " ranks");
      for (int32_t r = 0; r < p.ranks; ++r) {
        const int32_t n = jp.nodes[r];
        if (n < 0 || n >= N)
          fail(p, "rank " + std::to_string(r) + " is placed on node " + std::to_string(n) + ", outside [0, " +
                      std::to_string(N) + ")");
        const int64_t ni = int64_t(rep) * N + n;
        if (w->node_job[ni] >= 0)
          fail(p, "rank " + std::to_string(r) + " is placed on node " + std::to_string(n) +
                      ", which already runs rank " + std::to_string(w->node_rank[ni]) + " of job " +
                      std::to_string(w->node_job[ni]) + " (ranks need distinct nodes)");
        w->node_job[ni] = int32_t(j);
        w->node_rank[ni] = r;
        w->node_bg[ni] = jp.background;
      }
      foreground |= !jp.background;
      w->job_program[rep].push_back(jp.program);
      w->job_background[rep].push_back(jp.background);
    }
    if (!foreground) throw ConfigError("workload.jobs: at least one job must not be a background job");
  }

  // Steps in (replica, node) order; the global index of each rank's first step.
  std::vector<std::vector<std::vector<int64_t>>> base(reps);  // [rep][job][rank]
  int64_t steps = 0, msgs = 0;
  for (int32_t rep = 0; rep < reps; ++rep) {
    base[rep].resize(spec.replicas[rep].size());
    for (size_t j = 0; j < spec.replicas[rep].size(); ++j)
      base[rep][j].assign(spec.programs[spec.replicas[rep][j].program].ranks, 0);
    for (int32_t n = 0; n < N; ++n) {
      const int64_t ni = int64_t(rep) * N + n;
      w->node_step[ni] = int32_t(steps);
      const int32_t j = w->node_job[ni];
      if (j < 0) continue;
      const JobProgram& p = spec.programs[spec.replicas[rep][j].program];
      const int32_t r = w->node_rank[ni];
      base[rep][j][r] = steps;
      steps += p.step_ptr[r + 1] - p.step_ptr[r];
      msgs += p.send_ptr[p.step_ptr[r + 1]] - p.send_ptr[p.step_ptr[r]];
      if (steps >= (int64_t(1) << 31) || msgs >= (int64_t(1) << 31))
        throw ConfigError("workload: more than 2^31 steps or messages in all replicas together");
    }
  }
  w->node_step[RN] = int32_t(steps);

  // Tables.
  w->step_send.assign(steps + 1, 0);
  w->step_need.resize(steps);
  w->step_compute.resize(steps);
  w->step_job.resize(steps);
  w->step_rank.resize(steps);
  w->step_index.resize(steps);
  w->msg_dst.resize(msgs);
  w->msg_flits.resize(msgs);
  w->msg_step.resize(msgs);
  w->msg_job.resize(msgs);
  w->msg_bytes.resize(msgs);
  int64_t g = 0, m = 0;
  for (int32_t rep = 0; rep < reps; ++rep)
    for (int32_t n = 0; n < N; ++n) {
      const int64_t ni = int64_t(rep) * N + n;
      const int32_t j = w->node_job[ni];
      if (j < 0) continue;
      const JobPlacement& jp = spec.replicas[rep][j];
      const JobProgram& p = spec.programs[jp.program];
      const int32_t r = w->node_rank[ni];
      for (int64_t k = p.step_ptr[r]; k < p.step_ptr[r + 1]; ++k, ++g) {
        w->step_send[g] = int32_t(m);
        w->step_need[g] = int32_t(p.recv_ptr[k + 1] - p.recv_ptr[k]);
        w->step_compute[g] = p.compute[k];
        w->step_job[g] = j;
        w->step_rank[g] = r;
        w->step_index[g] = int32_t(k - p.step_ptr[r]);
        for (int64_t i = p.send_ptr[k]; i < p.send_ptr[k + 1]; ++i, ++m) {
          const int64_t d = p.send_dst[i], bytes = p.send_bytes[i];
          const int64_t flits = (bytes + spec.flit_bytes - 1) / spec.flit_bytes;
          if (flits >= (int64_t(1) << 31))
            fail(p, at(p, r, k) + ": a message of " + std::to_string(bytes) + " bytes is 2^31 flits or more");
          w->msg_dst[m] = jp.nodes[d];
          w->msg_flits[m] = int32_t(flits);
          w->msg_step[m] = int32_t(base[rep][j][d] + (p.send_match_step[i] - p.step_ptr[d]));
          w->msg_job[m] = j;
          w->msg_bytes[m] = bytes;
        }
      }
    }
  w->step_send[steps] = int32_t(m);
  return w;
}

void init_workload_state(const CompiledWorkload& w, HostState& h) {
  const Sizes& sz = h.sz;
  h.wl_node_step = w.node_step;
  h.wl_step_send = w.step_send;
  h.wl_step_need = w.step_need;
  h.wl_step_compute = w.step_compute;
  h.wl_msg_dst = w.msg_dst;
  h.wl_msg_flits = w.msg_flits;
  h.wl_msg_step = w.msg_step;
  h.wl_node_bg = w.node_bg;
  std::fill(h.wl_wait_until.begin(), h.wl_wait_until.end(), -1);
  std::fill(h.wl_first_inject.begin(), h.wl_first_inject.end(), -1);
  std::fill(h.wl_last_recv.begin(), h.wl_last_recv.end(), -1);
  std::fill(h.wl_done_at.begin(), h.wl_done_at.end(), -1);
  std::fill(h.wl_step_start.begin(), h.wl_step_start.end(), -1);
  std::fill(h.wl_step_done.begin(), h.wl_step_done.end(), -1);
  std::fill(h.wl_fg_end.begin(), h.wl_fg_end.end(), -1);
  std::fill(h.wl_q_msg.begin(), h.wl_q_msg.end(), -1);
  for (int32_t rep = 0; rep < sz.reps; ++rep) {
    int64_t running = 0;
    for (int32_t n = 0; n < sz.N; ++n) {
      const int64_t ni = int64_t(rep) * sz.N + n;
      const int32_t k0 = w.node_step[ni], k1 = w.node_step[ni + 1];
      h.wl_cur[ni] = k0;
      if (k0 < k1) {
        h.wl_send_cur[ni] = w.step_send[k0];
        h.wl_send_end[ni] = w.step_send[k0 + 1];
        h.wl_step_start[k0] = 0;
        running += !w.node_bg[ni];
      } else {
        h.wl_send_cur[ni] = h.wl_send_end[ni] = 0;
        if (w.node_job[ni] >= 0) h.wl_done_at[ni] = 0;  // an empty program
      }
    }
    h.wl_fg_left[rep] = running;
    if (running == 0) h.wl_fg_end[rep] = 0;
  }
}

WorkloadStats collect_workload(const CompiledWorkload& w, const HostState& h, int rep) {
  WorkloadStats s;
  const int32_t N = w.N;
  const size_t J = w.job_program[rep].size();
  s.job_messages.assign(J, 0), s.job_delivered.assign(J, 0), s.job_bytes.assign(J, 0);
  s.job_flits.assign(J, 0), s.job_packets.assign(J, 0), s.job_unfinished.assign(J, 0);
  s.job_first_inject.assign(J, -1), s.job_last_delivery.assign(J, -1), s.job_finish.assign(J, -1);
  const int64_t n0 = int64_t(rep) * N;
  s.node_first_inject.assign(h.wl_first_inject.begin() + n0, h.wl_first_inject.begin() + n0 + N);
  s.node_last_delivery.assign(h.wl_last_recv.begin() + n0, h.wl_last_recv.begin() + n0 + N);
  s.node_finish.assign(h.wl_done_at.begin() + n0, h.wl_done_at.begin() + n0 + N);
  s.node_job.assign(w.node_job.begin() + n0, w.node_job.begin() + n0 + N);
  s.node_rank.assign(w.node_rank.begin() + n0, w.node_rank.begin() + n0 + N);
  for (int32_t n = 0; n < N; ++n) {
    const int32_t j = s.node_job[n];
    if (j < 0) continue;
    if (s.node_first_inject[n] >= 0 && (s.job_first_inject[j] < 0 || s.node_first_inject[n] < s.job_first_inject[j]))
      s.job_first_inject[j] = s.node_first_inject[n];
    s.job_last_delivery[j] = std::max(s.job_last_delivery[j], s.node_last_delivery[n]);
    if (s.node_finish[n] < 0) s.job_unfinished[j] += 1;
    s.job_finish[j] = std::max(s.job_finish[j], s.node_finish[n]);
  }
  for (size_t j = 0; j < J; ++j)
    if (s.job_unfinished[j]) s.job_finish[j] = -1;
  const int32_t k0 = w.node_step[n0], k1 = w.node_step[n0 + N];
  const int32_t m0 = w.step_send[k0], m1 = w.step_send[k1];
  for (int32_t m = m0; m < m1; ++m) {
    const int32_t j = w.msg_job[m];
    const int64_t packets = (w.msg_flits[m] + w.packet_size - 1) / w.packet_size;
    s.job_messages[j] += 1;
    if (h.wl_msg_got[m] != packets) continue;  // only a background job's can be missing
    s.job_delivered[j] += 1;
    s.job_bytes[j] += w.msg_bytes[m];
    s.job_flits[j] += w.msg_flits[m];
    s.job_packets[j] += packets;
  }
  s.step_job.assign(w.step_job.begin() + k0, w.step_job.begin() + k1);
  s.step_rank.assign(w.step_rank.begin() + k0, w.step_rank.begin() + k1);
  s.step_index.assign(w.step_index.begin() + k0, w.step_index.begin() + k1);
  s.step_start.assign(h.wl_step_start.begin() + k0, h.wl_step_start.begin() + k1);
  s.step_done.assign(h.wl_step_done.begin() + k0, h.wl_step_done.begin() + k1);
  s.foreground_end = h.wl_fg_end[rep];
  return s;
}

std::string describe_waiting(const CompiledWorkload& w, const HostState& h, int rep, int limit) {
  std::ostringstream out;
  int shown = 0;
  for (int32_t n = 0; n < w.N && shown < limit; ++n) {
    const int64_t ni = int64_t(rep) * w.N + n;
    const int32_t j = w.node_job[ni];
    if (j < 0 || h.wl_done_at[ni] >= 0 || w.node_bg[ni]) continue;
    const int32_t k = h.wl_cur[ni];
    out << "  " << w.program_label[w.job_program[rep][j]] << " rank " << w.node_rank[ni] << " (node " << n
        << ") at step " << w.step_index[k] << ": " << h.wl_step_got[k] << " of " << w.step_need[k]
        << " messages arrived";
    if (h.wl_wait_until[ni] >= 0) out << ", computing until cycle " << h.wl_wait_until[ni];
    out << "\n";
    ++shown;
  }
  return out.str();
}

std::string check_workload(const CompiledWorkload& w, const HostState& h) {
  std::ostringstream err;
  for (size_t m = 0; m < w.msg_flits.size(); ++m) {
    const int64_t packets = (w.msg_flits[m] + w.packet_size - 1) / w.packet_size;
    if (h.wl_msg_got[m] > packets) {
      err << "message " << m << " delivered " << h.wl_msg_got[m] << " packets of " << packets << "\n";
      break;
    }
  }
  for (size_t k = 0; k < w.step_need.size(); ++k)
    if (h.wl_step_got[k] > w.step_need[k]) {
      err << "step " << k << " counted " << h.wl_step_got[k] << " messages of " << w.step_need[k] << "\n";
      break;
    }
  return err.str();
}

}  // namespace flitsim
