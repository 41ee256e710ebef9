"""The strict loader of tether's config files: one pydantic model, one-line errors.

    data = read_config(path, what="experiment")           # TOML, or JSON for *.json
    exp = strict_model(Experiment, data, str(path), tables={...}, hint="see ...")

Every table of a config is a pydantic model that forbids unknown keys. A file that is
not TOML (or JSON), or whose first problem is a key too many, missing or of the wrong
type, is one `ConfigError` naming the file, the dotted key the user wrote
(`file: strategies[1].params: ...`) and what was wanted; an unknown key gets a "did you
mean" and the keys allowed where it stands. `tether run` reads experiments with it and
`tether compile` its compile config, so both speak the same way.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from tether.errors import ConfigError, did_you_mean
from tether.textio import JSONError, loads, loads_toml, read_text

__all__ = ["read_config", "strict_model"]

M = TypeVar("M", bound=BaseModel)


def dotted(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def describe(err: Mapping[str, Any]) -> str:
    kind, msg = err["type"], err["msg"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    got = err.get("input")
    if isinstance(got, str | int | float | bool) and kind != "value_error":
        shown = repr(got)
        # the line names the value, not all of it: a value may be 100,000 characters
        return f"{msg} (got {shown if len(shown) <= 80 else shown[:77] + '...'})"
    return msg.removeprefix("Value error, ")


def strict_model(model: type[M], data: Any, source: str, *,
           tables: Mapping[tuple[str, ...], type[BaseModel]] | None = None,
           hint: str, what: str = "keys") -> M:
    """`data` validated as `model`; a ConfigError naming `source` and the dotted key.

    `tables` gives the model of each nested table by its path of keys (list positions
    left out), so an unknown key's hint lists the keys allowed where it stands; `hint` is
    the hint of every other problem."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a table of {what} at the top level")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errs = exc.errors()
        err = errs[0]
        more = f" (and {len(errs) - 1} more problem(s))" if len(errs) > 1 else ""
        found = hint
        if err["type"] == "extra_forbidden":
            parent = tuple(p for p in err["loc"][:-1] if not isinstance(p, int))
            known: dict[tuple[str, ...], type[BaseModel]] = {(): model, **(tables or {})}
            table = known.get(parent)
            allowed = list(table.model_fields) if table else []
            found = (f"{did_you_mean(str(err['loc'][-1]), allowed)}"
                     f"keys allowed here: {', '.join(allowed)}")
        raise ConfigError(f"{source}: {dotted(err['loc'])}: {describe(err)}{more}",
                          hint=found) from None


def read_config(path: str | Path, *, what: str) -> Any:
    """The parsed file: JSON for a `.json` file, else TOML; one line for a file that is
    missing, unreadable or not valid."""
    p = Path(path)
    if not p.exists():  # one that exists but is no regular file: read_text says so
        raise ConfigError(f"config file not found: {p}", hint=f"pass {what}")
    text = read_text(p)
    if p.suffix == ".json":
        try:
            return loads(text)
        except JSONError as exc:
            raise ConfigError(f"{p}: invalid JSON at line {exc.lineno} column {exc.colno}: "
                              f"{exc.msg}", hint="fix the JSON syntax") from None
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: invalid TOML: {exc}",
                          hint="fix the TOML syntax (strings need quotes)") from None
