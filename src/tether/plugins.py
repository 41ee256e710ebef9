"""What installed distributions declare under tether's entry-point groups.

The kernel reaches what a system or a package above the systems provides (its strategies,
instruments, suites, report sections, commands, an export format, a report for another kind
of directory) only through entry points, never by naming its module: `pyproject.toml`
lists tether's own, and another installed package can add its own the same way. This
module imports nothing heavy, so the command hub can list commands with it.
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import EntryPoint, entry_points
from typing import Any


@functools.cache
def _declared_everywhere() -> Any:  # EntryPoints; SelectableGroups before Python 3.12
    """Every installed entry point, read once per process: reading them scans the files
    of every installed distribution, whichever group is asked for, and the registries
    look them up at every look-up (before, about 800 file reads per trial of a HumanEval
    run; then one scan per group, four in a run's start). A distribution installed while
    a process runs is seen by the next process."""
    return entry_points()


@functools.cache
def _group(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of `group` (see _declared_everywhere)."""
    return tuple(_declared_everywhere().select(group=group))


def declared(group: str) -> list[str]:
    """The values (modules, or "module:attribute") declared under `group`, unloaded."""
    return [ep.value for ep in _group(group)]


def declared_names(group: str) -> list[tuple[str, str]]:
    """(entry-point name, value) of each declaration under `group`, unloaded."""
    return [(ep.name, ep.value) for ep in _group(group)]


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
    for ep in _group(group):
        if ep.name == name:
            return ep.load()
    return None


def plugins(group: str) -> dict[str, Any]:
    """Every object declared under `group`, by entry-point name, loaded."""
    return {ep.name: ep.load() for ep in _group(group)}
