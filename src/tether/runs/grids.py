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
"""

from __future__ import annotations

import itertools
import json
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


def expand_grids(arms: list[Any]) -> list[Any]:
    out: list[Any] = []
    for i, arm in enumerate(arms):
        out.extend(expand_arm(arm, f"strategies[{i}]") if isinstance(arm, dict) else [arm])
    return out


def as_written(params: dict[str, Any]) -> dict[str, Any]:
    """Params as a config writes them: a list value wrapped as a grid of one."""
    return {k: [v] if isinstance(v, list) else v for k, v in params.items()}


__all__ = ["as_written", "expand_arm", "expand_grids"]
