"""Dollar prices of model calls: from a model spec's options or a user's price table.

A spec may end with `;price_in=X;price_out=Y`, in dollars per million tokens (input;
output, reasoning tokens billed as output, as every provider bills them). A price table
file (TOML or JSON) maps a model to the same two keys:

    ["openai/gpt-4o-mini"]        # a model id as calls record it (the spec without options)
    price_in = 0.15
    price_out = 0.60

    [claude-sonnet-4-5]           # or the bare model name (after `provider/`, before `@`)
    price_in = 3.0
    price_out = 15.0

A price is known only when both numbers are; an unknown price gives no cost at all
(`None`), never a cost of 0, so a table that forgot a model cannot make an arm look
free. A cache hit made no request to the provider and costs 0.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.specs import parse_value
from tether.textio import JSONError, loads, loads_toml, read_text

PRICE_KEYS = ("price_in", "price_out")
PER = 1_000_000


@dataclass(frozen=True)
class Price:
    """Dollars per million input and output tokens."""

    price_in: float
    price_out: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.price_in + output_tokens * self.price_out) / PER


def _number(value: Any, key: str, where: str) -> float:
    if isinstance(value, str):
        value = parse_value(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and value >= 0):
        raise ConfigError(f"{where}: {key} must be a number of dollars per million tokens "
                          f">= 0, not {value!r}", hint="e.g. ;price_in=0.15;price_out=0.6")
    return float(value)


def _price(options: dict[str, Any], where: str) -> Price | None:
    given = {k: _number(options[k], k, where) for k in PRICE_KEYS if k in options}
    if not given:
        return None
    if len(given) == 1:
        missing = next(k for k in PRICE_KEYS if k not in given)
        raise ConfigError(f"{where}: {missing} is missing (a price needs both "
                          f"{' and '.join(PRICE_KEYS)})")
    return Price(given["price_in"], given["price_out"])


def split_price(spec: str) -> tuple[str, Price | None]:
    """(the spec without its trailing price options, their price or None).

    Only trailing `;price_*=` options are taken, so a scripted spec's JSON body (which
    may hold `;`) is never cut."""
    rest = spec.strip()
    options: dict[str, str] = {}
    while ";" in rest:
        head, _, last = rest.rpartition(";")
        key, sep, value = last.partition("=")
        if not sep or key.strip() not in PRICE_KEYS:
            break
        options[key.strip()] = value.strip()
        rest = head
    return rest.strip(), _price(options, f"model spec {spec!r}")


def model_name(model_id: str) -> str:
    """`openai-compatible/qwen@http://...` -> `qwen`: what a price table may be keyed by."""
    name = model_id.partition("/")[2] or model_id
    return name.rpartition("@")[0] or name


class PriceBook:
    """Prices by model id: those written on specs win over a price table's."""

    def __init__(self, table: dict[str, Price] | None = None,
                 specs: list[str] | None = None) -> None:
        self.table = dict(table or {})
        self.by_spec: dict[str, Price] = {}
        for spec in specs or []:
            self.add_spec(spec)

    def add_spec(self, spec: str) -> None:
        head, price = split_price(spec)
        if price is not None:
            self.by_spec[head] = price

    def price(self, model_id: str) -> Price | None:
        return (self.by_spec.get(model_id) or self.table.get(model_id)
                or self.table.get(model_name(model_id)))

    def __bool__(self) -> bool:
        return bool(self.table or self.by_spec)

    def to_json(self) -> dict[str, dict[str, float]]:
        return {k: {"price_in": p.price_in, "price_out": p.price_out}
                for k, p in {**self.table, **self.by_spec}.items()}


def table_from_dict(data: Any, source: str) -> dict[str, Price]:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a table of model -> {{price_in, price_out}}")
    out: dict[str, Price] = {}
    for model, row in data.items():
        if not isinstance(row, dict) or set(row) - set(PRICE_KEYS):
            raise ConfigError(f"{source}: {model}: expected only price_in and price_out",
                              hint="dollars per million tokens, e.g. price_in = 0.15")
        price = _price(row, f"{source}: {model}")
        if price is None:
            raise ConfigError(f"{source}: {model}: no price given")
        out[str(model)] = price
    return out


def load_price_table(path: str | Path) -> dict[str, Price]:
    """Read a TOML or JSON price table; ConfigError (one line) when it is not one."""
    p = Path(path)
    text = read_text(p, what="price table")
    try:
        data = loads(text) if p.suffix == ".json" else loads_toml(text)
    except (JSONError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"price table {p}: not valid {p.suffix.lstrip('.') or 'TOML'}: "
                          f"{exc}") from None
    return table_from_dict(data, str(p))


__all__ = ["PRICE_KEYS", "Price", "PriceBook", "load_price_table", "model_name",
           "split_price", "table_from_dict"]
