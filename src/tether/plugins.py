"""What installed distributions declare under tether's entry-point groups.

The kernel reaches what a system or a package above the systems provides (its strategies,
instruments, suites, report sections, commands, an export format, a report for another kind
of directory) only through entry points, never by naming its module: `pyproject.toml`
lists tether's own, and another installed package can add its own the same way. This
module imports nothing heavy, so the command hub can list commands with it.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any


def declared(group: str) -> list[str]:
    """The values (modules, or "module:attribute") declared under `group`, unloaded."""
    return [ep.value for ep in entry_points(group=group)]


def plugin(group: str, name: str) -> Any | None:
    """The object declared as `name` under `group`, loaded (its module imported), or None
    when none is declared."""
    for ep in entry_points(group=group, name=name):
        return ep.load()
    return None


def plugins(group: str) -> dict[str, Any]:
    """Every object declared under `group`, by entry-point name, loaded."""
    return {ep.name: ep.load() for ep in entry_points(group=group)}
