"""Dollar costs of a run's calls, trials and arms, from a `PriceBook`.

The book of a run is the prices written on its model specs plus a price table (the
`--prices FILE` given to `tether run`, kept in the store's meta as `prices`, or given
to `tether report`). A cost is `None` whenever one of the calls it sums has no known
cost: a partial sum would read as the whole and make an arm look cheaper. A call's cost
is unknown when its model has no price, when the provider's usage was not taken (the
record's `usage_flag`: missing, or more than the request allowed; tether.models.usage_check)
and when the call failed after its request was sent (`error`): what such a call is
billed cannot be known, and is never taken to be 0.
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
    """What the provider bills for one call (a cache hit made no request: 0); None when
    unknown (no price, usage not taken, a failed call)."""
    if call.cache_hit:
        return 0.0
    price = book.price(call.model_id)
    if price is None or call.usage_flag is not None or call.error is not None:
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


def arm_cost(records: Iterable[TrialRecord], book: PriceBook) -> float | None:
    """What a group of trials (an arm) cost: None when one cost is unknown, and None when
    every trial errored (an arm that never ran is not free, whatever its calls cost)."""
    records = list(records)
    if records and all(r.status == "error" for r in records):
        return None
    return total(trial_cost(r, book) for r in records)


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


__all__ = ["META_KEY", "arm_cost", "book_for", "call_cost", "fmt_usd", "run_book", "total",
           "trial_cost"]
