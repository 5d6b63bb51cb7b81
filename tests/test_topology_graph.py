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


# --- hardening: every input bounded, nothing recursive, non-regular files refused ----------

@pytest.mark.parametrize("name,text,pattern", [
    ("n.txt", "# terminals -3\n0 1\n", r"line 1: a terminal count must be in \[0, 67108864\], got -3"),
    ("o.txt", "0 99999999999999999999\n", r"line 1: a router id must be in \[0, 16777215\], got 9999"),
    ("p.txt", "0 16777216\n", r"line 1: a router id must be in"),
    ("q.txt", "# routers 0\n0 1\n", r"line 1: the number of routers must be in \[1, 16777216\]"),
    ("r.json", '{"links": [[0, 99999999999999999999]]}', r"line 1: \"99999999999999999999\" is not an integer"),
    ("s.json", '{"routers": -5, "links": [[0, 1]]}', r"line 1: \"routers\" must be in \[1, 2\^24\]"),
    ("t.json", '{"links": [[0, 1]], "terminals": -3}', r"\"terminals\" must be in \[0, 2\^26\]"),
    ("u.json", '{"links": ' + "[" * 100000 + "]" * 100000 + "}", r"nested deeper than 16 levels"),
])
def test_out_of_range_and_deep_input(tmp_path, name, text, pattern):
    with pytest.raises(ValueError, match=r"topology\.file: .*" + pattern):
        from_file(tmp_path, name, text)


def test_non_regular_files_refused(tmp_path):
    for path in (str(tmp_path), "/dev/zero"):
        with pytest.raises(ValueError, match=r"topology\.file: .* is not a regular file"):
            T.build({"kind": "graph", "file": path})


def test_inline_routers_bounded():
    with pytest.raises(ValueError, match=r"topology\.routers: must be in \[1, 2\^24\], got -5"):
        T.build({"kind": "graph", "links": [0, 1], "routers": -5})
    with pytest.raises(ValueError, match=r"topology\.links: link 0: router ids must be < 2\^24"):
        T.build({"kind": "graph", "links": [0, 2**30]})


def test_long_path_builds_without_recursion(tmp_path):
    # 200,000 routers in a path: the union-find used to recurse once per router and overflow
    # the stack; now it is iterative.
    n = 200_000
    text = "# terminals 0\n# terminals 0 1\n" + "".join(f"{i} {i + 1}\n" for i in range(n - 1))
    t = from_file(tmp_path, "path.txt", text)
    assert (t.num_routers, t.num_nodes) == (n, 1)


def test_bit_parallel_distances_match_bfs():
    # >= 512 routers and a small diameter: router_distances takes the bit-parallel path.
    from collections import deque
    from flitsim import _core
    sec = {"kind": "hyperx", "widths": [8, 9, 10], "terminals": 1}
    d = np.asarray(_core.router_distances(sec))
    t = T.build(sec)
    R = t.num_routers
    adj = [[int(t.port_router[t.peer_port[g]]) for g in range(t.port_offset[u], t.port_offset[u + 1])
            if t.peer_port[g] >= 0] for u in range(R)]
    for s in (0, 1, 255, 256, 511, R - 1):
        row = [255] * R
        row[s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if row[v] == 255:
                    row[v] = row[u] + 1
                    q.append(v)
        assert d[s].tolist() == row
    assert np.array_equal(d, d.T)
