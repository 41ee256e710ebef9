"""Dollar costs of a run's calls, trials and arms, from a `PriceBook`.

The book of a run is the prices written on its model specs plus a price table (the
`--prices FILE` given to `tether run`, kept in the store's meta as `prices`, or given
to `tether report`). A cost is `None` whenever one of the calls it sums has no known
price: a partial sum would read as the whole and make an arm look cheaper.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tether.core import TrialRecord
from tether.models import CallRecord, Price, PriceBook, load_price_table, table_from_dict

#: the store meta key that keeps the price table a run was started with
META_KEY = "prices"


def call_cost(call: CallRecord, book: PriceBook) -> float | None:
    """What the provider bills for one call (a cache hit made no request: 0)."""
    if call.cache_hit:
        return 0.0
    price = book.price(call.model_id)
    if price is None:
        return None
    u = call.usage
    return price.cost(u.input_tokens, u.output_tokens + u.reasoning_tokens)


def total(costs: Iterable[float | None]) -> float | None:
    out = 0.0
    for c in costs:
        if c is None:
            return None
        out += c
    return out


def trial_cost(record: TrialRecord, book: PriceBook) -> float | None:
    """Every call of the trial, metric calls too (`tether judge` calls are kept apart)."""
    return total(call_cost(c, book) for c in record.calls)


def run_book(resolved: dict[str, Any], table: dict[str, Price] | None = None,
             stored: dict[str, Any] | None = None) -> PriceBook:
    """The run's prices: its specs' own, over `table`, over the table stored with the run."""
    merged = {**(table_from_dict(stored, "the run's stored price table") if stored else {}),
              **(table or {})}
    specs = [spec for m in resolved.get("models", []) for k, spec in m.items() if k != "label"]
    return PriceBook(merged, specs)


def book_for(resolved: dict[str, Any], prices: str | Path | None,
             stored: dict[str, Any] | None = None) -> PriceBook:
    return run_book(resolved, load_price_table(prices) if prices else None, stored)


def fmt_usd(x: float | None) -> str:
    """`-` for unknown (never $0), cents kept for small sums."""
    if x is None:
        return "-"
    return f"${x:.4f}" if x < 1 else f"${x:,.2f}"


__all__ = ["META_KEY", "book_for", "call_cost", "fmt_usd", "run_book", "total", "trial_cost"]
