"""The keys of the [router], [routing], [traffic] and [sim] sections, as the engine declares them
(host/config/keys_<section>.cpp): type, default, bounds, choices, which routings read them and a
doc line. Everything on the Python side derives from this one declaration: the rules and
defaults of config.py, the sweep axes, `flitsim config` and the key tables of
docs/configuration.md (`python -m flitsim.config_keys --update docs/configuration.md`
regenerates them; a test fails when they drift).
"""
from __future__ import annotations

import sys
from typing import Any

from . import _core
from .validation import Checker, ConfigError
from .validation import bool_rule, choice_rule, float_rule, int_list_rule, int_rule, is_int, show

__all__ = ["KEYS", "SCHEMA", "DEFAULTS", "key", "where_else", "resolve", "unset_keys", "unread_keys",
           "refuse_unread_keys", "markdown_table", "booksim_table", "update_doc"]

# One dict per key, in declaration order (section by section).
KEYS: tuple[dict[str, Any], ...] = tuple(_core.config_keys())

_INT64_MIN = -(2**63) + 1


def key(section: str, name: str) -> dict[str, Any]:
    """The declaration of ``section.name`` (KeyError when there is none)."""
    for k in KEYS:
        if k["section"] == section and k["name"] == name:
            return k
    raise KeyError(f"{section}.{name}")


def where_else(section: str, name: str) -> str:
    """For an unknown key ``section.name``: the declared key it most likely means, as a clause
    of the error message — a BookSim2 name (`num_vcs` is `router.vcs`; each declaration states
    its BookSim2 name) or the same name in another section; "" when there is none."""
    for k in KEYS:
        if k.get("booksim") == name and k["name"] != name:   # same name: "did you mean" below
            return f" (BookSim2's {name} is {k['section']}.{k['name']})"
    for k in KEYS:
        if k["name"] == name and k["section"] != section and k["section"] != "channels":
            return f" (did you mean {k['section']}.{name}?)"
    return ""


def _engine_int(k: dict[str, Any]) -> Checker:
    """An integer within the bounds that keep it inside the type that stores it (the rule as the
    engine states it)."""
    if k["lo"] <= _INT64_MIN:
        return int_rule()
    lo, hi, rule = k["lo"], k["hi"], k["rule"]

    def check(name: str, v: Any) -> int:
        if not is_int(v) or not lo <= v <= hi:
            raise ConfigError(f"{name}: {rule}, got {show(v)}")
        return v
    return check


def _output_queue_depth(k: dict[str, Any]) -> Checker:
    """router.output_buffer(_bytes): one depth for every output queue: the one queue per port
    that its VCs share (cioq), or each VC's own queue (ioq; cuda/phases/output_queue.cuh). A
    list (a depth per VC) is refused with the reason: one depth applies to every queue."""
    depth = _engine_int(k)

    def check(name: str, v: Any) -> int:
        if isinstance(v, (list, tuple)):
            raise ConfigError(f"{name}: one depth for every output queue, got a list {show(v)}: with "
                              f"\"cioq\" a port's VCs share its one queue, with \"ioq\" each VC's queue "
                              f"has this depth (docs/configuration.md)")
        return depth(name, v)
    return check


def _checker(k: dict[str, Any]) -> Checker:
    """The rule of one key, from its declaration."""
    if k["section"] == "router" and k["name"] in ("output_buffer", "output_buffer_bytes"):
        return _output_queue_depth(k)
    kind = k["type"]
    if kind == "int":
        return _engine_int(k)
    if kind == "float":
        return float_rule(k["lo"], k["hi"])
    if kind == "bool":
        return bool_rule
    if kind == "int_list":
        return int_list_rule(k["lo"])
    noun = k["name"] if k["name"] in ("algorithm", "pattern") else "value"
    return choice_rule(tuple(k["choices"]), noun)


def _sections() -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for k in KEYS:
        out.setdefault(k["section"], {})[k["name"]] = k
    return out


_BY_SECTION = _sections()
# Rules of every key of the fixed sections ([topology] and [channels] are open: config.py).
SCHEMA: dict[str, dict[str, Checker]] = {
    sec: {name: _checker(k) for name, k in keys.items()} for sec, keys in _BY_SECTION.items()}
# The defaults a normalised config always holds: the keys the engine marks as filled (the
# others appear only when given; their defaults depend on other keys, or the engine picks them
# per routing and topology).
DEFAULTS: dict[str, dict[str, Any]] = {
    sec: {name: k["default"] for name, k in keys.items() if k["filled"]} for sec, keys in _BY_SECTION.items()}


