"""Numbers as a reader says them, shared by the HTML pages and the terminal summary."""

from __future__ import annotations

import math
from typing import Any


def fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return "–"
        if x != 0 and abs(x) < 10 ** -digits:
            return f"{x:.1e}"
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return str(x)


def pvalue(p: float | None) -> str:
    if p is None:
        return "–"
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


def score(s: dict[str, Any]) -> str:
    """`40.0% [23.1, 61.0]` for pass rates, `3.2 [2.1, 4.5]` for means."""
    if s["value"] is None:
        return "–"
    if s["mode"] == "pass":
        return f"{100 * s['value']:.1f}% [{100 * s['low']:.1f}, {100 * s['high']:.1f}]"
    sd = f" (SD {fmt(s['sd'])})" if s.get("sd") is not None else ""
    return f"{fmt(s['value'])} [{fmt(s['low'])}, {fmt(s['high'])}]{sd}"


def effect(e: dict[str, Any], mode: str) -> str:
    """An effect with its CI, in the unit a reader expects for the metric."""
    est, low, high = e["estimate"], e["low"], e["high"]
    if est is None:
        return "undefined (baseline sum is 0)"
    if e["statistic"] == "relative_reduction":
        return f"{est:+.1f}% fewer defects [{_signed(low, 1)}, {_signed(high, 1)}]"
    if mode == "pass":
        return f"{100 * est:+.1f} pp [{_signed(low, 1, 100)}, {_signed(high, 1, 100)}]"
    return f"{est:+.3g} [{_signed(low, 3)}, {_signed(high, 3)}]"


def _signed(x: float | None, digits: int, scale: float = 1.0) -> str:
    return "–" if x is None else f"{scale * x:+.{digits}f}"


def value(x: float | None, mode: str) -> str:
    """A trial's value as a reader says it: pass/fail, a defect count, a score."""
    if x is None:
        return "–"
    if mode == "pass":
        return "pass" if x else "fail"
    if mode == "defects":
        return f"{x:.0f} defect{'' if x == 1 else 's'}"
    return fmt(x)
