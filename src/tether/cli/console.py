"""One way to build the rich consoles the CLIs print through.

Lines are never wrapped (``soft_wrap``): a path or a ``tether run --resume DIR`` hint that a
narrow or absent terminal split in two could not be copied, grepped or tested. Tables still
fit the console width, which is 200 columns when the output is not a terminal (CI logs, pipes).
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text


def make_console(stderr: bool = False) -> Console:
    """A console for CLI output; ``stderr=True`` for diagnostics and progress."""
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, soft_wrap=True, width=None if probe.is_terminal else 200)


def esc(value: object) -> str:
    """`value` as text that prints literally through rich markup: a hint naming the extra
    `tether[local]` or a TOML table `[[models]]` keeps its brackets."""
    return escape(str(value))


def add_literal_row(table: Table, *cells: object) -> None:
    """A table row whose cells print as they are (rich parses plain strings as markup)."""
    table.add_row(*(c if isinstance(c, Text) else Text(str(c)) for c in cells))
