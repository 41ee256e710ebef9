"""`--set KEY=VALUE`: change an experiment config from the command line.

Overrides are applied to the parsed TOML before it is validated, so the run's
`config.resolved.json` holds the values that ran (and the store's meta keeps the
`--set` arguments as written, under `overrides`). KEY is a dotted path:

    models.proposer=openai/gpt-4o-mini        a role of the model configuration(s)
    budgets=[512,2048]  seeds=3  limit=5      top-level keys
    strategies.bon.params.n=8                 an arm by its label (or strategy name)
    strategies[0].params.max_tokens=512       ... or by its position (also strategies.0)
    strategies.params.temperature=0.7         a key under a list: every item of it
    run.concurrency=8

VALUE follows the spec typing rule (tether.specs): JSON when it parses (`8`, `0.7`,
`true`, `[1, 2]`, `{"total": 512}`), else the text as written (`openai/gpt-4o-mini`).
On a list of tables (`strategies`, `[[models]]`), a key that is neither a position nor
an item's label (or strategy name) applies to every item.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from tether.errors import ConfigError
from tether.specs import parse_value

_INDEX = re.compile(r"\[(\d+)\]")
#: the most parts a key may have (a config is a few tables deep; each part recurses once)
MAX_KEY_PARTS = 16


def _parts(key: str) -> list[str]:
    parts = [p for p in _INDEX.sub(r".\1", key).split(".")]
    if not key or any(not p.strip() for p in parts):
        raise ConfigError(f"--set {key[:80]!r}: bad key", hint="write a dotted path, e.g. "
                          "models.proposer=SPEC or strategies.bon.params.n=8")
    if len(parts) > MAX_KEY_PARTS:
        raise ConfigError(f"--set {key[:80]!r}...: {len(parts):,} parts; a key has at most "
                          f"{MAX_KEY_PARTS}", hint="write a dotted path, e.g. "
                          "strategies.bon.params.n=8")
    return [p.strip() for p in parts]


def _items(node: list[Any], part: str) -> list[int]:
    if part.isdigit():
        return [int(part)] if int(part) < len(node) else []
    named = [i for i, item in enumerate(node) if isinstance(item, dict)
             and part in (item.get("label"), item.get("name"))]
    return named or list(range(len(node)))


def _normalise(data: dict[str, Any]) -> None:
    """Shorthands become tables so a path can reach into them (config.py's own forms)."""
    strategies = data.get("strategies")
    if isinstance(strategies, str | dict):
        strategies = [strategies]
    if isinstance(strategies, list):
        data["strategies"] = [{"name": s} if isinstance(s, str) else s for s in strategies]
    if isinstance(data.get("models"), str):
        data["models"] = {"proposer": data["models"]}


def _set(node: Any, parts: list[str], value: Any, key: str) -> None:
    part, rest = parts[0], parts[1:]
    if isinstance(node, list):
        hits = _items(node, part)
        if not hits:
            raise ConfigError(f"--set {key}: no item {part!r} (the list has {len(node)})")
        # a position or a label consumes the part; "every item" passes it on
        consumed = part.isdigit() or any(
            isinstance(node[i], dict) and part in (node[i].get("label"), node[i].get("name"))
            for i in hits)
        for i in hits:
            if consumed and not rest:
                node[i] = copy.deepcopy(value)
            else:
                _set(node[i], rest if consumed else parts, value, key)
        return
    if not isinstance(node, dict):
        raise ConfigError(f"--set {key}: {part!r} is under a value, not a table")
    if not rest:
        node[part] = copy.deepcopy(value)
        return
    child = node.setdefault(part, {})
    _set(child, rest, value, key)


def apply_sets(data: dict[str, Any], sets: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """A copy of `data` with every `KEY=VALUE` of `sets` applied in order."""
    out = copy.deepcopy(data)
    _normalise(out)
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE",
                              hint="e.g. --set models.proposer=local/smollm2-135m")
        _set(out, _parts(key.strip()), parse_value(text.strip()), key.strip())
    return out


__all__ = ["apply_sets"]
