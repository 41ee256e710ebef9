"""The report's plots, drawn with matplotlib's Agg backend into PNG files.

Each function takes the report numbers (see data.py) and a target path, and writes
one figure. Budgets are a categorical axis (ascending, `unlimited` last) so a
strategy run at a single budget still shows as a point on the scaling curve. No plot is
drawn that would show a single point (`draw_all`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from tether.report.figure import plt, save as _save
from tether.report.paired import per_task_means
from tether.report.values import budget_sort_key


def _score_axis_label(metric: dict[str, Any]) -> str:
    return f"{metric['label']} ({metric['direction']})"


def scaling_curve(numbers: dict[str, Any], path: Path) -> None:
    """Score against budget, one line per arm, 95% CI as error bars.

    An arm run at a single budget while others ran at several (single-shot, usually)
    is drawn as a horizontal reference line with its CI as a band.
    """
    rows = numbers["summary"]
    budgets = sorted({r["budget"] for r in rows}, key=budget_sort_key)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    fig.subplots_adjust(left=0.11, right=0.97, top=0.91, bottom=0.13)
    arms = list(dict.fromkeys(r["arm"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, arm in enumerate(arms):
        color = colors[i % len(colors)]
        pts = [r for r in rows if r["arm"] == arm and r["score"]["value"] is not None]
        pts.sort(key=lambda r: budget_sort_key(r["budget"]))
        if not pts:
            continue
        if len(pts) == 1 and len(budgets) > 1:
            s = pts[0]["score"]
            ax.axhline(s["value"], color=color, ls="--", lw=1.5,
                       label=f"{arm} (budget {pts[0]['budget']})")
            if s["low"] is not None and s["high"] is not None:
                ax.axhspan(s["low"], s["high"], color=color, alpha=0.12)
            continue
        xs = [budgets.index(r["budget"]) + (i - (len(arms) - 1) / 2) * 0.04 for r in pts]
        ys = [r["score"]["value"] for r in pts]
        lo = [max(0.0, y - (r["score"]["low"] if r["score"]["low"] is not None else y))
              for y, r in zip(ys, pts, strict=True)]
        hi = [max(0.0, (r["score"]["high"] if r["score"]["high"] is not None else y) - y)
              for y, r in zip(ys, pts, strict=True)]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=arm, color=color)
    ax.set_xticks(range(len(budgets)), budgets)
    ax.set_xlim(-0.5, len(budgets) - 0.5)
    ax.set_xlabel("token budget per trial")
    ax.set_ylabel(_score_axis_label(numbers["metric"]))
    ax.set_title("Score vs budget (95% CI)")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no scored trial", ha="center", va="center", transform=ax.transAxes)
    _save(fig, path)


def paired_dots(row: dict[str, Any], metric: dict[str, Any], path: Path) -> None:
    """One dot per task: baseline mean (x) against the arm's mean (y) over seeds.

    Identical points are merged and drawn larger, with their count written beside.
    """
    points = Counter((round(a, 6), round(b, 6)) for _, a, b in per_task_means(row["pairs"]))
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    fig.subplots_adjust(left=0.15, right=0.95, top=0.91, bottom=0.12)
    if points:
        xs, ys = zip(*points, strict=True)
        sizes = [45 + 35 * (c - 1) for c in points.values()]
        ax.scatter(xs, ys, s=sizes, alpha=0.7, color="#1f77b4", edgecolors="black",
                   linewidths=0.5)
        for (x, y), c in points.items():
            if c > 1:
                ax.annotate(str(c), (x, y), textcoords="offset points", xytext=(6, 4),
                            fontsize=8)
        lo = min(min(xs), min(ys))
        hi = max(max(xs), max(ys))
        pad = max(0.05, (hi - lo) * 0.08)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], "--", color="gray", lw=1)
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
    better = "above" if metric["direction"] == "higher is better" else "below"
    ax.set_xlabel(f"{row['baseline']} @ {row.get('baseline_budget', row['budget'])}")
    ax.set_ylabel(f"{row['arm']} @ {row['budget']}")
    ax.set_title(f"Per task ({metric['label']}); better is {better} the diagonal", fontsize=9)
    ax.grid(alpha=0.3)
    _save(fig, path)


def tokens_vs_score(numbers: dict[str, Any], path: Path) -> None:
    """Mean tokens per trial (all kinds) against score, one point per (arm, budget)."""
    rows = [r for r in numbers["summary"] if r["score"]["value"] is not None]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    fig.subplots_adjust(left=0.11, right=0.97, top=0.91, bottom=0.12)
    for arm in dict.fromkeys(r["arm"] for r in rows):
        pts = sorted((r for r in rows if r["arm"] == arm), key=lambda r: r["tokens_mean"])
        ax.plot([r["tokens_mean"] for r in pts], [r["score"]["value"] for r in pts],
                marker="o", label=arm)
        for r in pts:
            ax.annotate(r["budget"], (r["tokens_mean"], r["score"]["value"]),
                        textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("mean tokens per trial (input + output + reasoning)")
    ax.set_ylabel(_score_axis_label(numbers["metric"]))
    ax.set_title("Tokens vs score")
    ax.grid(alpha=0.3)
    if rows:
        ax.legend(fontsize=8, loc="best")
    _save(fig, path)


def has_a_curve(numbers: dict[str, Any]) -> bool:
    """The scaling curve is drawn when some arm has a score at two budgets or more."""
    budgets = Counter(r["arm"] for r in numbers["summary"] if r["score"]["value"] is not None)
    return any(n >= 2 for n in budgets.values())


def has_two_points(numbers: dict[str, Any]) -> bool:
    """Tokens vs score is drawn when two (arm, budget) groups have a score."""
    return sum(1 for r in numbers["summary"] if r["score"]["value"] is not None) >= 2


def dots_say_more(row: dict[str, Any], metric: dict[str, Any]) -> bool:
    """Paired dots are drawn when they show two distinct points or more, and, for pass
    rates, some task's mean over seeds lies between 0 and 1: verdicts that are all 0 or
    1 fall on four corners, which the per-task table shows exactly."""
    points = {(round(a, 6), round(b, 6)) for _, a, b in per_task_means(row["pairs"])}
    if len(points) < 2:
        return False
    return metric["mode"] != "pass" or any(v not in (0.0, 1.0) for pt in points for v in pt)


def draw_all(numbers: dict[str, Any], assets: Path) -> dict[str, Any]:
    """Write the run's plots under `assets`; returns their paths relative to `assets`,
    `None` for a plot not drawn because it would show a single point (or, for paired pass
    verdicts, only the four corners), and `drawn`: whether any was (the sections draw
    their own: report/section.py)."""
    out: dict[str, Any] = {"scaling": None, "tokens": None,
                           "paired": [], "within_trial": [], "compare": []}
    if has_a_curve(numbers):
        out["scaling"] = "plots/scaling.png"
        scaling_curve(numbers, assets / out["scaling"])
    if has_two_points(numbers):
        out["tokens"] = "plots/tokens.png"
        tokens_vs_score(numbers, assets / out["tokens"])
    sections = [("paired", numbers["paired"]), ("within_trial", numbers["within_trial"]),
                ("compare", (numbers["compare"] or {}).get("paired", []))]
    for name, rows in sections:
        for i, row in enumerate(rows):
            rel = None
            if dots_say_more(row, numbers["metric"]):
                rel = f"plots/{name}_{i}.png"
                paired_dots(row, numbers["metric"], assets / rel)
            out[name].append(rel)
    out["drawn"] = bool(out["scaling"] or out["tokens"]
                        or any(rel for name, _ in sections for rel in out[name]))
    return out
