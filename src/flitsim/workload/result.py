"""Per-job results of a closed-loop workload run (``Result.workload``).

The engine reports integers (cycles, counts); times in seconds and rates are derived here
from ``workload.flit_bytes`` and ``workload.link_gbps``: one cycle is the time one flit of
``flit_bytes`` bytes takes on a link of ``link_gbps`` Gbit/s.

Definitions (docs/workloads.md):

- **completion** of a job: from the cycle its first packet's head flit was injected to the
  cycle its last message completely arrived, inclusive (``last - first + 1`` cycles): the
  diameter-two paper's completion time of an exchange.
- **execution time** ``T_j``: from the job's ``start`` cycle (0 unless configured) to the end
  of the cycle in which its last rank finished its program, including compute delays.
- **effective throughput**: payload bytes / (completion × ranks × flit_bytes), the fraction of
  the injection bandwidth each rank sustained (1.0 = one flit per cycle per rank); NaN for
  background jobs, which are cut off when the foreground jobs finish.
- **communication rate** (iso-cost paper): Σ_j V_j / T_j over the foreground jobs, bytes/s,
  with V_j the job's payload bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["WorkloadResult", "JOB_ARRAYS", "NODE_ARRAYS"]

# Integer arrays with one entry per job, and per node, as the engine reports them.
JOB_ARRAYS = ("job_messages", "job_delivered", "job_bytes", "job_flits", "job_packets",
              "job_first_inject", "job_last_delivery", "job_finish", "job_unfinished")
NODE_ARRAYS = ("node_first_inject", "node_last_delivery", "node_finish", "node_job",
               "node_rank")


@dataclass
class WorkloadResult:
    """Jobs of one replica. Arrays are per job (``job_*``, J entries) or per node
    (``node_*``, N entries, -1 where a node runs no rank or an event did not happen)."""

    job_names: list[str]
    job_motifs: list[str]
    job_ranks: np.ndarray          # int64[J]
    job_background: np.ndarray     # uint8[J]
    job_messages: np.ndarray       # int64[J] messages of the job's programs
    job_delivered: np.ndarray      # int64[J] messages completely delivered (exactly once)
    job_bytes: np.ndarray          # int64[J] payload bytes of the delivered messages (V_j)
    job_flits: np.ndarray          # int64[J] their flits (messages rounded up to whole flits)
    job_packets: np.ndarray        # int64[J] their packets
    job_first_inject: np.ndarray   # int64[J] cycle of the first head flit injected (-1: none)
    job_last_delivery: np.ndarray  # int64[J] cycle the last message completed (-1: none)
    job_finish: np.ndarray         # int64[J] cycle the last rank finished (-1: not finished)
    job_unfinished: np.ndarray     # int64[J] ranks that did not finish (background jobs)
    job_start: np.ndarray          # int64[J] cycle the job's programs begin (workload start)
    node_first_inject: np.ndarray  # int64[N]
    node_last_delivery: np.ndarray  # int64[N]
    node_finish: np.ndarray        # int64[N]
    node_job: np.ndarray           # int32[N] job of the rank on each node (-1: idle)
    node_rank: np.ndarray          # int32[N]
    foreground_end: int            # cycle the last foreground rank finished
    flit_bytes: int
    link_gbps: float
    packet_size: int
    steps: dict[str, np.ndarray] = field(default_factory=dict)  # per-step trace (not saved)

    @classmethod
    def from_raw(cls, raw: dict, wcfg: dict) -> "WorkloadResult":
        jobs = wcfg["jobs"]
        nodes_of = raw["node_job"]
        ranks = np.array([int((nodes_of == j).sum()) for j in range(len(jobs))], np.int64)
        return cls(
            job_names=[j.get("name", j["motif"]) for j in jobs],
            job_motifs=[j["motif"] for j in jobs], job_ranks=ranks,
            job_background=np.array([j["background"] for j in jobs], np.uint8),
            job_start=np.array([j.get("start", 0) for j in jobs], np.int64),
            **{k: np.asarray(raw[k]) for k in JOB_ARRAYS + NODE_ARRAYS},
            foreground_end=int(raw["foreground_end"]), flit_bytes=int(wcfg["flit_bytes"]),
            link_gbps=float(wcfg["link_gbps"]), packet_size=int(wcfg["packet_size"]),
            steps={k[5:]: np.asarray(raw[k]) for k in
                   ("step_job", "step_rank", "step_index", "step_start", "step_done")})

    # Derived ------------------------------------------------------------------------------
    @property
    def cycle_seconds(self) -> float:
        """Seconds per cycle: one flit over one link."""
        return self.flit_bytes * 8 / (self.link_gbps * 1e9)

    @property
    def link_bytes_per_second(self) -> float:
        return self.link_gbps * 1e9 / 8

    @property
    def completion_cycles(self) -> np.ndarray:
        """First injection to last delivery per job, inclusive (NaN for a job that sent
        nothing)."""
        ok = (self.job_first_inject >= 0) & (self.job_last_delivery >= 0)
        return np.where(ok, self.job_last_delivery - self.job_first_inject + 1, np.nan)

    @property
    def execution_cycles(self) -> np.ndarray:
        """The job's start to the end of its last program step (NaN when unfinished)."""
        return np.where(self.job_finish >= 0, self.job_finish + 1.0 - self.job_start, np.nan)

    @property
    def effective_throughput(self) -> np.ndarray:
        """Payload bytes per rank per cycle of completion, as a fraction of the injection
        bandwidth (one flit per cycle)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            eff = self.job_bytes / (self.completion_cycles * self.job_ranks * self.flit_bytes)
        return np.where(self.job_background == 0, eff, np.nan)  # background: no completion

    @property
    def comm_rate(self) -> float:
        """Σ_j V_j / T_j over the foreground jobs, bytes per second (iso-cost paper)."""
        fg = self.job_background == 0
        t = self.execution_cycles[fg] * self.cycle_seconds
        return float(np.nansum(self.job_bytes[fg] / t))

    def jobs_table(self) -> list[dict[str, Any]]:
        """One dict per job with the counts and the derived times and rates."""
        comp, exe, eff = self.completion_cycles, self.execution_cycles, self.effective_throughput
        out = []
        for j in range(len(self.job_names)):
            out.append(dict(
                job=j, name=self.job_names[j], motif=self.job_motifs[j],
                ranks=int(self.job_ranks[j]), background=bool(self.job_background[j]),
                messages=int(self.job_messages[j]), delivered=int(self.job_delivered[j]),
                bytes=int(self.job_bytes[j]), completion_cycles=float(comp[j]),
                completion_seconds=float(comp[j] * self.cycle_seconds),
                execution_cycles=float(exe[j]),
                execution_seconds=float(exe[j] * self.cycle_seconds),
                effective_throughput=float(eff[j]),
                comm_rate=float(self.job_bytes[j] / (exe[j] * self.cycle_seconds))
                if np.isfinite(exe[j]) else float("nan")))
        return out
