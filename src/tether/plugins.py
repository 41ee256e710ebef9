"""What installed distributions declare under tether's entry-point groups: the one
reader of entry points.

The kernel reaches what a system or a package above the systems provides (its strategies,
instruments, suites, harness settings, report sections, commands, an export format, a
report for another kind of directory) only through entry points, never by naming its
module: `pyproject.toml` lists tether's own, and another installed package can add its
own the same way. A value names a module that registers what it holds on import
(`tether.registry.import_modules`) or an object, "module:attribute". This module imports
nothing heavy, so the command hub can list commands with it.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any


def declared(group: str) -> list[str]:
    """The values (modules, or "module:attribute") declared under `group`, unloaded."""
    return [ep.value for ep in entry_points(group=group)]


def declared_names(group: str) -> list[tuple[str, str]]:
    """(name, value) of each entry point declared under `group`, unloaded."""
    return [(ep.name, ep.value) for ep in entry_points(group=group)]


def load(value: str) -> Any:
    """What a declared value names: the object of "module:attribute", or the module (its
    import registers what it holds). ImportError and AttributeError propagate."""
    module, _, attr = value.partition(":")
    obj: Any = importlib.import_module(module.strip())
    for part in attr.strip().split(".") if attr.strip() else ():
        obj = getattr(obj, part)
    return obj


def plugin(group: str, name: str) -> Any | None:
    """The object declared as `name` under `group`, loaded (its module imported), or None
    when none is declared."""
    for ep in entry_points(group=group, name=name):
        return ep.load()
    return None


def plugins(group: str) -> dict[str, Any]:
    """Every object declared under `group`, by entry-point name, loaded."""
    return {ep.name: ep.load() for ep in entry_points(group=group)}
