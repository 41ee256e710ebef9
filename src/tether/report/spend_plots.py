"""Score against spent tokens, one figure per arm (numbers["spend"], see spend.py).

Left: mean score per budget at the mean tokens a trial spent. Right: pass@k per budget
at k times those tokens (verdict metrics only). Token axes are logarithmic when the
points span more than a factor of 10.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tether.report.plots import _save, plt


def _log_if_wide(ax: Any, xs: list[float]) -> None:
    xs = [x for x in xs if x > 0]
    if xs and max(xs) > 10 * min(xs):
        ax.set_xscale("log")


def spend_plot(arm: str, rows: list[dict[str, Any]], path: Path) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    fig.subplots_adjust(left=0.08, right=0.98, top=0.86, bottom=0.15, wspace=0.25)
    pts = sorted((r for r in rows if r["score_mean"] is not None),
                 key=lambda r: r["tokens_mean"])
    if pts:
        left.plot([r["tokens_mean"] for r in pts], [r["score_mean"] for r in pts], marker="o")
        for r in pts:
            left.annotate(r["budget"], (r["tokens_mean"], r["score_mean"]),
                          textcoords="offset points", xytext=(4, 4), fontsize=7)
        _log_if_wide(left, [r["tokens_mean"] for r in pts])
    else:
        left.text(0.5, 0.5, "no scored trial", ha="center", va="center",
                  transform=left.transAxes)
    left.set_xlabel("mean tokens spent per trial")
    left.set_ylabel("mean score")
    left.set_title("mean score", fontsize=9)
    xs: list[float] = []
    for r in rows:
        if r["pass_at_k"]:
            ks = r["pass_at_k"]
            xs += [p["tokens"] for p in ks]
            right.plot([p["tokens"] for p in ks], [p["pass_at_k"] for p in ks], marker="o",
                       label=f"budget {r['budget']}")
    if xs:
        right.legend(fontsize=7, loc="best")
        _log_if_wide(right, xs)
    else:
        right.text(0.5, 0.5, "no verdicts", ha="center", va="center",
                   transform=right.transAxes)
    right.set_ylim(-0.03, 1.03)
    right.set_xlabel("tokens spent by k attempts (k x mean per trial)")
    right.set_ylabel("pass@k")
    right.set_title("pass@k, k = 1 .. seeds", fontsize=9)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.suptitle(f"{arm}: score against tokens spent", fontsize=10)
    _save(fig, path)


def _more_than_a_point(rows: list[dict[str, Any]]) -> bool:
    """An arm's figure is drawn when one of its panels has two points: scores at two
    budgets, or pass@k for k = 1 and 2 (two seeds) at some budget."""
    scored = sum(1 for r in rows if r["score_mean"] is not None)
    return scored >= 2 or any(len(r["pass_at_k"]) >= 2 for r in rows)


def draw_spend(spend: dict[str, Any] | None, assets: Path) -> dict[str, str]:
    """{arm: plot path relative to `assets`}, one figure per arm that has more than a
    single point to show."""
    out: dict[str, str] = {}
    if not spend:
        return out
    arms = list(dict.fromkeys(r["arm"] for r in spend["rows"]))
    for i, arm in enumerate(arms):
        if not _more_than_a_point([r for r in spend["rows"] if r["arm"] == arm]):
            continue
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", arm)[:40]
        rel = f"plots/spend_{i}_{slug}.png"
        spend_plot(arm, [r for r in spend["rows"] if r["arm"] == arm], assets / rel)
        out[arm] = rel
    return out





def spend_section(numbers: dict[str, Any], assets: Path, env: Any) -> str:
    """The Spend section's HTML (templates/spend.html.j2) with its plots drawn."""
    from tether.runs import fmt_usd

    if not numbers.get("spend"):
        return ""
    env.filters.setdefault("usd", fmt_usd)
    plots = draw_spend(numbers["spend"], assets)
    return env.get_template("spend.html.j2").render(n=numbers, spend_plots=plots,
                                                    assets=assets.name)
__all__ = ["draw_spend", "spend_plot", "spend_section"]
