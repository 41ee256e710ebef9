"""Reading a JSON task file: the one reader suite formats share, with errors that name
the file, line and column (its own module so that formats and the registry both import
it without importing each other)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.textio import JSONError, loads, read_text


def read_json_file(path: Path) -> Any:
    """Parse a JSON file; errors name the file, line and column."""
    text = read_text(path)
    try:
        return loads(text)
    except JSONError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: "
                          f"{exc.msg}", hint="fix the JSON syntax") from None
