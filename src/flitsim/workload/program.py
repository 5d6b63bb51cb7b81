"""Per-rank message programs: the Program IR (steps of sends, receives and compute), its JSON
form and the static checks the engine runs on it (docs/workloads.md)."""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

_I64 = np.int64


class WorkloadError(ValueError):
    """An invalid workload; the message names the key (workload.jobs[i].key) or rank/step."""


# --- programs -------------------------------------------------------------------------------

class Program:
    """Per-rank message programs of one job (ranks 0..ranks-1).

    ``steps[r]`` is rank r's list of steps ``(dst, nbytes, src, compute)``: int64 arrays of
    destination ranks and message sizes (bytes), an int64 array of the source ranks of the
    messages the step waits for, and the compute delay (cycles) after they arrived.
    """

    def __init__(self, ranks: int, label: str = "program"):
        if ranks < 1:
            raise WorkloadError(f"{label}: needs at least 1 rank, got {ranks}")
        self.ranks = int(ranks)
        self.label = label
        self.steps: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [
            [] for _ in range(self.ranks)]

    def step(self, rank: int, dst: Iterable[int] = (), nbytes: int | Iterable[int] = 0,
             src: Iterable[int] = (), compute: int = 0) -> None:
        """Append a step to ``rank``: send to each of ``dst`` (``nbytes`` each, or one size
        per destination), wait for one message from each of ``src``, compute ``compute``."""
        d = np.array(dst if isinstance(dst, np.ndarray) else list(dst), dtype=_I64)
        if isinstance(nbytes, (int, np.integer)):
            b = np.full(d.size, nbytes, dtype=_I64)
        else:
            b = np.array(nbytes if isinstance(nbytes, np.ndarray) else list(nbytes), dtype=_I64)
            if b.shape != d.shape:
                raise WorkloadError(f"{self.label}: rank {rank}: {b.size} sizes for {d.size} "
                                    f"destinations")
        s = np.array(src if isinstance(src, np.ndarray) else list(src), dtype=_I64)
        self.steps[rank].append((d, b, s, int(compute)))

    def append(self, other: "Program", members: Sequence[int] | None = None) -> "Program":
        """Append ``other``'s steps after each rank's current steps. With ``members``, other
        runs on a sub-communicator: its rank i is this program's rank members[i]."""
        if members is None:
            if other.ranks != self.ranks:
                raise WorkloadError(f"{self.label}: cannot append a {other.ranks}-rank program "
                                    f"to {self.ranks} ranks")
            for r in range(self.ranks):
                self.steps[r].extend(other.steps[r])
            return self
        m = np.asarray(members, dtype=_I64)
        for i, r in enumerate(m):
            self.steps[int(r)].extend((m[d], b, m[s], c) for d, b, s, c in other.steps[i])
        return self

    def repeat(self, times: int) -> "Program":
        """This program run ``times`` times in a row (a new Program)."""
        out = Program(self.ranks, self.label)
        for r in range(self.ranks):
            out.steps[r] = list(self.steps[r]) * times
        return out

    # Sizes -------------------------------------------------------------------------------
    @property
    def num_steps(self) -> int:
        return sum(len(s) for s in self.steps)

    @property
    def messages(self) -> int:
        return sum(len(st[0]) for s in self.steps for st in s)

    @property
    def bytes(self) -> int:
        return int(sum(int(st[1].sum()) for s in self.steps for st in s))

    # Exchange formats ----------------------------------------------------------------------
    def to_arrays(self) -> dict[str, Any]:
        """The CSR arrays host/workload/workload.hpp reads (JobProgram)."""
        flat = [st for s in self.steps for st in s]
        step_ptr = np.zeros(self.ranks + 1, _I64)
        step_ptr[1:] = np.cumsum([len(s) for s in self.steps])
        send_ptr = np.zeros(len(flat) + 1, _I64)
        recv_ptr = np.zeros(len(flat) + 1, _I64)
        if flat:
            send_ptr[1:] = np.cumsum([len(st[0]) for st in flat])
            recv_ptr[1:] = np.cumsum([len(st[2]) for st in flat])
        cat = (lambda xs: np.concatenate(xs).astype(_I64) if xs else np.zeros(0, _I64))
        return dict(
            label=self.label, ranks=self.ranks, step_ptr=step_ptr, send_ptr=send_ptr,
            send_dst=cat([st[0] for st in flat]), send_bytes=cat([st[1] for st in flat]),
            recv_ptr=recv_ptr, recv_src=cat([st[2] for st in flat]),
            compute=np.asarray([st[3] for st in flat], dtype=_I64))

    def to_json(self) -> dict[str, Any]:
        """The program as the JSON object of docs/workloads.md."""
        def step_obj(st):
            o: dict[str, Any] = {}
            if len(st[0]):
                o["send"] = [[int(d), int(b)] for d, b in zip(st[0], st[1])]
            if len(st[2]):
                o["recv"] = [int(x) for x in st[2]]
            if st[3]:
                o["compute"] = int(st[3])
            return o
        return {"ranks": self.ranks, "programs": [[step_obj(st) for st in s] for s in self.steps]}


# Bounds of a program file's numbers (as workload.jobs' bytes and compute): their sums stay in
# int64, and a number past 2^63 is refused by name instead of overflowing the int64 arrays.
_MAX_MESSAGE_BYTES = 1 << 40
_MAX_COMPUTE = 1 << 44
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _brief(v: Any, limit: int = 80) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + "..."


