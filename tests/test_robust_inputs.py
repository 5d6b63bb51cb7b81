"""Inputs that used to be silently ignored, hang, or end in a traceback or an unclear message
(issue 34): each now ends in one clear line naming the key or file, before anything runs."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

import flitsim
from flitsim.config import ConfigError, loads_config, normalize
from flitsim.config_keys import KEYS, key, refuse_unread_keys, unread_keys

pytest.importorskip("flitsim._core")

SMALL = {"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
         "router": {"vcs": 4, "buffer": 8}, "routing": {"algorithm": "min"},
         "traffic": {"load": 0.1}, "sim": {"warmup": 20, "measure": 40, "drain_limit": 400}}


def _cfg(**sections):
    cfg = json.loads(json.dumps(SMALL))
    for sec, keys in sections.items():
        cfg.setdefault(sec, {}).update(keys)
    return cfg


# --- keys given without effect ------------------------------------------------------------------

def _some_value(k):
    """A valid value other than the key's default."""
    if k["type"] == "int_list":
        return [1]
    if k["type"] == "float":
        return float(max(k["lo"], min(k["hi"], 0.5))) + (1 if k["default"] == max(k["lo"], min(k["hi"], 0.5)) else 0)
    if k["type"] == "bool":
        return not k["default"]
    if k["type"] == "choice":
        return k["choices"][-1]
    return 3


REFUSED_UNREAD = [k for k in KEYS if k.get("refuse_unread")]


def test_keys_refused_when_unread_are_the_declared_ones():
    # The rule derives from the declarations (refuse_unread, read_by): every [traffic] key with
    # readers, and the [routing] keys so marked; these are the ones the issue found ignored.
    traffic = {k["name"] for k in REFUSED_UNREAD if k["section"] == "traffic"}
    assert traffic == {k["name"] for k in KEYS if k["section"] == "traffic" and k["read_by"] != "all"}
    assert {"hotspots", "hotspot_fraction", "burst_on", "burst_off", "shift", "dims", "self"} <= traffic
    assert "congestion" in {k["name"] for k in REFUSED_UNREAD if k["section"] == "routing"}


def _not_reading(k):
    """A setting of the key's section that does not read it, and one that does."""
    readers = k["read_by"].split()
    if k["section"] == "routing":
        return {"algorithm": "min" if "min" not in readers else "valiant"}, {"algorithm": readers[0]}
    injections = key("traffic", "injection")["choices"]
    if all(r in injections for r in readers):
        return {"injection": next(c for c in injections if c not in readers)}, {"injection": readers[0]}
    return {"pattern": "uniform" if "uniform" not in readers else "bitcomp"}, {"pattern": readers[0]}


@pytest.mark.parametrize("k", REFUSED_UNREAD, ids=lambda k: f'{k["section"]}.{k["name"]}')
def test_key_unread_by_the_run_is_refused_before_it_starts(k):
    other, reader = _not_reading(k)
    cfg = normalize(_cfg(**{k["section"]: {k["name"]: _some_value(k), **other}}))
    why = (rf"^routing\.{k['name']}: .*applies to .*, not \"{other['algorithm']}\" on dragonfly$"
           if k["section"] == "routing" else rf"^traffic\.{k['name']}: is only used by .*it would have no effect")
    with pytest.raises(ValueError, match=why):
        flitsim.run(cfg, backend="cpu", progress=False)
    # With a reader the key is no longer refused as unread.
    assert not unread_keys(normalize(_cfg(**{k["section"]: {k["name"]: _some_value(k), **reader}})))


def test_unread_refusals_name_the_readers():
    cases = [({"traffic": {"hotspots": [1]}}, r'traffic\.hotspots: is only used by the "hotspot" pattern, '
                                              r'not "uniform"'),
             ({"traffic": {"burst_on": 10}}, r'traffic\.burst_on: is only used by traffic\.injection = '
                                             r'"onoff", not "bernoulli"'),
]
    for sections, why in cases:
        with pytest.raises(ConfigError, match=why):
            refuse_unread_keys(normalize(_cfg(**sections)))
    with pytest.raises(ValueError, match=r'^routing\.congestion: "port" applies to algorithms "ugal", "dimwar", '
                                         r'"omniwar", "ugal-dor" and "dal", not "min" on dragonfly$'):
        flitsim.run(normalize(_cfg(routing={"congestion": "port"})), backend="cpu", progress=False)


def test_a_key_at_its_default_is_not_refused():
    # As the engine's rule for [routing] keys: giving the default changes nothing, and lets an
    # override undo a file's value (--set traffic.self=false for a non-uniform pattern).
    assert not unread_keys(normalize(_cfg(traffic={"pattern": "bitcomp", "self": False, "burst_on": 8})))
    assert unread_keys(normalize(_cfg(traffic={"pattern": "bitcomp", "self": True})))


