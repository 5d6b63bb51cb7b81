"""Small MPI traces written with the OTF2 library, for tests and examples: a ring, an
all-to-all and a 3-D stencil with compute (docs/workloads.md, "MPI traces").

Each generator writes what Score-P records for the program: per rank a location in
MPI_COMM_WORLD, every MPI call as an Enter/Leave of its MPI_* region around its MPI event
(MpiIsend, MpiIrecvRequest/MpiIrecv, MpiSend, MpiRecv, MpiCollectiveBegin/End), and the
time between calls as the compute the replay keeps, scales or skips. Times are in
nanoseconds (timer resolution 10^9 ticks per second); every MPI call takes `call_ns`.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .trace_otf2 import require_otf2

# One rank's operations, in program order:
#   ("compute", ns)                         time outside MPI
#   ("send", dst, tag, bytes)               MPI_Send
#   ("isend", dst, tag, bytes)              MPI_Isend (completed by the next "waitall")
#   ("recv", src, tag, bytes)               MPI_Recv
#   ("irecv", src, tag, bytes)              MPI_Irecv (completed by the next "waitall")
#   ("waitall",)                            MPI_Waitall of the outstanding requests
#   ("coll", op_name, root, sent, received) a collective (op: "ALLREDUCE", ...)
# Each may end with the name of a communicator of `comms` (default: MPI_COMM_WORLD); peer
# ranks and roots are ranks in that communicator, as in MPI.
Op = tuple


def write_trace(path: str | os.PathLike, ops: Sequence[Sequence[Op]], call_ns: int = 100,
                comms: dict[str, Sequence[int]] | None = None, mpi_regions: bool = True) -> str:
    """Write the per-rank operation lists `ops` as an OTF2 archive in the folder `path`;
    returns the anchor file (PATH/traces.otf2). comms: more communicators, name -> their
    world ranks in order ("MPI_COMM_SELF" -> [] for each rank's own). mpi_regions=False
    leaves out the Enter/Leave of the MPI calls (a trace of MPI events only)."""
    otf2 = require_otf2()
    from otf2.enums import CollectiveOp, GroupType, Paradigm, RegionRole
    path = os.fspath(path)
    ranks = len(ops)
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("machine")
        locs = []
        for r in range(ranks):
            group = defs.location_group(f"MPI Rank {r}", system_tree_parent=root)
            locs.append(defs.location(f"Master thread {r}", group=group))
        world_locs = defs.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS,
                                paradigm=Paradigm.MPI, members=locs)
        world_group = defs.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP,
                                 paradigm=Paradigm.MPI, members=list(range(ranks)))
        del world_locs  # referenced by world_group's ranks (Score-P writes both)
        world = defs.comm("MPI_COMM_WORLD", group=world_group)
        comm_of = {"MPI_COMM_WORLD": world}
        for name, members in (comms or {}).items():
            if name == "MPI_COMM_SELF":
                g = defs.group("MPI_COMM_SELF group", group_type=GroupType.COMM_SELF,
                               paradigm=Paradigm.MPI, members=[])
            else:
                g = defs.group(f"{name} group", group_type=GroupType.COMM_GROUP,
                               paradigm=Paradigm.MPI, members=list(members))
            comm_of[name] = defs.comm(name, group=g, parent=world)
        regions: dict[str, Any] = {}

        def region(name: str, role=RegionRole.POINT2POINT):
            if name not in regions:
                regions[name] = defs.region(name, region_role=role, paradigm=Paradigm.MPI)
            return regions[name]

        main = defs.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        for r, rank_ops in enumerate(ops):
            w = trace.event_writer_from_location(locs[r])
            t = 0
            w.enter(t, main)
            requests: list[tuple[str, int, Any]] = []   # outstanding (kind, request id, irecv args)
            next_req = 0
            for op in rank_ops:
                kind = op[0]
                comm = world
                if kind != "compute" and isinstance(op[-1], str) and len(op) > {"coll": 5}.get(kind, 4):
                    comm, op = comm_of[op[-1]], op[:-1]
                if kind == "compute":
                    t += int(op[1])
                    continue
                name = {"send": "MPI_Send", "isend": "MPI_Isend", "recv": "MPI_Recv",
                        "irecv": "MPI_Irecv", "waitall": "MPI_Waitall"}.get(kind)
                if kind == "coll":
                    name = "MPI_" + op[1].capitalize()
                reg = region(name, RegionRole.COLL_ONE2ALL if kind == "coll" else RegionRole.POINT2POINT)
                if mpi_regions:
                    w.enter(t, reg)
                if kind == "send":
                    w.mpi_send(t, op[1], comm, op[2], op[3])
                elif kind == "isend":
                    w.mpi_isend(t, op[1], comm, op[2], op[3], next_req)
                    requests.append(("isend", next_req, None))
                    next_req += 1
                elif kind == "irecv":
                    w.mpi_irecv_request(t, next_req)
                    requests.append(("irecv", next_req, (op[1], comm, op[2], op[3])))
                    next_req += 1
                elif kind == "recv":
                    t += call_ns
                    w.mpi_recv(t, op[1], comm, op[2], op[3])
                elif kind == "waitall":
                    t += call_ns
                    for rk, rid, args in requests:
                        if rk == "isend":
                            w.mpi_isend_complete(t, rid)
                        else:
                            w.mpi_irecv(t, *args, rid)
                    requests = []
                elif kind == "coll":
                    w.mpi_collective_begin(t)
                    t += call_ns
                    w.mpi_collective_end(t, getattr(CollectiveOp, op[1]), comm, op[2], op[3], op[4])
                t += call_ns if kind in ("send", "isend", "irecv") else 0
                if mpi_regions:
                    w.leave(t, reg)
            w.leave(t, main)
    return os.path.join(path, "traces.otf2")


def ring_ops(ranks: int, nbytes: int, iterations: int = 1, compute_ns: int = 0) -> list[list[Op]]:
    """Every rank sends `nbytes` to r + 1 and receives from r - 1 (Isend, Irecv, Waitall),
    `iterations` times, with `compute_ns` of compute before each exchange."""
    out = []
    for r in range(ranks):
        ops: list[Op] = []
        for it in range(iterations):
            if compute_ns:
                ops.append(("compute", compute_ns))
            ops += [("irecv", (r - 1) % ranks, it, nbytes), ("isend", (r + 1) % ranks, it, nbytes),
                    ("waitall",)]
        out.append(ops)
    return out


def alltoall_ops(ranks: int, nbytes: int, iterations: int = 1) -> list[list[Op]]:
    """MPI_Alltoall of `nbytes` per pair (the collective records N x nbytes sent and
    received per rank, as Score-P does)."""
    return [[("coll", "ALLTOALL", 0, ranks * nbytes, ranks * nbytes)] * iterations
            for _ in range(ranks)]


def stencil_ops(dims: Sequence[int], nbytes: int, iterations: int, compute_ns: int,
                allreduce_bytes: int = 8) -> list[list[Op]]:
    """A 3-D periodic 6-point halo exchange (flitsim's nn3d neighbours, rank = x + X(y + Yz))
    with blocking sends and receives tagged by direction, `compute_ns` of compute before each
    exchange and an MPI_Allreduce of `allreduce_bytes` after it."""
    X, Y, Z = dims
    ranks = X * Y * Z
    out = []
    for r in range(ranks):
        x, y, z = r % X, (r // X) % Y, r // (X * Y)
        nbrs = []
        for axis, (size, c) in enumerate(((X, x), (Y, y), (Z, z))):
            for sign in (1, -1):
                cc = [x, y, z]
                cc[axis] = (c + sign) % size
                nbrs.append((cc[0] + X * (cc[1] + Y * cc[2]), 2 * axis + (sign < 0)))
        ops: list[Op] = []
        for _ in range(iterations):
            ops.append(("compute", compute_ns))
            # Non-blocking receives first (tags name the direction the message travels), then
            # the sends, then one wait: the usual halo-exchange code.
            for nb, d in nbrs:
                ops.append(("irecv", nb, d ^ 1, nbytes))
            for nb, d in nbrs:
                ops.append(("isend", nb, d, nbytes))
            ops.append(("waitall",))
            ops.append(("coll", "ALLREDUCE", 0, allreduce_bytes, allreduce_bytes))
        out.append(ops)
    return out


def write_example(path: str | os.PathLike) -> str:
    """The trace shipped in configs/traces/stencil-8/: 8 ranks on a 2 x 2 x 2 grid, 3
    iterations of 20 us compute, a 4 KiB halo exchange with the 6 neighbours and an 8-byte
    MPI_Allreduce (regenerate: python -m flitsim.workload.trace_gen configs/traces/stencil-8)."""
    return write_trace(path, stencil_ops((2, 2, 2), 4096, 3, 20_000))


if __name__ == "__main__":
    import sys
    print(write_example(sys.argv[1]))
