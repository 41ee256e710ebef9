"""What a run did, in numbers the CLI prints (table or JSON) when it ends.

Plain counts and means only: confidence intervals and paired tests are the
report's (`tether report`). Errored trials are counted apart and excluded from
pass rates and mean scores (invariant 6): an infrastructure failure is not a fail.
So are trials that ended normally with no answer to score (`TrialRecord.unscored`, e.g.
a scene loop that delivered nothing renderable): `invalid`, never `ok`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.markup import escape
from rich.table import Table

from tether.core import END_STATES, TrialRecord
from tether.models import PriceBook
from tether.runs.costs import arm_cost, fmt_usd


def _models_label(models: dict[str, str], labels: dict[str, str]) -> str:
    # a run with no proposer (a compile's: only its student) is named by its one model
    only = next(iter(models.values())) if len(models) == 1 else "?"
    return labels.get(_key(models), models.get("proposer", only))


def _key(models: dict[str, str]) -> str:
    return ";".join(f"{r}={s}" for r, s in sorted(models.items()))


def model_labels(resolved: dict[str, Any]) -> dict[str, str]:
    """{canonical role map: label} of the configurations in a resolved config."""
    out = {}
    for m in resolved.get("models", []):
        roles = {k: v for k, v in m.items() if k != "label"}
        out[_key(roles)] = m.get("label", "")
    return out


def arm_rows(records: list[TrialRecord], resolved: dict[str, Any],
             book: PriceBook | None = None) -> list[dict[str, Any]]:
    """One row per (models, arm, budget) in first-seen order; `cost_usd` is None unless
    every call of the row has a known cost in `book`, and for a row whose trials all
    errored (tether.runs.costs.arm_cost); `priced` says whether the run has prices at
    all (a priced run shows its unknown costs as `-`)."""
    labels = model_labels(resolved)
    groups: dict[tuple[str, str, str], list[TrialRecord]] = {}
    for r in records:
        key = (_models_label(r.spec.models, labels), r.spec.arm, r.spec.budget.label)
        groups.setdefault(key, []).append(r)
    rows = []
    for (models, arm, budget), recs in groups.items():
        counts = Counter("invalid" if r.status == "ok" and r.unscored else r.status
                         for r in recs)
        judged = [r for r in recs if r.passed is not None]
        scores = [r.score for r in recs if r.score is not None]
        rows.append({
            "models": models, "arm": arm, "budget": budget, "trials": len(recs),
            **{s: counts.get(s, 0) for s in END_STATES}, "invalid": counts.get("invalid", 0),
            "judged": len(judged), "passed": sum(1 for r in judged if r.passed),
            "pass_rate": (sum(1 for r in judged if r.passed) / len(judged)) if judged else None,
            "mean_score": (sum(scores) / len(scores)) if scores else None,
            "output_tokens": sum(r.tokens("output") + r.tokens("reasoning") for r in recs),
            "input_tokens": sum(r.tokens("input") for r in recs),
            "calls": sum(len(r.calls) for r in recs),
            "wall_s": round(sum(r.wall_s for r in recs), 3),
            "cost_usd": arm_cost(recs, book) if book else None,
            "priced": bool(book),
        })
    return rows


def _fmt(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def arm_table(rows: list[dict[str, Any]], title: str) -> Table:
    show_models = len({r["models"] for r in rows}) > 1
    show_cost = any(r.get("cost_usd") is not None or r.get("priced") for r in rows)
    show_invalid = any(r.get("invalid") for r in rows)
    table = Table(title=title)
    cols = (["models"] if show_models else []) + [
        "arm", "budget", "trials", "ok"] + (["invalid"] if show_invalid else []) + [
        "error", "other end", "pass rate", "mean score", "out tokens", "calls"] + (
        ["cost"] if show_cost else [])
    for c in cols:
        table.add_column(c, justify="left" if c in ("models", "arm") else "right")
    for r in rows:
        invalid = r.get("invalid", 0)
        other = r["trials"] - r["ok"] - invalid - r["error"]
        # arm labels and model specs are the user's text: brackets in them print as they are
        cells = ([escape(r["models"])] if show_models else []) + [
            escape(r["arm"]), escape(r["budget"]), str(r["trials"]), str(r["ok"])] + (
            [f"[yellow]{invalid}[/]" if invalid else "0"] if show_invalid else []) + [
            f"[red]{r['error']}[/]" if r["error"] else "0", str(other),
            _fmt(r["pass_rate"], pct=True), _fmt(r["mean_score"]), str(r["output_tokens"]),
            str(r["calls"])] + ([fmt_usd(r.get("cost_usd"))] if show_cost else [])
        table.add_row(*cells)
    return table


def by_status(records: list[TrialRecord]) -> dict[str, int]:
    counts = Counter(r.status for r in records)
    return {s: counts.get(s, 0) for s in END_STATES if counts.get(s, 0)} | {
        s: n for s, n in counts.items() if s not in END_STATES}