def program_from_json(obj: Mapping[str, Any], label: str = "program") -> Program:
    """A Program from the JSON object of docs/workloads.md; errors name the rank and step."""
    if not isinstance(obj, Mapping) or "programs" not in obj:
        raise WorkloadError(f'{label}: a program file is an object with "programs" (a list '
                            f'with one list of steps per rank)')
    progs = obj["programs"]
    if not isinstance(progs, list) or not progs:
        raise WorkloadError(f'{label}: "programs" must be a non-empty list (one per rank)')
    ranks = obj.get("ranks", len(progs))
    if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks != len(progs):
        raise WorkloadError(f'{label}: "ranks" is {ranks!r} but "programs" lists {len(progs)} ranks')
    p = Program(ranks, label)
    for r, steps in enumerate(progs):
        if not isinstance(steps, list):
            raise WorkloadError(f"{label}: rank {r}: must be a list of steps")
        for i, st in enumerate(steps):
            where = f"{label}: rank {r} step {i}"
            if not isinstance(st, Mapping):
                raise WorkloadError(f"{where}: a step is an object with send, recv, compute")
            unknown = set(st) - {"send", "recv", "compute"}
            if unknown:
                raise WorkloadError(f'{where}: unknown key "{sorted(unknown)[0]}" '
                                    f'(known: send, recv, compute)')
            dst, nb = [], []
            sends = st.get("send", [])
            if not isinstance(sends, list):
                raise WorkloadError(f"{where}: send is a list of [destination rank, bytes], "
                                    f"got {_brief(sends)}")
            for s in sends:
                if (not isinstance(s, (list, tuple)) or len(s) != 2
                        or not all(isinstance(x, int) and not isinstance(x, bool) for x in s)):
                    raise WorkloadError(f"{where}: a send is [destination rank, bytes], got {_brief(s)}")
                if not _INT64_MIN <= s[0] <= _INT64_MAX:  # in int64: the engine's check names the range
                    raise WorkloadError(f"{where}: destination rank must be in [0, {ranks - 1}], "
                                        f"got {_brief(s[0])}")
                if not 0 < s[1] <= _MAX_MESSAGE_BYTES:
                    raise WorkloadError(f"{where}: message size must be > 0 bytes and at most 2^40, "
                                        f"got {_brief(s[1])}")
                dst.append(s[0])
                nb.append(s[1])
            src = st.get("recv", [])
            if not isinstance(src, list) or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in src):
                raise WorkloadError(f"{where}: recv is a list of source ranks, got {_brief(src)}")
            bad = [x for x in src if not _INT64_MIN <= x <= _INT64_MAX]
            if bad:
                raise WorkloadError(f"{where}: source rank must be in [0, {ranks - 1}], "
                                    f"got {_brief(bad[0])}")
            c = st.get("compute", 0)
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= _MAX_COMPUTE:
                raise WorkloadError(f"{where}: compute must be an integer in [0, 2^44] (cycles), "
                                    f"got {_brief(c)}")
            p.step(r, dst, nb, src, c)
    return p


def load_program(path: str | os.PathLike, label: str | None = None) -> Program:
    """Read a JSON program file (docs/workloads.md)."""
    label = label or str(path)
    from ..limits import MAX_PROGRAM_BYTES, read_input_file
    try:
        obj = json.loads(read_input_file(path, "the program file", MAX_PROGRAM_BYTES).decode("utf-8"))
    except UnicodeDecodeError as e:
        raise WorkloadError(f"{label}: not UTF-8 ({e.reason} at byte {e.start})") from None
    except RecursionError:
        raise WorkloadError(f"{label}: malformed JSON: nested too deeply") from None
    except OSError as e:
        raise WorkloadError(f"{label}: cannot read program file: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise WorkloadError(f"{label}: malformed JSON: {e}") from None
    return program_from_json(obj, label)


def match(program: Program) -> np.ndarray:
    """The engine's static check of ``program`` (ValueError naming rank and step on
    unmatched messages or a deadlock); returns each send's receiving step (CSR index)."""
    from .. import _core
    return np.asarray(_core.match_program(program.to_arrays()))


def program_rounds(program: Program) -> int:
    """Communication rounds of the program in the one-port round model of the collective
    literature: a rank sends at most one message per round (in program order) and receives
    at most one per round, and a message sent at a rank's step k goes out in a later round
    than every message the rank received in its steps before k. E.g. binomial trees and
    dissemination: ceil(log2 N); an all-to-all: N - 1."""
    a = program.to_arrays()
    matched = match(program)
    S = len(a["compute"])
    by_recv: list[list[int]] = [[] for _ in range(S)]
    for i, k in enumerate(matched):
        by_recv[int(k)].append(i)
    depth = np.zeros(len(matched), _I64)
    sent = np.zeros(len(matched), bool)
    released = np.zeros(S, bool)
    cur, end = a["step_ptr"][:-1].copy(), a["step_ptr"][1:]
    level = np.zeros(program.ranks, _I64)     # latest round received
    last = np.zeros(program.ranks, _I64)      # latest round sent
    got = np.zeros(program.ranks, _I64)       # latest round a message was received in
    progress = True
    while progress:
        progress = False
        for r in range(program.ranks):
            while cur[r] < end[r]:
                k = cur[r]
                if not released[k]:
                    lo, hi = a["send_ptr"][k], a["send_ptr"][k + 1]
                    first = max(level[r], last[r]) + 1
                    depth[lo:hi] = first + np.arange(hi - lo)
                    sent[lo:hi] = True
                    last[r] = max(last[r], first + hi - lo - 1)
                    released[k] = progress = True
                if not all(sent[i] for i in by_recv[k]):
                    break
                for d in sorted(depth[i] for i in by_recv[k]):
                    got[r] = max(d, got[r] + 1)
                    level[r] = max(level[r], got[r])
                cur[r] += 1
                progress = True
    return int(max(depth.max(), got.max())) if depth.size else 0