def _read(k: dict[str, Any], cfg: dict[str, Any]) -> bool:
    """Whether the run reads key k: every routing (pattern) reads it, or the config's does."""
    if k["read_by"] == "all":
        return True
    chosen = {"routing": (cfg.get("routing", {}).get("algorithm"),),
              "traffic": (cfg.get("traffic", {}).get("pattern"), cfg.get("traffic", {}).get("injection", "bernoulli"))
              }.get(k["section"], ())
    return any(c in k["read_by"].split() for c in chosen)


def _quoted(names: list[str]) -> str:
    q = [f'"{n}"' for n in names]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def unread_keys(cfg: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """The keys set in a normalised config, away from their defaults, that its run would not read,
    each with the reason: every key declared ``refuse_unread`` (host/config/keys_*.cpp) whose
    readers (read_by: the patterns or the injection process of [traffic], the algorithms of
    [routing]) do not include the config's - the engine's own rule for [routing] keys. No such key
    is filled by default, so each one present was given."""
    out = []
    for k in KEYS:
        given = cfg.get(k["section"], {})
        if not k.get("refuse_unread") or k["name"] not in given or _read(k, cfg):
            continue
        if k["default"] is not None and given[k["name"]] == k["default"]:
            continue  # its default: no different from leaving it out (--set self=false undoes a file's true)
        readers = k["read_by"].split()
        if k["section"] == "routing":
            why = (f"is only used by routing.algorithm = {_quoted(readers)}, not "
                   f"\"{cfg['routing'].get('algorithm')}\"")
        else:
            injections = key("traffic", "injection")["choices"]
            if all(r in injections for r in readers):
                why = (f"is only used by traffic.injection = {_quoted(readers)}, not "
                       f"\"{cfg['traffic'].get('injection', injections[0])}\"")
            else:
                noun = "pattern" if len(readers) == 1 else "patterns"
                why = f"is only used by the {_quoted(readers)} {noun}, not \"{cfg['traffic'].get('pattern')}\""
        out.append((k, why))
    return out


def refuse_unread_keys(cfg: dict[str, Any]) -> None:
    """ConfigError for the first [traffic] key set in ``cfg`` that its run would not read
    (unread_keys; the [routing] ones the engine refuses as it chooses the routing, with the same
    rule and the topology named): a key given but without effect is a mistake the user should
    hear about, not a no-op. Checked per run, not in normalize: a sweep's base config may hold a key that only some points read
    (sweep.plan refuses it when no point does, and drops it from the others)."""
    for k, why in unread_keys(cfg):
        if k["section"] == "routing":
            continue  # the engine refuses these itself, per topology (host/init/routing_choice.cpp)
        raise ConfigError(f"{k['section']}.{k['name']}: {why} (it would have no effect: remove it, "
                          f"or choose a {k['section']} that reads it)")


def resolve(cfg: dict[str, Any]) -> dict[str, Any]:
    """A normalised config with every key the run reads written out with the value the engine
    uses (router.preset and the stage delays applied, defaults that depend on other keys
    resolved), in declaration order: what `flitsim config` prints and every results file records.
    It is itself a valid configuration that runs the same simulation. Keys the engine picks per
    routing and topology stay out when unset (`unset_keys`). Raises ConfigError for a rule
    between keys (e.g. router.speedup without router.architecture = "cioq")."""
    try:
        values = _core.engine_values(cfg)
        if cfg.get("traffic", {}).get("class"):
            # [[traffic.class]]: the engine reads class 0's keys as its traffic keys; the [traffic]
            # table's own values are those of the config without its classes.
            plain = {**cfg, "traffic": {k: v for k, v in cfg["traffic"].items() if k != "class"}}
            values = {**values, "traffic": _core.engine_values(plain)["traffic"]}
    except ValueError as e:
        raise ConfigError(str(e)) from None
    out = {sec: dict(v) if isinstance(v, dict) else v for sec, v in cfg.items()}
    for sec, keys in _BY_SECTION.items():
        if sec == "channels" or sec not in out:
            continue
        given = out[sec]
        merged = {}
        for name, k in keys.items():
            v = given.get(name, values.get(sec, {}).get(name))
            # A size in bytes states the size in flits: both given is refused.
            if name not in given and (v is None or f"{name}_bytes" in given or not _read(k, cfg)):
                continue
            merged[name] = v
        if sec == "traffic" and "class" in given:  # [[traffic.class]] tables: as given (traffic_classes.py)
            merged["class"] = [dict(t) for t in given["class"]]
        out[sec] = merged
    return out


def unset_keys(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The [routing] keys the run reads that are unset in ``resolve(cfg)``: the engine picks them
    per routing and topology (each declaration's doc says how)."""
    full = resolve(cfg)
    return [k for k in KEYS if k["section"] == "routing" and k["default"] is None and _read(k, cfg)
            and k["name"] not in full["routing"]]


def _shown(v: Any) -> str:
    if v is None:
        return "unset"
    return f"`{show(v)}`"


def _rule(k: dict[str, Any]) -> str:
    kind = k["type"]
    if kind == "int":
        return "any integer" if k["lo"] <= _INT64_MIN else k["rule"].removeprefix("must be ")
    if kind == "float":
        return f"a number in [{k['lo']:g}, {k['hi']:g}]"
    if kind == "bool":
        return "true or false"
    if kind == "int_list":
        return f"a list of integers >= {k['lo']}"
    return " \\| ".join(f"`{c}`" for c in k["choices"]) if len(k["choices"]) <= 6 else \
        f"one of {len(k['choices'])} names (below)"


def markdown_table(section: str) -> str:
    """The key table of one section for docs/configuration.md, generated from the declaration."""
    rows = ["| Key | Default | Values | Read by | Meaning |", "|---|---|---|---|---|"]
    for name, k in _BY_SECTION[section].items():
        doc = k["doc"].replace("|", "\\|") + (f" (BookSim2: `{k['booksim']}`)" if k.get("booksim") else "")
        reader = "" if k["read_by"] == "all" else ", ".join(f"`{r}`" for r in k["read_by"].split())
        rows.append(f"| `{name}` | {_shown(k['default'])} | {_rule(k)} | {reader} | {doc} |")
    return "\n".join(rows) + "\n"


def booksim_table() -> str:
    """BookSim2's configuration names and the flitsim key each is (each key's declaration
    states its BookSim2 name: booksim_name in host/config/keys_<section>.cpp), for
    docs/booksim.md."""
    rows = ["| BookSim2 | flitsim | Default | Values | Meaning |", "|---|---|---|---|---|"]
    for k in sorted((k for k in KEYS if k.get("booksim")), key=lambda k: k["booksim"]):
        doc = k["doc"].replace("|", "\\|")
        rule = _rule(k).replace("(below)", "(docs/configuration.md)")
        rows.append(f"| `{k['booksim']}` | `{k['section']}.{k['name']}` | {_shown(k['default'])} "
                    f"| {rule} | {doc} |")
    return "\n".join(rows) + "\n"


def preset_table(name: str = "booksim") -> str:
    """The [router] keys router.preset = NAME sets, their values and where each applies
    (host/config/router_presets.cpp; a key listed twice takes its first row that applies),
    for docs/booksim.md."""
    def where(names: list[str], every: str) -> str:
        return ", ".join(f"`{n}`" for n in names) if names else every
    rows = ["| flitsim key | value the preset sets | on topologies | with routings |", "|---|---|---|---|"]
    rows += [f"| `router.{r['key']}` | `{show(r['value'])}` | {where(r['kinds'], 'the others' if seen else 'every kind')} "
             f"| {where(r['algorithms'], 'every routing')} |"
             for r, seen in _with_seen([r for r in _core.router_preset_rules() if r["preset"] == name])]
    return "\n".join(rows) + "\n"


def _with_seen(rules: list[dict]) -> list[tuple[dict, bool]]:
    """Each rule with whether an earlier rule sets the same key (then an unconditional rule
    applies to the other topologies only)."""
    keys: set[str] = set()
    out = []
    for r in rules:
        out.append((r, r["key"] in keys))
        keys.add(r["key"])
    return out


_REGION = "<!-- keys:{0} (generated: python -m flitsim.config_keys --update docs/configuration.md) -->\n"
_END = "<!-- /keys:{0} -->\n"
_TABLES = {"booksim": booksim_table, "booksim-preset": preset_table}   # generated tables besides the sections'


def update_doc(text: str) -> str:
    """``text`` with every generated key table (between its two markers) regenerated."""
    tables = {**{s: (lambda s=s: markdown_table(s)) for s in _BY_SECTION}, **_TABLES}
    for name, make in tables.items():
        start, end = _REGION.format(name), _END.format(name)
        if start in text:
            head, rest = text.split(start, 1)
            _, tail = rest.split(end, 1)
            text = head + start + make() + end + tail
    return text


if __name__ == "__main__":  # python -m flitsim.config_keys --update docs/configuration.md
    if len(sys.argv) != 3 or sys.argv[1] != "--update":
        sys.exit("usage: python -m flitsim.config_keys --update docs/configuration.md")
    with open(sys.argv[2], encoding="utf-8") as f:
        old = f.read()
    new = update_doc(old)
    if new != old:
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write(new)
    print(f"{sys.argv[2]}: key tables {'updated' if new != old else 'already current'}")