def test_sweep_keeps_a_key_some_points_read_and_refuses_one_none_reads():
    from flitsim.sweep import plan
    base = _cfg(traffic={"pattern": "bitcomp", "shift": 3})
    _, points, cfgs, _ = plan(base, {"traffic.pattern": ["bitcomp", "group-shift"]})
    assert ["shift" in c["traffic"] for c in cfgs] == [False, True]  # dropped where unread
    with pytest.raises(ConfigError, match=r'traffic\.shift: is only used by the "shift" and "group-shift" '
                                          r'patterns, not "bitcomp", nor by any other point of this sweep'):
        plan(base, {"traffic.pattern": ["bitcomp", "uniform"]})


# --- API arguments ------------------------------------------------------------------------------

@pytest.mark.parametrize("seeds, why", [
    ([1.9], r"seeds\[0\] \(sim\.seed\): must be an integer"),
    ([True], r"seeds\[0\] \(sim\.seed\): must be an integer"),
    (["1"], r"seeds\[0\] \(sim\.seed\): must be an integer"),
    ([-1], r"seeds\[0\] \(sim\.seed\): must be an integer in \[0, "),
    ([1, 2], r"seeds: one seed per replica: 2 seeds for 1 loads"),
])
def test_replica_seeds_must_be_valid_seeds(seeds, why):
    with pytest.raises(ConfigError, match=why):
        flitsim.run_replicas(normalize(_cfg()), [0.1], seeds=seeds, backend="cpu", progress=False)


@pytest.mark.parametrize("job", [-1, 2, 1.5, True])
def test_run_noise_job_must_index_a_job(job):
    from flitsim.workload.noise import run_noise
    cfg = _cfg(workload={"jobs": [{"motif": "alltoall", "ranks": 16, "bytes": 64},
                                  {"motif": "perturbation", "ranks": 8, "bytes": 64, "rounds": 2}]})
    with pytest.raises(ValueError, match=r"job: must be the index of a workload\.jobs entry, an integer "
                                         r"in \[0, 1\]"):
        run_noise(cfg, [1], job=job)


# --- workload program files ---------------------------------------------------------------------

@pytest.mark.parametrize("step, why", [
    ({"send": [[2**63, 8]]}, r"rank 0 step 0: destination rank must be in \[0, 1\]"),
    ({"send": [[1, 2**63]]}, r"rank 0 step 0: message size must be > 0 bytes and at most 2\^40"),
    ({"send": [[1, 8]], "compute": 2**64}, r"rank 0 step 0: compute must be an integer in \[0, 2\^44\]"),
    ({"send": 5}, r"rank 0 step 0: send is a list"),
])
def test_program_numbers_past_int64_refused_by_name(tmp_path, step, why):
    from flitsim.workload.program import WorkloadError, load_program
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"programs": [[step], [{"recv": [0]}]]}))
    with pytest.raises(WorkloadError, match=why):
        load_program(path)


def test_program_recv_past_int64_refused(tmp_path):
    from flitsim.workload.program import WorkloadError, load_program
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"programs": [[{"send": [[1, 8]]}], [{"recv": [-2**63 - 1]}]]}))
    with pytest.raises(WorkloadError, match=r"rank 1 step 0: source rank must be in \[0, 1\]"):
        load_program(path)


# --- unclear messages ---------------------------------------------------------------------------

def test_string_key_given_a_number_says_so():
    with pytest.raises(ValueError, match=r"topology\.arrangement: must be a string, got 4\.5$"):
        flitsim.topology.describe(normalize(_cfg(topology={"arrangement": 4.5})))
    with pytest.raises(ValueError, match=r"topology\.arrangement: must be a string, got 3$"):
        flitsim.topology.describe(normalize(_cfg(topology={"arrangement": 3})))


def test_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"\xef\xbb\xbf[traffic]\nload = 0.3\n")
    assert flitsim.load_config(path)["traffic"]["load"] == 0.3


def test_deep_nesting_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match=r"^<string>: malformed TOML: arrays or tables nested too deeply$"):
        loads_config("a = " + "[" * 5000 + "]" * 5000)
    with pytest.raises(ConfigError, match="nested too deeply"):
        loads_config("", ["router.vcs=" + "[" * 5000 + "]" * 5000])


def test_graph_file_bad_line_is_shown_truncated(tmp_path):
    graph = tmp_path / "g.edges"
    graph.write_text("0 1\n" + "x" * 1_000_000 + "\n")
    with pytest.raises(ValueError) as e:
        flitsim.topology.describe(normalize({"topology": {"kind": "graph", "file": str(graph)}}))
    msg = str(e.value)
    assert msg.startswith("topology.file: ") and "line 2" in msg and "(1000000 bytes)" in msg
    assert len(msg) < 400


# --- the command line: interrupts and pipes -----------------------------------------------------

def _own(text: str) -> str:
    """Output without an editable install's rebuild chatter (printed when _core is imported)."""
    chatter = ("[", "ninja:", "-- ", "Running cmake")
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(chatter))


# The command as the installed script runs it, the engine imported first with stdout aside (an
# editable install prints its rebuild check there, which a closed pipe would break).
_SCRIPT = ("import os, sys\n"
           "saved = os.dup(1); os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
           "import flitsim._core\n"
           "sys.stdout.flush(); os.dup2(saved, 1)\n"
           "from flitsim.cli import main\n"
           "sys.exit(main(sys.argv[1:]))\n")

