"""flitsim's modules import each other without cycles (module-level or deferred imports):
shared validation lives in the leaf validation.py, the engine runner in runner.py."""
import ast
import pathlib

import flitsim

ROOT = pathlib.Path(flitsim.__file__).parent


def _module_graph() -> dict[str, set[str]]:
    mods = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = ["flitsim", *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        pkg = m if path.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = pkg
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                target = base + ("." + node.module if node.module else "")
                for c in [target] + [f"{target}.{a.name}" for a in node.names]:
                    if c in mods and c != m:
                        graph[m].add(c)
    return graph


def test_no_import_cycles():
    graph = _module_graph()
    # The package __init__ re-exports lazily (module __getattr__): leave it out.
    graph = {m: {v for v in vs if v != "flitsim"} for m, vs in graph.items() if m != "flitsim"}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(u: str, path: list[str]) -> bool:
        state[u] = 1
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                cycle.extend(path[path.index(v):] + [v])
                return True
            if not state.get(v) and visit(v, path + [v]):
                return True
        state[u] = 2
        return False

    for m in sorted(graph):
        if not state.get(m) and visit(m, [m]):
            break
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_each_entry_point_imports_first():
    """Importing a package runs its __init__ first, which the graph above does not follow:
    flitsim.config and flitsim.results import flitsim.workload (through workload/config.py and
    workload/result.py), whose __init__ imports all its modules. Each module imported first, in
    a fresh interpreter, must load."""
    import subprocess
    import sys
    for m in ("flitsim.config", "flitsim.results", "flitsim.hdf5", "flitsim.workload.config",
              "flitsim.workload.result", "flitsim.workload.noise", "flitsim.workload",
              "flitsim.plot.style", "flitsim.plot", "flitsim.studies", "flitsim.cli"):
        code = f"import {m}; import flitsim.workload as wl; assert callable(wl.run)"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=ROOT.parent)
        assert proc.returncode == 0, f"import {m} first:\n{proc.stderr}"
