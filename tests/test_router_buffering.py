"""Router buffering (issue 12): router.architecture = "cioq" (and "ioq" where the two share a
test) with router.speedup and router.output_buffer (cuda/phases/output_queue.cuh), buffers in
bytes, and the "hyperx-paper" preset, each against an exact behaviour; every run also passes
the engine's end-of-run invariants (flit and credit conservation counting output queues and
owed credits, output-queue occupancy <= router.output_buffer, no overflow), which fail the run
otherwise."""
import copy
import importlib
import json
import os
import pathlib

import pytest

import flitsim
from flitsim import _core
from flitsim.config import ConfigError, normalize
from conftest import small_dragonfly, run_engine_script
from corpus import CASES

CIOQ = {"architecture": "cioq"}


def merge_program(tmp_path, M):
    """Ranks 0 and 1 (router 0) each send M flits to rank 2 (router 1) over the one link;
    rank 0 then sends M flits to rank 1 (router 0's other ejection port)."""
    prog = {"ranks": 4, "programs": [
        [{"send": [[2, 16 * M]]}, {"send": [[1, 16 * M]]}],
        [{"send": [[2, 16 * M]]}, {"recv": [0]}],
        [{"recv": [0, 1]}],
        []]}
    path = tmp_path / "merge.json"
    path.write_text(json.dumps(prog))
    return str(path)


def merge_times(program, router):
    """(cycle rank 1 has rank 0's second message, cycle rank 2 has both first messages)."""
    cfg = {"topology": {"kind": "hyperx", "widths": [2], "terminals": 2},
           "router": {"vcs": 2, "buffer": 16, "latency": 1, **router},
           "routing": {"algorithm": "dor"},
           "workload": {"packet_size": 4, "flit_bytes": 16, "jobs": [{"motif": "program", "file": program}]}}
    r = flitsim.run(cfg, backend="cpu", threads=1)
    links = r.port_class == r.class_names.index("dim0")
    assert r.channel_flits[links].tolist() == [128, 0]  # router 0's link carried both messages
    return int(r.workload.node_last_delivery[1]), int(r.workload.node_last_delivery[2])


def test_speedup_two_fills_an_output_queue_at_two_flits_per_cycle_while_the_link_drains_one(tmp_path):
    # Router 0's link output is fed by two inputs (ranks 0 and 1, 64 flits each). With speedup
    # 1 the switch moves one flit per cycle into its queue: each input advances at 1/2. With
    # speedup 2 both inputs move (2 flits/cycle in) while the link drains 1: the queue gains
    # 2 − 1 = 1 flit per cycle until it is full, so each output-queue slot lets rank 0 finish
    # its first message, and start the second (to rank 1, on another output), one cycle
    # earlier. The downstream credits (2 VCs x 16 flits) do not bind for queues up to 16.
    program = merge_program(tmp_path, 64)
    second = {o: merge_times(program, {**CIOQ, "speedup": 2, "output_buffer": o}) for o in (4, 8, 16)}
    assert second[4][0] - second[8][0] == 4
    assert second[8][0] - second[16][0] == 8
    slow = merge_times(program, {**CIOQ, "speedup": 1, "output_buffer": 16})
    assert slow[0] > second[4][0] + 4
    # ...but the link still carries exactly one flit per cycle: rank 2 has both messages at the
    # same cycle whatever the speedup or queue depth, 128 flits after the first reached the link.
    assert {t[1] for t in second.values()} == {slow[1]}


