"""Plot of the Judged section (numbers["judged"], see judged.py): flag rate per rubric,
one bar per (arm, budget) group, one figure per rubric file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.report.figure import plt, save as _save


def flag_rates(b: dict[str, Any], path: Path) -> None:
    rubrics = b["rubrics"]
    arms = b["arms"]
    fig, ax = plt.subplots(figsize=(7, 0.32 * max(len(rubrics), 2) + 1.6))
    fig.subplots_adjust(left=0.36, right=0.97, top=0.93, bottom=0.08)
    height = 0.8 / max(len(arms), 1)
    for k, row in enumerate(arms):
        ys = [i + (k - (len(arms) - 1) / 2) * height for i in range(len(rubrics))]
        ax.barh(ys, [row["rates"][r] or 0.0 for r in rubrics], height=height,
                label=f"{row['arm']} @ {row['budget']} (n={row['n_judged']})")
    ax.set_yticks(range(len(rubrics)), [b["titles"][r] for r in rubrics], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of judged attempts flagged (lower is better)")
    ax.set_title(f"{b['name']} v{b['version']}: flag rate per rubric", fontsize=9)
    ax.grid(alpha=0.3, axis="x")
    if arms:
        ax.legend(fontsize=7, loc="lower right")
    _save(fig, path)


def draw_judged(judged: dict[str, Any] | None, assets: Path) -> list[dict[str, str]]:
    """Write the Judged plots under `assets`; their paths relative to it."""
    if not judged:
        return []
    out = []
    for i, b in enumerate(judged["behaviours"]):
        rel = f"plots/judged_rates_{i}.png"
        flag_rates(b, assets / rel)
        out.append({"src": rel, "alt": f"flag rate per rubric per arm, {b['name']}"})
    return out
