"""The click group class every tether command group uses.

Errors a user can act on (`TetherError`) print as one line plus a hint and exit 2;
they never show a traceback.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from tether.cli.console import esc, make_console
from tether.errors import TetherError

err_console = make_console(stderr=True)


class TetherGroup(click.Group):
    """Click group that turns TetherError into a one-line message and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TetherError as exc:
            err_console.print(f"[bold red]error:[/] {esc(exc)}", highlight=False, soft_wrap=True)
            if exc.hint:
                err_console.print(f"[dim]hint:[/] {esc(exc.hint)}", highlight=False, soft_wrap=True)
            sys.exit(2)
