"""Traffic patterns (issue 4): destination maps, permutations, errors, and the MIN bottleneck
of adversarial dragonfly traffic (TARGETS DF-R9 / FL-DF6)."""
import numpy as np
import pytest

import flitsim
from flitsim import _core
from conftest import small_dragonfly


def pow2_dragonfly(**sections):
    """A 64-node dragonfly (p=4, a=4, h=1, 4 of the 5 possible groups): N = 2^6."""
    return small_dragonfly(topology={"kind": "dragonfly", "p": 4, "a": 4, "h": 1, "groups": 4}, **sections)


def bits_reverse(k, b):
    return int(format(k, f"0{b}b")[::-1], 2)


# Reference destination maps (the spec in docs/traffic.md), rank -> rank.
REFERENCE = {
    "bitcomp": lambda k, n, b: n - 1 - k,
    "bitrev": lambda k, n, b: bits_reverse(k, b),
    "transpose": lambda k, n, b: ((k & ((1 << b // 2) - 1)) << b // 2) | (k >> b // 2),
    "shuffle": lambda k, n, b: ((k << 1) | (k >> (b - 1))) & (n - 1),
    "tornado": lambda k, n, b: (k + (n + 1) // 2 - 1) % n,
    "neighbor": lambda k, n, b: (k + 1) % n,
}


def received_matches_map(r, dest):
    """Each node's received flits equal what its sources created (warmup 0, so the only
    difference is packets still in flight at the end of the window)."""
    expected = np.zeros(r.nodes, dtype=np.int64)
    np.add.at(expected, dest, r.node_created_flits)
    diff = expected - r.node_ejected_flits
    return diff.min() >= 0 and diff.max() <= 6, diff


@pytest.mark.parametrize("pattern", sorted(REFERENCE))
def test_pattern_follows_its_definition(pattern):
    cfg = pow2_dragonfly(traffic={"pattern": pattern, "load": 0.04}, sim={"warmup": 0, "measure": 6000})
    r = flitsim.run(cfg, backend="cpu")
    n, b = r.nodes, 6
    dest = np.array([REFERENCE[pattern](k, n, b) for k in range(n)])
    assert sorted(dest) == list(range(n))  # the reference is a permutation
    ok, diff = received_matches_map(r, dest)
    assert ok, diff
    # A wrong map (the identity shifted by one) is told apart by the same check.
    if pattern != "neighbor":
        assert not received_matches_map(r, (dest + 1) % n)[0]


def test_shift_and_group_shift_follow_their_definition():
    cfg = small_dragonfly(traffic={"pattern": "shift", "shift": -5, "load": 0.04}, sim={"warmup": 0, "measure": 6000})
    r = flitsim.run(cfg, backend="cpu")
    assert received_matches_map(r, (np.arange(72) - 5) % 72)[0]
    cfg["traffic"].update(pattern="group-shift", shift=3)  # (k + m*a*p) mod N, a*p = 8
    r = flitsim.run(cfg, backend="cpu")
    assert received_matches_map(r, (np.arange(72) + 24) % 72)[0]


@pytest.mark.parametrize("traffic", [{"pattern": "randperm"}, {"pattern": "bitcomp", "placement": "random"},
                                     {"pattern": "shift", "shift": 8, "placement": "random"}])
def test_seeded_permutations_are_permutations(traffic):
    # Every node has exactly one source: it receives about one source's flits, never two.
    cfg = small_dragonfly(traffic={"load": 0.05, **traffic}, sim={"warmup": 0, "measure": 6000})
    r = flitsim.run(cfg, backend="cpu")
    per = r.node_ejected_flits
    assert per.min() > 0.6 * 0.05 * 6000 and per.max() < 1.4 * 0.05 * 6000
    # The same seed gives the same permutation; another seed another one.
    again = flitsim.run(cfg, backend="cpu")
    np.testing.assert_array_equal(per, again.node_ejected_flits)
    cfg["sim"]["seed"] = 2
    other = flitsim.run(cfg, backend="cpu")
    assert not np.array_equal(per, other.node_ejected_flits)


def test_hotspot_sends_the_given_fraction_to_the_hotspots():
    cfg = small_dragonfly(traffic={"pattern": "hotspot", "hotspots": [5, 40], "load": 0.01},
                          sim={"warmup": 0, "measure": 3000})
    r = flitsim.run(cfg, backend="cpu")
    got = r.node_ejected_flits
    assert got.sum() == got[5] + got[40] and got[5] > 0 and got[40] > 0
    cfg["traffic"]["hotspot_fraction"] = 0.5
    r = flitsim.run(cfg, backend="cpu")
    hot = (r.node_ejected_flits[5] + r.node_ejected_flits[40]) / r.node_ejected_flits.sum()
    assert 0.45 < hot < 0.56  # 0.5 plus the uniform part's 2/71


@pytest.mark.parametrize("pattern", ["bitrev", "transpose", "shuffle"])
def test_bit_permutations_need_a_power_of_two(pattern):
    with pytest.raises(ValueError, match=rf'traffic\.pattern: "{pattern}" needs a power-of-two number of nodes, got 72'):
        _core.simulate(small_dragonfly(traffic={"pattern": pattern}), "cpu")


@pytest.mark.parametrize("traffic,message", [
    ({"pattern": "transpose"}, r"traffic\.pattern: \"transpose\" needs .*even power of two.*got 32"),
    ({"pattern": "shift"}, r"traffic\.shift: is required"),
    ({"pattern": "shift", "shift": 64}, r"traffic\.shift: shifts every node onto itself"),
    ({"pattern": "group-shift", "shift": 2}, r"traffic\.shift: group-shift by 2 groups maps every group"),
    ({"pattern": "hotspot", "hotspots": [32]}, r"traffic\.hotspots: rank 32 is outside"),
    ({"pattern": "urb", "dims": [0]}, r"traffic\.pattern: \"urb\" needs a hyperx, not dragonfly"),
])
def test_pattern_errors(traffic, message):
    cfg = small_dragonfly(topology={"kind": "dragonfly", "p": 4, "a": 4, "h": 1, "groups": 2}, traffic=traffic)
    cfg["traffic"].update(traffic)
    if cfg["traffic"].get("shift") == 64:
        cfg["topology"]["groups"] = 4
    with pytest.raises(ValueError, match=message):
        _core.simulate(cfg, "cpu")


def test_group_shift_needs_a_dragonfly():
    cfg = small_dragonfly(topology={"kind": "mlfm", "h": 3}, traffic={"pattern": "group-shift", "shift": 1})
    cfg["topology"] = {"kind": "mlfm", "h": 3}
    with pytest.raises(ValueError, match=r"traffic\.pattern: \"group-shift\" needs a dragonfly"):
        _core.simulate(cfg, "cpu")


def saturated_rate(traffic, **sections):
    cfg = small_dragonfly(router={"vcs": 2, "buffer": 16}, traffic={"load": 1.0, **traffic},
                          sim={"warmup": 1000, "measure": 2000, "drain_limit": 100}, **sections)
    r = flitsim.run(cfg, backend="cpu")
    return r, r.node_ejected_flits / r.measure  # under a permutation: the rate of its source


def test_dragonfly_min_bitcomp_and_group_shift_saturate_at_one_over_ap():
    # (p=2, a=4, h=2), palmtree: under bit complement group g sends all a*p = 8 nodes' traffic
    # to group 8-g over its single global link, so each node gets 1/(a*p) = 0.125 (DF-R9,
    # FL-DF6). The middle group 4 maps onto itself and is excluded.
    r, rate = saturated_rate({"pattern": "bitcomp"})
    group = np.arange(72) // 8
    inter = rate[group != 4]
    # The fluid bound holds up to the flits already past the bottleneck when the window opens
    # (a few per node): allow 0.002 flits/node/cycle over the 2,000-cycle window.
    assert abs(inter.mean() - 0.125) < 0.006 and inter.mean() <= 0.125 + 0.002
    # Shift by m = h+1 = 3 groups: every group is a bottleneck.
    r, rate = saturated_rate({"pattern": "group-shift", "shift": 3})
    assert abs(rate.mean() - 0.125) < 0.006 and rate.mean() <= 0.125 + 0.002
    # Random placement spreads a group's destinations over many groups: far above 1/(a*p).
    r, rate = saturated_rate({"pattern": "bitcomp", "placement": "random"})
    assert r.accepted > 0.3