def test_cioq_speedup_one_adds_one_cycle_per_router_at_zero_load():
    # The zero-load formula of test_engine, (S−1) + 2·Lt + (H+1)·Lr + Σ Lc, with each of the
    # H + 1 routers one cycle longer: a flit written into its empty output queue in cycle t
    # leaves on the channel in cycle t + 1 (the drain runs before the switch). So per packet
    # (S − 1) + 2·Lt + Lr + 1, plus per hop Lr + Lc + 1.
    # The formula holds only where no two packets meet. Seed 4 is a packet stream (of the
    # per-packet Bernoulli gaps) in which none do, in either architecture: the iq run below
    # meets its own formula exactly. (Seed 1 of that stream has one meeting, +2 cycles.)
    S, Lt, Lr, Lc = 3, 2, 1, 3
    def run(arch):
        cfg = small_dragonfly(router={"latency": Lr, "architecture": arch},
                              channels={"terminal": Lt, "local": Lc, "global": Lc},
                              traffic={"load": 0.0015, "packet_size": S},
                              sim={"warmup": 0, "measure": 4000, "seed": 4})
        return flitsim.run(cfg, backend="cpu", threads=1)
    r = run("cioq")
    assert r.packets_measured >= 100
    assert r.latency_sum == r.packets_measured * ((S - 1) + 2 * Lt + Lr + 1) + r.hops_sum * (Lr + Lc + 1)
    iq = run("iq")
    assert (iq.packets_measured, iq.hops_sum) == (r.packets_measured, r.hops_sum)
    assert iq.latency_sum == iq.packets_measured * ((S - 1) + 2 * Lt + Lr) + iq.hops_sum * (Lr + Lc)
    assert r.latency_sum - iq.latency_sum == r.packets_measured + r.hops_sum


def hotspot_cfg(router, drain_limit=100):
    """Six saturated sources on three routers sending to node 0: every output queue on the way
    is full most of the time."""
    return {"topology": {"kind": "hyperx", "widths": [3], "terminals": 2},
            "router": {"vcs": 2, "buffer": 8, "latency": 1, **router},
            "routing": {"algorithm": "dor"},
            "traffic": {"pattern": "hotspot", "hotspots": [0], "load": 1.0, "packet_size": 3},
            "sim": {"warmup": 300, "measure": 600, "seed": 5, "drain_limit": drain_limit}}


@pytest.mark.parametrize("arch", ["cioq", "ioq"])
@pytest.mark.parametrize("speedup,output_buffer", [(1, 1), (2, 1), (3, 2), (4, 5)])
def test_full_output_queues_never_overflow_and_conservation_holds_mid_flight(arch, speedup, output_buffer):
    # The run ends (drain limit) with flits in input VCs, output queues (with ioq, flits there
    # waiting for credits) and channels and owed credits; the engine's invariants check, after
    # every run, that output queues hold at most router.output_buffer flits (with ioq only their
    # own VC's), that no flit entered a full one, and that flits and credits (queued flits and
    # owed credits included) are conserved; a violation fails the run.
    r = flitsim.run(hotspot_cfg({"architecture": arch, "speedup": speedup, "output_buffer": output_buffer}),
                    backend="cpu", threads=1)
    assert r.saturated
    # Node 0's ejection port delivers exactly one flit per cycle of the window.
    assert r.ejected_flits == 600


def test_speedup_raises_saturation_throughput_of_an_input_queued_router():
    # Uniform traffic at full load on a 4x4 HyperX (DOR): head-of-line blocking caps the iq
    # router; speedup 2 moves two flits per input per cycle and recovers much of it.
    def accepted(router):
        cfg = {"topology": {"kind": "hyperx", "widths": [4, 4], "terminals": 2},
               "router": {"vcs": 4, "buffer": 8, "latency": 1, **router}, "routing": {"algorithm": "dor"},
               "traffic": {"pattern": "uniform", "load": 1.0, "packet_size": 4},
               "sim": {"warmup": 500, "measure": 1000, "seed": 3, "drain_limit": 200}}
        return flitsim.run(cfg, backend="cpu", threads=1).accepted
    iq, s1, s2 = accepted({}), accepted(CIOQ), accepted({**CIOQ, "speedup": 2})
    assert abs(s1 - iq) < 0.02  # speedup 1: the same switch, one more cycle per router
    assert s2 > iq + 0.05