def test_ctrl_c_while_the_command_starts_is_one_line_and_130():
    # As the `flitsim` script is started (argv[0]), importing flitsim arms the start-up handler;
    # a SIGINT before cli.main() takes over ends the process at once with one line.
    code = ("import sys; sys.argv[0] = '/usr/bin/flitsim'; import os, signal, time, flitsim; "
            "os.kill(os.getpid(), signal.SIGINT); time.sleep(30); print('not interrupted')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (p.returncode, _own(p.stderr), _own(p.stdout)) == (130, "flitsim: interrupted\n", "")
    # Imported as a library, Ctrl-C stays Python's KeyboardInterrupt.
    code = ("import os, signal, flitsim\ntry:\n    os.kill(os.getpid(), signal.SIGINT)\n"
            "    import time; time.sleep(30)\nexcept KeyboardInterrupt:\n    print('KeyboardInterrupt')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert _own(p.stdout).strip() == "KeyboardInterrupt"


def test_closed_pipe_ends_quietly(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\n')
    script = tmp_path / "flitsim_script.py"
    script.write_text(_SCRIPT)
    p = subprocess.run(["bash", "-c", f"{sys.executable} {script} config {config} | head -c 1 "
                                      f">/dev/null; echo ${{PIPESTATUS[0]}} >&2"],
                       capture_output=True, text=True, timeout=120)
    assert p.stderr.strip().splitlines()[-1] in ("0", "141")  # 0: all written before head exited
    assert "error" not in p.stderr and "Exception" not in p.stderr
    # Deterministically: a reader that is already gone.
    r, w = os.pipe()
    os.close(r)
    q = subprocess.run([sys.executable, "-c", _SCRIPT, "config", str(config)], stdout=w,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w)
    assert (q.returncode, _own(q.stderr)) == (141, "")


def test_show_on_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "f.h5"
    os.mkfifo(fifo)
    p = subprocess.run([sys.executable, "-m", "flitsim", "show", str(fifo)], capture_output=True,
                       text=True, timeout=120)
    assert (p.returncode, _own(p.stderr)) == (2, f"flitsim: error: {fifo}: is a FIFO, not a results file\n")


def test_router_preset_of_another_type_is_refused_by_name():
    # Found by tests/test_fuzz_configs.py: a list here was a TypeError traceback.
    with pytest.raises(ConfigError, match=r'^router\.preset: unknown value \["flitsim"\]'):
        normalize({"router": {"preset": ["flitsim"]}})


def test_workload_iterations_bounded_by_the_memory_they_take(monkeypatch):
    from flitsim.workload import motif_table
    from flitsim.workload.program import WorkloadError
    job = normalize(_cfg(workload={"jobs": [{"motif": "alltoall", "ranks": 8, "bytes": 64,
                                             "iterations": 1 << 17}]}))["workload"]["jobs"][0]
    # 8 ranks: 8 steps and 56 messages per iteration.
    need = motif_table.program_bytes(8 << 17, 56 << 17)
    monkeypatch.setattr(motif_table, "available_memory", lambda: 2 * need - 2)
    with pytest.raises(WorkloadError, match=r"workload\.jobs\[0\] \(alltoall\)\.iterations: 131072 iterations "
                                            r"make 1048576 program steps and 7340032 messages, about 720\.0 MiB"):
        motif_table.build_motif(job, label="workload.jobs[0] (alltoall)")
    monkeypatch.setattr(motif_table, "available_memory", lambda: 2 * need)
    assert motif_table.build_motif(job).num_steps == 8 << 17


def test_long_and_nested_values_are_shown_briefly_with_their_key():
    with pytest.raises(ConfigError) as e:
        loads_config("", ["routing.algorithm=" + "m" * 100_000])
    assert str(e.value).startswith('routing.algorithm: unknown algorithm "' + "m" * 60 + '..." (100000 characters)')
    assert len(str(e.value)) < 400
    with pytest.raises(ConfigError) as e:
        loads_config("", ["router." + "v" * 5000 + "=1"])
    assert str(e.value).startswith('router: unknown key "' + "v" * 40 + '..." (5000 characters) (known: ')
    with pytest.raises(ConfigError, match=r"^router\.vcs: value \[+\.\.\.: arrays nested too deeply$"):
        loads_config("", ["router.vcs=" + "[" * 5000 + "]" * 5000])
    from flitsim.sweep import parse_over
    with pytest.raises(ConfigError, match=r'^sweep "router\.vcs=\.\.\.": value \[+\.\.\.: arrays nested too deeply$'):
        parse_over(["router.vcs=" + "[" * 5000 + "]" * 5000])


def test_packet_size_beside_packet_sizes_is_refused():
    with pytest.raises(ConfigError, match=r"^traffic\.packet_size: 4 has no effect with traffic\.packet_sizes "
                                          r"= \[1, 16\]"):
        normalize(_cfg(traffic={"packet_size": 4, "packet_sizes": [1, 16]}))
    normalize(_cfg(traffic={"packet_size": 1, "packet_sizes": [1, 16]}))   # the default: as if unset
