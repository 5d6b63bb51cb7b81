"""BookSim2's traffic and routing conventions as options (issue 12): uniform traffic that may
pick the source (traffic.self), bad-dragon, Valiant/UGAL intermediates drawn as a random node
(routing.valiant = "node") and the injection channel's extra cycle (router.injection_delay).
Each is checked against its definition; docs/traffic.md and docs/routing.md state them."""
import math

import numpy as np
import pytest

import flitsim
from conftest import small_dragonfly


def within_sigma(count, n, p, k=4.5):
    """count is a Binomial(n, p) draw, within k standard deviations."""
    return abs(count - n * p) <= k * math.sqrt(n * p * (1 - p))


def hyperx44(**sections):
    """4x4 HyperX with 4 terminals per router (BookSim2's flatfly k=4, n=2, c=4)."""
    cfg = {"topology": {"kind": "hyperx", "widths": [4, 4], "terminals": 4},
           "router": {"vcs": 4, "buffer": 8, "latency": 1}, "channels": {"latency": 1},
           "routing": {"algorithm": "valiant"}, "traffic": {"pattern": "uniform", "load": 0.05},
           "sim": {"warmup": 0, "measure": 6000, "seed": 2}}
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    return cfg


@pytest.mark.parametrize("self_", [False, True])
def test_uniform_self_sends_to_the_own_router_with_probability_p_over_N(self_):
    # Zero-hop packets are those whose destination hangs off the source router: p/N of them
    # when the source itself may be drawn (BookSim2), (p - 1)/(N - 1) when it may not.
    cfg = small_dragonfly(traffic={"load": 0.05, "self": self_}, sim={"warmup": 0, "measure": 6000})
    r = flitsim.run(cfg, backend="cpu")
    n, zero = int(r.hop_hist.sum()), int(r.hop_hist[0])
    p = 2 / 72 if self_ else 1 / 71
    assert n > 15000 and within_sigma(zero, n, p), (zero, n * p)


def test_bad_dragon_sends_each_group_to_random_nodes_of_the_next_group():
    cfg = small_dragonfly(traffic={"pattern": "bad-dragon", "load": 0.04}, sim={"warmup": 0, "measure": 6000})
    r = flitsim.run(cfg, backend="cpu")
    created = r.node_created_flits.reshape(9, 8).sum(axis=1)
    received = r.node_ejected_flits.reshape(9, 8).sum(axis=1)
    lost = np.roll(created, 1) - received  # group g + 1 receives what group g created
    assert lost.min() >= 0 and lost.max() <= 24, lost  # only packets still in flight
    # Not a fixed shift: node k + 8 does not receive exactly what node k created (group-shift
    # with m = 1 would), but about an eighth of its source group's flits.
    shifted = np.roll(r.node_created_flits, 8) - r.node_ejected_flits
    assert np.abs(shifted).max() > 30
    per_node = r.node_ejected_flits.reshape(9, 8) / (received[:, None] / 8)
    assert per_node.min() > 0.75 and per_node.max() < 1.25


@pytest.mark.parametrize("traffic,rule", [({"pattern": "bitcomp", "self": True}, "traffic.self"),
                                          ({"pattern": "bad-dragon"}, "traffic.pattern")])
def test_convention_options_refuse_what_they_do_not_fit(traffic, rule):
    cfg = hyperx44(traffic=traffic)
    with pytest.raises(Exception, match=rule):
        flitsim.run(cfg, backend="cpu")


def test_bad_values_name_the_key():
    with pytest.raises(Exception, match="traffic.self"):
        flitsim.run(small_dragonfly(traffic={"self": 1}), backend="cpu")
    with pytest.raises(Exception, match="router.injection_delay"):
        flitsim.run(small_dragonfly(router={"injection_delay": -1}), backend="cpu")
    with pytest.raises(Exception, match="routing.valiant"):
        flitsim.run(small_dragonfly(routing={"algorithm": "ugal-g", "valiant": "node"}), backend="cpu")
    with pytest.raises(Exception, match="routing.valiant"):
        flitsim.run(hyperx44(routing={"valiant": "any"}), backend="cpu")


