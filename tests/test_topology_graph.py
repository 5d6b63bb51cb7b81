"""Imported graphs: edge lists, JSON, inline links, and clear errors for malformed input."""
import json

import numpy as np
import pytest

pytest.importorskip("flitsim._core")
from flitsim import topology as T  # noqa: E402


def from_file(tmp_path, name, text, **keys):
    path = tmp_path / name
    path.write_text(text)
    return T.build({"kind": "graph", "file": str(path), **keys})


def test_edge_list_with_directives(tmp_path):
    t = from_file(tmp_path, "g.txt", "# a ring\n# routers 5\n# terminals 2\n# terminals 3 0\n"
                  "0 1\n1 2 fast\n2 3\n3 0\n3 4\n3 4\n")
    assert (t.num_routers, t.num_nodes) == (5, 8)
    assert t.terminals().tolist() == [2, 2, 2, 0, 2]
    assert t.links_by_class() == {"link": 5, "fast": 1}
    # nodes are contiguous per router
    assert np.all(np.diff(t.port_router[t.node_port]) >= 0)


def test_json_and_inline_agree(tmp_path):
    links = [[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]]
    spec = {"routers": 4, "links": links, "terminals": [1, 2, 3, 4]}
    a = from_file(tmp_path, "g.json", json.dumps(spec, indent=1))
    b = T.build({"kind": "graph", "links": sum(links, []), "terminals": [1, 2, 3, 4]})
    for f in ("port_offset", "peer_port", "port_node", "port_class"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    d = T.describe({"kind": "graph", "links": sum(links, []), "terminals": 2})
    assert (d["nodes"], d["links"], d["diameter"]) == (8, 5, 2)


def test_config_terminals_default(tmp_path):
    t = from_file(tmp_path, "g.txt", "0 1\n1 2\n", terminals=3)
    assert t.terminals().tolist() == [3, 3, 3]


@pytest.mark.parametrize("name,text,pattern", [
    ("a.txt", "0 1\n1 x\n", r"line 2: \"x\" is not an integer"),
    ("b.txt", "0 1\n1 2 3 4\n", r"line 2: expected \"u v\""),
    ("c.txt", "0 1\n2 2\n", r"line 2: self-loop at router 2"),
    ("d.txt", "0 1\n2 3\n", r"disconnected"),
    ("e.txt", "# routers 2\n0 1\n1 2\n", r"router id 2 is out of range"),
    ("f.txt", "0 -1\n", r"line 1: router ids must be >= 0"),
    ("g.txt", "# terminals 9 1\n0 1\n", r"line 1: terminal line for router 9 out of range"),
    ("h.json", '{"links": [[0, 1],\n [1, 2.5]]}', r"line 2: numbers must be integers"),
    ("i.json", '{"links": [[0, 1], [1]]}', r"line 1: a link must be"),
    ("j.json", '{"links": [[0, 1]], "nodes": 3}', r"unknown key \"nodes\""),
    ("k.json", '{"links": [[0, 1]]', r"unexpected end of file"),
    ("l.json", '{"routers": 2}', r"missing \"links\""),
    ("m.txt", "", r"no routers"),
])
def test_malformed_files(tmp_path, name, text, pattern):
    with pytest.raises(ValueError, match=r"topology\.file: .*" + pattern):
        from_file(tmp_path, name, text)


def test_missing_file_and_bad_inline():
    with pytest.raises(ValueError, match=r"topology\.file: cannot open"):
        T.build({"kind": "graph", "file": "/nonexistent/graph.txt"})
    with pytest.raises(ValueError, match=r"topology\.links: must be a flat list"):
        T.build({"kind": "graph", "links": [0, 1, 2]})
    with pytest.raises(ValueError, match=r"topology\.links: link 1: self-loop"):
        T.build({"kind": "graph", "links": [0, 1, 1, 1]})
    with pytest.raises(ValueError, match=r"topology\.terminals: terminal list has 2 entries"):
        T.build({"kind": "graph", "links": [0, 1, 1, 2], "terminals": [1, 1]})
