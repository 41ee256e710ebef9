"""The `tether` command line (one module per command group).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.cli.choices import (
        COMPARATORS as COMPARATORS,
        DEFAULT_IMAGE_DIR as DEFAULT_IMAGE_DIR,
        DEFAULT_MODEL as DEFAULT_MODEL,
        GEOMETRY_MODALITIES as GEOMETRY_MODALITIES,
        GEOMETRY_PROFILES as GEOMETRY_PROFILES,
        SANDBOX_BACKENDS as SANDBOX_BACKENDS,
    )
    from tether.cli.console import (
        add_literal_row as add_literal_row,
        esc as esc,
        make_console as make_console,
    )
    from tether.cli.hub import main as main
    from tether.cli.startup import start_up as start_up

_HOMES: dict[str, str] = {
    "COMPARATORS": "tether.cli.choices",
    "DEFAULT_IMAGE_DIR": "tether.cli.choices",
    "DEFAULT_MODEL": "tether.cli.choices",
    "GEOMETRY_MODALITIES": "tether.cli.choices",
    "GEOMETRY_PROFILES": "tether.cli.choices",
    "SANDBOX_BACKENDS": "tether.cli.choices",
    "add_literal_row": "tether.cli.console",
    "esc": "tether.cli.console",
    "main": "tether.cli.hub",
    "make_console": "tether.cli.console",
    "start_up": "tether.cli.startup",
}
__all__ = [
    "COMPARATORS",
    "DEFAULT_IMAGE_DIR",
    "DEFAULT_MODEL",
    "GEOMETRY_MODALITIES",
    "GEOMETRY_PROFILES",
    "SANDBOX_BACKENDS",
    "add_literal_row",
    "esc",
    "main",
    "make_console",
    "start_up",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
