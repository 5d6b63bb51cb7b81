"""`flitsim info`: describes any topology whatever the routing needs (a run's refusal becomes
a warning), names coded attributes, and prints the bisection estimate it promises."""
from flitsim import _core  # noqa: F401  (built before any test captures output)
import json
import pathlib

from flitsim.cli import main
from flitsim import topology

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_info_describes_a_topology_whose_routing_needs_more_vcs(capsys):
    # The shipped express mesh with 4 VCs: minimal routing on it needs 6, so `run` refuses
    # it; info still describes it and says why a run would refuse.
    cfg = str(ROOT / "configs" / "papers" / "iso-nr-em.toml")
    assert main(["info", cfg, "--set", "router.vcs=4"]) == 0
    out, err = capsys.readouterr()
    assert "12,000" in out or "12000" in out
    assert "state memory     not estimated" in out or "not estimated: a run would refuse" in out
    assert err.startswith("warning: `flitsim run` refuses this configuration as it stands: "
                          "router.vcs")
    assert main(["run", cfg, "--set", "router.vcs=4", "--quiet"]) == 2
    assert main(["info", cfg, "--set", "router.vcs=4", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["nodes"] == 12000 and d["warnings"][0].startswith("router.vcs")
    assert "state_bytes" not in d


def test_info_names_coded_attributes_and_prints_the_bisection(capsys):
    cfg = str(ROOT / "configs" / "dragonfly-1k.toml")
    assert main(["info", cfg, "--set", "topology.p=2", "--set", "topology.a=4",
                 "--set", "topology.h=2", "--set", "topology.arrangement=consecutive"]) == 0
    out = capsys.readouterr().out
    attrs = next(line for line in out.splitlines() if line.startswith("attrs"))
    assert "arrangement=consecutive" in attrs and "intra=all-to-all" in attrs
    small = {"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}}
    b = topology.bisection(small)
    line = next(line for line in out.splitlines() if line.startswith("bisection"))
    assert f"{b['cut_links']:,} links cut" in line and f"halves of {b['nodes'][0]:,}" in line
    assert main(["info", cfg, "--set", "topology.p=2", "--set", "topology.a=4",
                 "--set", "topology.h=2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["bisection"]["cut_links"] == b["cut_links"] and d["attrs"]["arrangement"] == "palmtree"


def test_named_attrs_follow_the_builders_codes():
    for arrangement in ("palmtree", "consecutive", "random"):
        t = topology.build({"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2,
                                         "arrangement": arrangement}})
        assert topology.named_attrs("dragonfly", t.attrs)["arrangement"] == arrangement


def test_info_leaves_out_the_bisection_of_large_networks(capsys):
    from flitsim.cli.describe import INFO_BISECTION_MAX_ROUTERS
    cfg = str(ROOT / "configs" / "dragonfly-1k.toml")   # 2,064 routers at p = 8
    assert main(["info", cfg, "--set", "topology.p=8", "--set", "topology.a=16",
                 "--set", "topology.h=8"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("bisection"))
    assert f"not estimated (2,064 routers; info estimates it up to {INFO_BISECTION_MAX_ROUTERS:,}" in line
