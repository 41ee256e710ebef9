"""Dollar prices of model calls: from a model spec's options or a user's price table.

A spec may carry `;price_in=X;price_out=Y` among its options, in any order, in dollars
per million tokens (input; output, reasoning tokens billed as output, as every provider
bills them). The price attaches to the model, not to its other options: it prices the
calls recorded under the spec's model id (`model_id_of`: the spec without its options),
so `;key_env=VAR` or `;timeout_s=20` beside it changes nothing. A price table file (TOML
or JSON) maps a model to the same two keys:

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


#: spec forms whose body may hold `;` (a scripted JSON list, a cassette path): only their
#: trailing price options are options
_BODY_FORMS = ("scripted:", "replay:")
#: an inline scripted list's model id is its first characters (tether.models.registry)
SCRIPTED_ID_CHARS = 60


def split_price(spec: str) -> tuple[str, Price | None]:
    """(the spec without its price options, their price or None).

    Price options may stand anywhere among a spec's options; the others stay, in their
    order. A scripted or replay spec's body may hold `;`, so only its trailing price
    options are taken (its body is never cut)."""
    text = spec.strip()
    options: dict[str, str] = {}
    if text.startswith(_BODY_FORMS):
        rest = text
        while ";" in rest:
            head, _, last = rest.rpartition(";")
            key, sep, value = last.partition("=")
            if not sep or key.strip() not in PRICE_KEYS:
                break
            options[key.strip()] = value.strip()
            rest = head
    else:
        head, *opts = text.split(";")
        kept = []
        for opt in opts:
            key, sep, value = opt.partition("=")
            if sep and key.strip() in PRICE_KEYS:
                options[key.strip()] = value.strip()
            else:
                kept.append(opt)
        rest = ";".join([head, *kept])
    return rest.strip(), _price(options, f"model spec {spec!r}")


def model_id_of(spec: str) -> str:
    """The model id the calls of `spec` are recorded under, which a price on the spec
    attaches to: the spec without its options (`openai/gpt-4o-mini;timeout_s=20` ->
    `openai/gpt-4o-mini`); a scripted or replay spec without its price options (an
    inline scripted list cut to its first SCRIPTED_ID_CHARS characters)."""
    rest, _ = split_price(spec)
    if rest.startswith("scripted:["):
        return rest[:SCRIPTED_ID_CHARS]
    if rest.startswith(_BODY_FORMS):
        return rest
    return rest.split(";", 1)[0].strip()


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
        _, price = split_price(spec)
        if price is not None:
            self.by_spec[model_id_of(spec)] = price

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


__all__ = ["PRICE_KEYS", "Price", "PriceBook", "load_price_table", "model_id_of",
           "model_name", "split_price", "table_from_dict"]