@pytest.mark.parametrize("arch", ["cioq", "ioq"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_corpus_topology_and_routing_runs_with_output_queues(name, arch):
    # The corpus covers every topology kind, routing and traffic mode; each runs with a cioq
    # and an ioq router (speedup 2, 3-flit queues per port or per VC) and passes the end-of-run
    # invariants.
    cfg, loads = copy.deepcopy(CASES[name])
    cfg["router"] = {**cfg["router"], "architecture": arch, "speedup": 2, "output_buffer": 3}
    if arch == "cioq" and cfg["routing"].get("congestion", "").startswith("output"):  # senses ioq's queues
        del cfg["routing"]["congestion"]
    if loads is None:
        results = [flitsim.run(cfg, backend="cpu", threads=1)]
    else:
        results = flitsim.run_replicas(cfg, loads, backend="cpu", threads=1)
    for r in results:
        assert r.ejected_flits > 0 or r.workload is not None


SCRIPT = """
import json, sys
sys.path.insert(0, {here!r})
import flitsim
from conftest import small_dragonfly
out = {{}}
for name, (router, routing) in {options!r}.items():
    r = flitsim.run(small_dragonfly(router={{"vcs": 3, **router}}, routing=routing,
                                    traffic={{"load": 0.7, "packet_size": 3}}),
                    backend="cpu", threads={threads})
    out[name] = [r.ejected_flits, r.latency_sum, r.hops_sum, r.packets_measured, r.network_latency_sum,
                 r.channel_flits.tolist()]
print(json.dumps(out))
"""
MIN = {"algorithm": "min"}
OPTIONS = {"cioq-1": ({"architecture": "cioq", "output_buffer": 4}, MIN),
           "cioq-2": ({"architecture": "cioq", "speedup": 2, "output_buffer": 2}, MIN),
           "cioq-3-age-vct": ({"architecture": "cioq", "speedup": 3, "arbitration": "age", "flow_control": "vct"}, MIN),
           "ioq-1": ({"architecture": "ioq", "output_buffer": 4}, MIN),
           "ioq-2-ugal-output": ({"architecture": "ioq", "speedup": 2, "output_buffer": 2},
                                 {"algorithm": "ugal", "congestion": "output"}),
           "ioq-3-age-vct": ({"architecture": "ioq", "speedup": 3, "arbitration": "age", "flow_control": "vct",
                              "output_buffer": 3}, {"algorithm": "ugal", "congestion": "output_and_downstream"})}


def run_options(order=None, threads=1):
    script = SCRIPT.format(here=os.path.dirname(__file__), options=OPTIONS, threads=threads)
    return run_engine_script(script, threads, order)


def test_output_queued_routers_are_bit_identical_across_threads_and_step_orders():
    base = run_options()
    assert base["cioq-1"] != base["cioq-2"] and base["ioq-1"] != base["ioq-2-ugal-output"]  # options matter
    assert run_options(threads=2) == base
    assert run_options(order="shuffled:1") == base
    assert run_options(order="reversed") == base


# --- buffers in bytes -----------------------------------------------------------------------------

def test_buffers_in_bytes_are_the_same_router_as_in_flits():
    flits = small_dragonfly(router={"buffer": 8, **CIOQ, "output_buffer": 4}, traffic={"load": 0.5})
    in_bytes = small_dragonfly(router={"buffer_bytes": 512, **CIOQ, "output_buffer_bytes": 256},
                               traffic={"load": 0.5, "flit_bytes": 64})
    del in_bytes["router"]["buffer"]
    a, b = flitsim.run(flits, backend="cpu", threads=1), flitsim.run(in_bytes, backend="cpu", threads=1)
    assert (a.latency_sum, a.ejected_flits, a.channel_flits.tolist()) == \
        (b.latency_sum, b.ejected_flits, b.channel_flits.tolist())
    layout = _core.state_layout(normalize(in_bytes), 1)
    assert layout["buffer"] == 8
    assert layout["arrays"]["oq_buf"][0] == 4 * layout["ports"]


def bytes_workload(tmp_path, router, traffic):
    """A [workload] run (the merge program, 16-byte flits) with the given [router] and [traffic]."""
    return {"topology": {"kind": "hyperx", "widths": [2], "terminals": 2},
            "router": {"vcs": 2, "latency": 1, **router}, "routing": {"algorithm": "dor"}, "traffic": traffic,
            "workload": {"packet_size": 4, "flit_bytes": 16,
                         "jobs": [{"motif": "program", "file": merge_program(tmp_path, 8)}]}}


def test_a_workload_converts_buffer_bytes_with_its_own_flit_size(tmp_path):
    # With [workload] one flit is workload.flit_bytes (16) bytes: router.buffer_bytes = 64 is a
    # 4-flit buffer without traffic.flit_bytes, the same run as router.buffer = 4 (and not as 8).
    def run(router, traffic=None):
        r = flitsim.run(bytes_workload(tmp_path, router, traffic or {}), backend="cpu", threads=1)
        return r.workload.node_last_delivery.tolist(), r.cycles
    assert run({"buffer_bytes": 64}) == run({"buffer": 4}) == run({"buffer_bytes": 64}, {"flit_bytes": 16})
    assert run({"buffer": 4}) != run({"buffer": 1})  # the buffer depth matters in this program
    assert normalize(bytes_workload(tmp_path, {"buffer_bytes": 64}, {}))["traffic"]["flit_bytes"] == 16


def test_a_workload_refuses_a_second_flit_size(tmp_path):
    for router in ({"buffer_bytes": 64}, {"buffer": 4}):
        with pytest.raises(ConfigError, match=r"traffic\.flit_bytes: 64 disagrees with workload\.flit_bytes = 16"):
            normalize(bytes_workload(tmp_path, router, {"flit_bytes": 64}))


def engine_refusal(router, traffic=None):
    """The engine's own error for a [router] section, without Python's normalisation."""
    cfg = {"topology": {"kind": "hyperx", "widths": [3], "terminals": 1}, "router": router,
           "routing": {"algorithm": "dor"}, "traffic": traffic or {}}
    with pytest.raises(ValueError) as e:
        _core.state_layout(cfg, 1)
    return str(e.value)


def test_a_depth_per_vc_is_refused_with_the_reason():
    # One depth for every output queue (docs/configuration.md): a list of depths, one per VC,
    # is refused, saying so.
    for key in ("output_buffer", "output_buffer_bytes"):
        with pytest.raises(ConfigError, match=rf"router\.{key}: one depth for every output queue, got a list "
                                              r"\[8, 8\]: .*each VC's queue has this depth"):
            normalize({"router": {"architecture": "cioq", key: [8, 8]}, "traffic": {"flit_bytes": 1}})


@pytest.mark.parametrize("router,traffic,message", [
    ({"buffer_bytes": 100}, {"flit_bytes": 16}, r"router\.buffer_bytes: must be a multiple of traffic\.flit_bytes = 16, got 100"),
    ({"buffer_bytes": 128, "buffer": 8}, {"flit_bytes": 16}, r"router\.buffer_bytes: give router\.buffer \(flits\) or router\.buffer_bytes \(bytes\), not both"),
    ({"buffer_bytes": 128}, {}, r"router\.buffer_bytes: needs traffic\.flit_bytes"),
    ({"architecture": "cioq", "output_buffer_bytes": 24}, {"flit_bytes": 16}, r"router\.output_buffer_bytes: must be a multiple of traffic\.flit_bytes"),
    ({"architecture": "cioq", "output_buffer_bytes": 32, "output_buffer": 2}, {"flit_bytes": 16}, r"router\.output_buffer_bytes: give router\.output_buffer \(flits\)"),
    ({"buffer_bytes": 16 << 20}, {"flit_bytes": 16}, r"router\.buffer_bytes: 16777216 / traffic\.flit_bytes 16 flits: router\.buffer: must be an integer in \[1, 2\^16\]"),
    ({"speedup": 2}, {}, r'router\.speedup: needs router\.architecture = "cioq" or "ioq"'),
    ({"output_buffer": 8}, {}, r'router\.output_buffer: needs router\.architecture = "cioq" or "ioq"'),
    ({"architecture": "oq"}, {}, r'router\.architecture: must be "iq", "cioq" or "ioq", got "oq"'),
    ({"architecture": "cioq", "speedup": 9}, {}, r"router\.speedup: must be an integer in \[1, 8\], got 9"),
    ({"architecture": "cioq", "output_buffer": 0}, {}, r"router\.output_buffer: must be an integer in \[1, 2\^16\], got 0"),
    ({"preset": "hyperx"}, {}, r'router\.preset: must be one of "flitsim", "booksim", "hyperx-paper", "supersim", got "hyperx"'),
])
def test_bad_buffering_values_are_refused_by_name_and_rule(router, traffic, message):
    assert __import__("re").search(message, engine_refusal(router, traffic))
    # The Python front end refuses the same values (single-key rules in its schema, the
    # cross-key rules by the engine before any simulation starts), naming the same key.
    key = message.split(":")[0].replace("\\", "")
    cfg = {"topology": {"kind": "hyperx", "widths": [3], "terminals": 1}, "router": dict(router),
           "routing": {"algorithm": "dor"}, "traffic": dict(traffic)}
    with pytest.raises((ConfigError, ValueError), match=key.replace(".", r"\.")):
        flitsim.run(cfg, backend="cpu", threads=1)


# --- the hyperx-paper preset ----------------------------------------------------------------------

def test_every_preset_is_documented_key_by_key():
    # One table (host/config/router_presets.cpp) is every preset: the engine applies it, Python's
    # schema and defaults read it, and docs/configuration.md must show each of its values.
    docs = (pathlib.Path(__file__).parents[1] / "docs" / "configuration.md").read_text()
    presets = flitsim.config.ROUTER_PRESETS
    assert list(presets) == ["flitsim", "booksim", "hyperx-paper", "supersim"] and presets["flitsim"] == {}
    for name, table in presets.items():
        assert f'`"{name}"`' in docs, name
        for key, value in table.items():
            shown = f'"{value}"' if isinstance(value, str) else str(value)
            assert f"`{key} = {shown}`" in docs, (name, key, value)


def test_hyperx_paper_preset_is_its_documented_keys_and_explicit_keys_override_it():
    preset = normalize({"router": {"preset": "hyperx-paper"}})["router"]
    assert {k: preset[k] for k in ("vcs", "buffer", "latency")} == {"vcs": 8, "buffer": 160, "latency": 50}
    table = flitsim.config.ROUTER_PRESETS["hyperx-paper"]
    assert table == {"architecture": "cioq", "speedup": 2, "arbitration": "age", "flow_control": "vct",
                     "vcs": 8, "latency": 50, "buffer": 160, "output_buffer": 32}
    over = normalize({"router": {"preset": "hyperx-paper", "buffer": 20, "vcs": 4}})["router"]
    assert (over["buffer"], over["vcs"], over["latency"]) == (20, 4, 50)
    # The engine applies the preset itself (without Python's defaults) and lets keys override it.
    cfg = {"topology": {"kind": "hyperx", "widths": [3], "terminals": 1}, "routing": {"algorithm": "dor"}}
    eng = _core.state_layout({**cfg, "router": {"preset": "hyperx-paper"}}, 1)
    assert (eng["vcs"], eng["buffer"], eng["arrays"]["oq_buf"][0]) == (8, 160, 32 * eng["ports"])
    eng = _core.state_layout({**cfg, "router": {"preset": "hyperx-paper", "architecture": "iq"}}, 1)
    assert eng["arrays"]["oq_buf"][0] == 0
    # Buffers in bytes replace the preset's flits.
    eng = _core.state_layout({**cfg, "router": {"preset": "hyperx-paper", "buffer_bytes": 1024},
                              "traffic": {"flit_bytes": 64}}, 1)
    assert eng["buffer"] == 16


def test_hyperx_paper_preset_zero_load_latency_is_its_crossbar_latency_per_router():
    # 50-cycle crossbar + the output queue's cycle per router, 50-cycle links, 5-cycle terminal
    # channels (the paper's 50 ns / 5 ns at 1 ns per cycle): the formula above with Lr = 50.
    # (Exact for a seed whose packets never meet: contention could only add cycles.)
    S, Lt, Lr, Lc = 4, 5, 50, 50
    cfg = {"topology": {"kind": "hyperx", "widths": [3, 3], "terminals": 2},
           "router": {"preset": "hyperx-paper"}, "channels": {"terminal": Lt, "latency": Lc},
           "routing": {"algorithm": "dor"}, "traffic": {"load": 0.0015, "packet_size": S},
           "sim": {"warmup": 0, "measure": 30000, "seed": 3}}
    r = flitsim.run(cfg, backend="cpu", threads=1)
    assert r.packets_measured >= 100
    assert r.latency_sum == r.packets_measured * ((S - 1) + 2 * Lt + Lr + 1) + r.hops_sum * (Lr + Lc + 1)


def test_watchdog_still_reports_a_deadlock_with_output_queues():
    # test_engine's lock-up (one VC class on a dragonfly, full load) with a cioq router: the
    # output queues drain (their flits own downstream credits), the input VCs lock, and the
    # watchdog, which counts flits in input VCs and output queues, reports it. The 2-class
    # scheme runs to completion: output queues add no dependency between VCs.
    # The report lists the output queues too: all 36 routers x 7 ports empty in this lock-up
    # (they always drain), and no credit still owed (returned one per cycle long before).
    cfg = small_dragonfly(router={"vcs": 1, "buffer": 2, **CIOQ, "speedup": 2, "output_buffer": 4},
                          routing={"deadlock_avoidance": False},
                          traffic={"load": 1.0, "packet_size": 8}, sim={"watchdog": 300})
    with pytest.raises(RuntimeError, match=r"(?s)deadlock: no flit moved .*router \d+ input port \d+ VC 0.*\n"
                       r"output queues \(router\.output_buffer = 4 flits each\): 0 flits in 0 of 252 queues, "
                       r"0 credits owed upstream\n$"):
        flitsim.run(cfg, backend="cpu")
    cfg = small_dragonfly(router={"vcs": 2, "buffer": 2, **CIOQ, "speedup": 2, "output_buffer": 4},
                          traffic={"load": 1.0, "packet_size": 8}, sim={"watchdog": 300, "drain_limit": 2000})
    assert flitsim.run(cfg, backend="cpu").ejected_flits > 0


# --- the papers' input-output-buffered switches, in bytes -------------------------------------------

@pytest.mark.parametrize("name,vc_flits,queue_flits", [
    ("dragonfly-valiant-ioq", 4096 // 64, 8 * 4096 // 64),  # P0: 4 KB per VC per direction, 64-byte flits
    ("diameter-two-ioq", 102400 // 4 // 64, 102400 // 64),  # P3: 100 KB per port per direction, 4 VCs
])
def test_paper_configs_state_their_switch_buffers_in_bytes_and_run(name, vc_flits, queue_flits):
    path = pathlib.Path(__file__).parents[1] / "configs" / "papers" / f"{name}.toml"
    cfg = flitsim.config.load_config(str(path))
    assert cfg["router"]["architecture"] == "cioq" and "buffer" not in cfg["router"]
    layout = _core.state_layout(cfg, 1)
    assert layout["buffer"] == vc_flits
    assert layout["arrays"]["oq_buf"][0] == queue_flits * layout["ports"]
    # A short run of every swept point: the end-of-run invariants (flits, credits, output-queue
    # occupancy) hold and the network carries traffic. (The dragonfly at p = 2: 72 nodes instead
    # of 1,056, for time; the router is the file's.)
    cfg["sim"].update(warmup=100, measure=200)
    if cfg["topology"]["kind"] == "dragonfly":
        cfg["topology"].update(p=2, a=4, h=2)
    _, points, configs, _ = importlib.import_module("flitsim.sweep").plan(cfg)
    assert len(configs) == 4
    for point, c in zip(points, configs):
        assert flitsim.run(c, backend="cpu", threads=1).ejected_flits > 0, point
