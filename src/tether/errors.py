"""Errors a user can act on.

Every error here carries a one-line message and an optional hint; the CLI prints
both without a traceback (see `tether.cli`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class TetherError(Exception):
    """Base class: a failure with a message meant for the user."""

    hint: str | None = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class ConfigError(TetherError):
    """Bad input from the user: a spec, a config file, a task file."""


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """`did you mean 'x'? ` when a known name is close to `key`, else '': the start of a
    hint for a misspelled name, parameter, role or key."""
    close = difflib.get_close_matches(key, sorted(set(known)), n=1)
    return f"did you mean {close[0]!r}? " if close else ""
