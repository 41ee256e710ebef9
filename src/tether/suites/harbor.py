"""Registers Harbor task directories as a suite format and tether's own terminal suite.

The loader itself lives in `tether.terminal.harbor` (a terminal-task concern); this
module only ties it to the suite registry.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tether.core.task import Task
from tether.suites.registry import register_format, register_suite
from tether.terminal.harbor import load_harbor_dir

BUNDLED_TERMINAL = Path(__file__).parent / "data" / "terminal"


@register_suite("terminal")
def load_terminal_suite() -> list[Task]:
    """tether's own terminal suite (Harbor layout, bundled as package data)."""
    return load_harbor_dir(BUNDLED_TERMINAL, suite="terminal")


register_format("harbor", lambda path: load_harbor_dir(path))


def _load_gated(path: Path) -> list[Task]:
    """harbor-gated:DIR: imported tasks whose gates have not passed are skipped (and
    reported), where harbor:DIR refuses the whole suite."""
    skipped: list[str] = []
    tasks = load_harbor_dir(path, ungated="skip", skipped=skipped)
    for why in skipped:
        logging.getLogger("tether.suites").warning("skipped %s", why)
    if skipped:
        logging.getLogger("tether.suites").warning(
            "%d task(s) skipped for gates not passed; %d loaded", len(skipped), len(tasks))
    return tasks


register_format("harbor-gated", _load_gated)
