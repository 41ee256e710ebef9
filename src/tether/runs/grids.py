"""Parameter grids: a list in a strategy's params is one arm per value.

    [[strategies]]
    name = "best_of_n"
    params = {n = [1, 2, 4, 8], max_tokens = 512}

is four arms, labelled `best_of_n[n=1]` ... `best_of_n[n=8]` (the arm's own `label`, when
given, takes the strategy name's place). Several lists make the product, in the order
the keys were written: `bon[n=2,temperature=0.7]`.

Every list in `params` is a grid axis. A parameter whose value is itself a list (a
feedback channel given as `["critique", "execution"]`) is written as a grid of one
value, `feedback = [["critique", "execution"]]`: an axis with a single value adds
nothing to the label. The resolved config writes list values back in that form, so
`config.resolved.json` runs again as the same arms.

A config's grids make at most MAX_ARMS arms together: the count (a product of list
lengths) is checked before any arm is made, so a grid of a million arms is one line at
once rather than minutes and gigabytes of expansion.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

from tether.errors import ConfigError


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def expand_arm(arm: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The arms one `[[strategies]]` table stands for (itself when it has no list)."""
    params = arm.get("params")
    if not isinstance(params, dict):
        return [arm]
    axes = [(k, v) for k, v in params.items() if isinstance(v, list)]
    if not axes:
        return [arm]
    for key, values in axes:
        if not values:
            raise ConfigError(f"{where}.params.{key}: an empty list is a grid of no arms",
                              hint="give at least one value, or [[...]] for a list value")
    base = arm.get("label") or arm.get("name", "?")
    out = []
    for combo in itertools.product(*(values for _, values in axes)):
        chosen = dict(zip((k for k, _ in axes), combo, strict=True))
        shown = [f"{k}={_show(v)}" for (k, values), v in zip(axes, combo, strict=True)
                 if len(values) > 1]
        label = f"{base}[{','.join(shown)}]" if shown else arm.get("label", "")
        out.append({**arm, "params": {**params, **chosen}, "label": label})
    return out


#: the most arms the strategies of one config may expand to
MAX_ARMS = 1000


def arm_count(arms: list[Any]) -> int:
    """How many arms `arms` expand to, without expanding them."""
    total = 0
    for arm in arms:
        params = arm.get("params") if isinstance(arm, dict) else None
        lists = [len(v) for v in params.values() if isinstance(v, list)] \
            if isinstance(params, dict) else []
        total += math.prod(lists)
    return total


def expand_grids(arms: list[Any]) -> list[Any]:
    count = arm_count(arms)
    if count > MAX_ARMS:
        raise ConfigError(f"strategies: the parameter grids make {count:,} arms; at most "
                          f"{MAX_ARMS:,} are run from one config",
                          hint="split the grid over several configs, or give fewer values")
    out: list[Any] = []
    for i, arm in enumerate(arms):
        out.extend(expand_arm(arm, f"strategies[{i}]") if isinstance(arm, dict) else [arm])
    return out


def as_written(params: dict[str, Any]) -> dict[str, Any]:
    """Params as a config writes them: a list value wrapped as a grid of one."""
    return {k: [v] if isinstance(v, list) else v for k, v in params.items()}


__all__ = ["MAX_ARMS", "arm_count", "as_written", "expand_arm", "expand_grids"]
