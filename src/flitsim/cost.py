"""Network cost model of the iso-cost paper (Bhatele et al., P2:L282–L296).

    cost = optical · N_o + copper · N_c + router · N_r        (P2 defaults 1, 0.16, 20)

with N_o / N_c the optical / copper router-to-router links (terminal links are not counted,
as in P2 Table 2) and N_r the routers. The paper defines copper only in words; the rules below
are the ones that reproduce its Table 4 (docs/targets.md §2.3, §3.3 item 7):

* dragonfly: every intra-group link ("local") is copper, global links are optical;
* fat trees: the lowest switch level's up links (leaf–aggregation) are copper, the rest
  optical — half and half for the paper's trees, giving all five FT costs exactly;
* express mesh / HyperX: ``copper_per_router`` copper links per router, the rest optical,
  5 for gap 1 and 4 for gap ≥ 2 — inferred from Table 4, not stated by the paper;
* torus, mesh: all copper. Neighbour links join adjacent routers; a torus is laid out
  folded (each ring's routers in the order 0, W−1, 1, W−2, …), so its wrap-around links also
  span at most two router positions (hence BookSim2's 2-cycle torus channels). Short links
  are copper (electrical); give ``copper_classes`` to price a dimension's links as optical;
* Slim Fly, MLFM, OFT, imported graphs: all optical (P3 gives no split).

Every parameter can be overridden: ``optical``, ``copper``, ``router`` (prices),
``copper_classes`` (channel-class names counted as copper; replaces the per-kind rule) and
``copper_per_router`` (the express-mesh style rule; applies to any kind when given).
"""
from __future__ import annotations

import math

from collections.abc import Mapping
from typing import Any

DEFAULT_PRICES = {"optical": 1.0, "copper": 0.16, "router": 20.0}

# Channel classes that are copper cables, per topology kind (all other classes are optical).
# Kinds in ALL_COPPER price every router-to-router link as copper.
ALL_COPPER = ("torus", "mesh")
COPPER_CLASSES: dict[str, tuple[str, ...]] = {
    "dragonfly": ("local",),
    "fattree": ("leaf-agg", "leaf-spine", "l1-l2"),
    "xgft": ("l1-l2",),
}

COST_KEYS = ("optical", "copper", "router", "copper_classes", "copper_per_router")


def _hyperx_copper_per_router(attrs: Mapping[str, int]) -> int:
    # [I] Table 4 of P2 implies N_c = 5·N_r (gap 1) and 4·N_r (gap 2) for its express meshes.
    return 5 if attrs.get("gap", 1) == 1 else 4


def cost_params(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Prices and copper rule with overrides applied; unknown keys raise ValueError."""
    out: dict[str, Any] = dict(DEFAULT_PRICES)
    for key, v in (overrides or {}).items():
        if key not in COST_KEYS:
            raise ValueError(f'cost: unknown key "{key}" (known: {", ".join(COST_KEYS)})')
        if key in DEFAULT_PRICES:
            # NaN passes `v < 0`; infinity is no price either (docs/configuration.md).
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"cost.{key}: must be a finite number >= 0, got {v!r}")
            v = float(v)
        elif key == "copper_classes":
            if isinstance(v, str) or not all(isinstance(x, str) for x in v):
                raise ValueError(f"cost.copper_classes: must be a list of class names, got {v!r}")
            v = tuple(v)
        elif key == "copper_per_router":
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 4096:
                raise ValueError(f"cost.copper_per_router: must be an integer in [0, 4096] (a router's "
                                 f"ports), got {v!r}")
        out[key] = v
    return out


def split_links(kind: str, attrs: Mapping[str, int], routers: int,
                links_by_class: Mapping[str, int], params: Mapping[str, Any]) -> tuple[int, int]:
    """(copper, optical) router-to-router link counts under the rules above."""
    total = sum(links_by_class.values())
    per_router = params.get("copper_per_router")
    if per_router is None and "copper_classes" not in params and kind == "hyperx":
        per_router = _hyperx_copper_per_router(attrs)
    if per_router is not None:
        copper = min(total, per_router * routers)
    elif "copper_classes" not in params and kind in ALL_COPPER:
        copper = total
    else:
        names = params.get("copper_classes", COPPER_CLASSES.get(kind, ()))
        unknown = [n for n in names if n not in links_by_class]
        if "copper_classes" in params and unknown:
            raise ValueError(f"cost.copper_classes: {unknown} are not channel classes of this "
                             f"{kind} (known: {sorted(links_by_class)})")
        copper = sum(links_by_class.get(n, 0) for n in names)
    return copper, total - copper


def network_cost(kind: str, attrs: Mapping[str, int], routers: int,
                 links_by_class: Mapping[str, int],
                 overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Cost, copper/optical split and the parameters used."""
    params = cost_params(overrides)
    copper, optical = split_links(kind, attrs, routers, links_by_class, params)
    cost = params["optical"] * optical + params["copper"] * copper + params["router"] * routers
    return {"cost": cost, "links_copper": copper, "links_optical": optical, "cost_params": params}