def test_dragonfly_valiant_node_is_minimal_when_the_node_is_in_the_source_group():
    # The intermediate is a node drawn from all 72; in the source group (1 in 9) the packet
    # goes minimally. Destinations on the source router (1 in 71) never count as non-minimal.
    cfg = small_dragonfly(routing={"algorithm": "valiant", "valiant": "node"}, router={"vcs": 4},
                          traffic={"load": 0.03}, sim={"warmup": 0, "measure": 6000})
    r = flitsim.run(cfg, backend="cpu")
    n = r.packets_measured
    assert within_sigma(r.nonminimal_packets, n, (70 / 71) * (8 / 9)), (r.nonminimal_packets / n)
    assert r.hops_mean < flitsim.run(dict(cfg, routing={"algorithm": "valiant", "valiant": "any"}),
                                     backend="cpu").hops_mean


def test_table_valiant_node_draws_any_router_and_shortcuts_at_the_destination():
    # 16 routers: a node's router is the source's or the destination's with probability 2/16,
    # and then the route is minimal; destinations on the source router (3 in 63) are local.
    r = flitsim.run(hyperx44(routing={"valiant": "node"}), backend="cpu")
    n = r.packets_measured
    assert within_sigma(r.nonminimal_packets, n, (60 / 63) * (14 / 16)), r.nonminimal_packets / n
    # Routes that meet the destination router in phase 0 end there, so the mean hop count is
    # below that of two independent minimal phases, E[d(s, x) + d(x, t)] over x uniform.
    coords = [(i % 4, i // 4) for i in range(16)]
    d = np.array([[sum(a != b for a, b in zip(u, v)) for v in coords] for u in coords])
    two_phase = np.mean([d[s, x] + d[x, t] for s in range(16) for t in range(16) for x in range(16)])
    assert r.hops_mean < two_phase - 0.1
    # Today's choice (a router other than both ends) is always non-minimal.
    old = flitsim.run(hyperx44(), backend="cpu")
    assert old.nonminimal_packets == old.packets_measured - int(old.hop_hist[0])


@pytest.mark.parametrize("algorithm", ["ugal"])
@pytest.mark.parametrize("topology", ["dragonfly", "hyperx"])
def test_ugal_node_runs_and_conserves(algorithm, topology):
    routing = {"algorithm": algorithm, "valiant": "node"}
    cfg = (small_dragonfly(routing=routing, router={"vcs": 4, "buffer": 64},
                           traffic={"pattern": "bad-dragon", "load": 0.2}, sim={"drain_limit": 5000})
           if topology == "dragonfly" else hyperx44(routing=routing, traffic={"pattern": "bitcomp", "load": 0.2}))
    r = flitsim.run(cfg, backend="cpu")
    assert r.packets_measured == r.packets_tagged and r.nonminimal_packets > 0


@pytest.mark.parametrize("delay", [1, 3])
def test_injection_delay_adds_its_cycles_once_per_packet(delay):
    # At (near) zero load every packet's latency grows by exactly `delay` cycles; nothing else
    # changes (the same packets, the same routes).
    cfg = small_dragonfly(router={"latency": 1}, channels={"terminal": 2, "local": 3, "global": 3},
                          traffic={"load": 0.002, "packet_size": 2}, sim={"warmup": 0, "measure": 4000})
    base = flitsim.run(cfg, backend="cpu")
    cfg["router"]["injection_delay"] = delay
    r = flitsim.run(cfg, backend="cpu")
    assert r.packets_measured == base.packets_measured >= 100 and r.hops_sum == base.hops_sum
    assert r.latency_sum - base.latency_sum == delay * r.packets_measured
    assert r.network_latency_sum - base.network_latency_sum == delay * r.packets_measured


def test_booksim_preset_turns_the_injection_cycle_on_and_a_key_turns_it_off():
    cfg = small_dragonfly(router={"preset": "booksim", "vcs": 3}, traffic={"load": 0.002},
                          sim={"warmup": 0, "measure": 4000})
    on = flitsim.run(cfg, backend="cpu")
    cfg["router"]["injection_delay"] = 0
    off = flitsim.run(cfg, backend="cpu")
    assert on.packets_measured == off.packets_measured
    assert on.latency_sum - off.latency_sum == on.packets_measured
