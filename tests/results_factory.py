"""Hand-built Results, so the front-end tests (config, CLI, HDF5) need no compiled engine."""
from __future__ import annotations

import numpy as np

from flitsim.results import Result


def build_result(load: float = 0.1, seed: int = 1, nodes: int = 8, bins: int = 64,
                 **overrides) -> Result:
    """A small, internally consistent Result with distinct values in every field."""
    rng = np.random.default_rng(seed)
    routers = 4
    ports = routers * 3  # two terminal ports and one link port per router (a ring)
    lat = np.zeros(bins, np.int64)
    lat[5:20] = rng.integers(1, 50, 15)
    net = np.zeros(bins, np.int64)
    net[3:15] = rng.integers(1, 50, 12)
    hops = np.zeros(32, np.int64)
    hops[:4] = rng.integers(1, 50, 4)
    peer = np.full(ports, -1, np.int32)
    link = np.arange(routers) * 3 + 2
    peer[link] = np.roll(link, 1)
    fields = dict(
        backend="cpu", nodes=nodes, routers=routers, load=load, seed=seed, cycles=3456,
        wall_seconds=0.25, warmup=1000, measure=2000, saturated=False, drained=True,
        created_flits=int(load * nodes * 2000), ejected_flits=int(load * nodes * 2000) - 3,
        packets_measured=int(lat.sum()), packets_tagged=int(lat.sum()) + 1,
        latency_sum=int((lat * np.arange(bins)).sum()),
        network_latency_sum=int((net * np.arange(bins)).sum()),
        hops_sum=int((hops * np.arange(32)).sum()), slot_stalls=0, nonminimal_packets=3, extra_hops=5,
        latency_hist=lat, network_latency_hist=net, hop_hist=hops,
        channel_flits=rng.integers(0, 1000, ports).astype(np.int64),
        node_created_flits=rng.integers(0, 500, nodes).astype(np.int64),
        node_ejected_flits=rng.integers(0, 500, nodes).astype(np.int64),
        batch_ejected=rng.integers(0, 500, 4).astype(np.int64),
        batch_created=rng.integers(0, 500, 4).astype(np.int64),
        batch_latency=rng.integers(0, 5000, 4).astype(np.int64),
        batch_packets=rng.integers(1, 50, 4).astype(np.int64),
        port_router=np.repeat(np.arange(routers, dtype=np.int32), 3),
        peer_port=peer,
        port_class=np.where(peer >= 0, 1, 0).astype(np.int8),
        class_names=["terminal", "local"],
        config={"traffic": {"load": load}, "sim": {"seed": seed}},
        # request-reply statistics (traffic.reply_size): those of a run without replies
        request_latency_sum=0, reply_latency_sum=0, round_trip_sum=0, requests_measured=0,
        replies_measured=0, reply_ejected_flits=0, reply_created_flits=0, request_latency_hist=np.zeros(0, np.int64),
        reply_latency_hist=np.zeros(0, np.int64), round_trip_hist=np.zeros(0, np.int64),
        # traffic classes: those of a run with one class (its totals)
        class_sums=np.zeros(0, np.int64), class_latency_hist=np.zeros(0, np.int64),
        class_network_latency_hist=np.zeros(0, np.int64),
    )
    fields.update(overrides)
    return Result(**fields)
