"""Errors a user can act on.

Every error here carries a one-line message and an optional hint; the CLI prints
both without a traceback (see `tether.cli`).
"""

from __future__ import annotations


class TetherError(Exception):
    """Base class: a failure with a message meant for the user."""

    hint: str | None = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class ConfigError(TetherError):
    """Bad input from the user: a spec, a config file, a task file."""
