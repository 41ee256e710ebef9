"""Plots of the Agents section (numbers["agents"], see agents.py), matplotlib Agg PNGs.

One line or box per (arm, budget) group: pass@k and consistency@k against k, turns
per attempt, and the selector's behaviour preference with its bootstrap CI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.report import plt, save as _save


def _name(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The arm, with its budget when some arm ran at several budgets."""
    budgets = {r["budget"] for r in rows}
    return row["arm"] if len(budgets) == 1 else f"{row['arm']} @ {row['budget']}"


def at_k_curve(rows: list[dict[str, Any]], key: str, title: str, path: Path) -> None:
    """`key` (pass_at_k or consistency_at_k) against k, one line per group."""
    fig, ax = plt.subplots(figsize=(6, 4))
    fig.subplots_adjust(left=0.12, right=0.97, top=0.9, bottom=0.13)
    ks: set[int] = set()
    for row in rows:
        pts = row["across_seeds"]
        if pts:
            ks |= {p["k"] for p in pts}
            ax.plot([p["k"] for p in pts], [p[key] for p in pts], marker="o",
                    label=_name(row, rows))
    if ks:
        ax.set_xticks(sorted(ks))
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no scored trial", ha="center", va="center", transform=ax.transAxes)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("k (seeds per task)")
    ax.set_ylabel(key.replace("_at_", "@"))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    _save(fig, path)


def turns_box(rows: list[dict[str, Any]], path: Path) -> None:
    """Turns per attempt: a box per group with every attempt drawn as a dot."""
    fig, ax = plt.subplots(figsize=(6, 4))
    fig.subplots_adjust(left=0.12, right=0.97, top=0.9, bottom=0.2)
    data = [row["turns"]["values"] for row in rows]
    positions = [i + 1 for i, d in enumerate(data) if d]
    if positions:
        ax.boxplot([d for d in data if d], positions=positions, widths=0.5,
                   showfliers=False)
        for i, d in enumerate(data):
            if d:
                jitter = [(j % 7 - 3) * 0.03 for j in range(len(d))]
                ax.scatter([i + 1 + x for x in jitter], d, s=12, alpha=0.6)
    else:
        ax.text(0.5, 0.5, "no turns recorded", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_xticks(range(1, len(rows) + 1), [_name(r, rows) for r in rows], rotation=15,
                  fontsize=8)
    ax.set_ylabel("turns per attempt")
    ax.set_title("Turns per attempt")
    ax.grid(alpha=0.3, axis="y")
    _save(fig, path)


def preference_bars(row: dict[str, Any], title: str, path: Path) -> None:
    """Preference (picked minus uniform share) per label, whiskers = the bootstrap CI."""
    prefs = row["preferences"]
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * max(len(prefs), 2) + 1.2))
    fig.subplots_adjust(left=0.3, right=0.97, top=0.85, bottom=0.18)
    ys = range(len(prefs))
    vals = [p["preference"] for p in prefs]
    lo = [max(0.0, p["preference"] - p["low"]) for p in prefs]
    hi = [max(0.0, p["high"] - p["preference"]) for p in prefs]
    colors = ["#2ca02c" if v >= 0 else "#d62728" for v in vals]
    ax.barh(list(ys), vals, xerr=[lo, hi], color=colors, alpha=0.8, capsize=3)
    ax.set_yticks(list(ys), [p["title"] for p in prefs], fontsize=8)
    ax.axvline(0, color="black", lw=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("picked share − uniform-pick share")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, axis="x")
    _save(fig, path)


def draw_agents(agents: dict[str, Any] | None, assets: Path) -> dict[str, Any]:
    """Write the Agents plots under `assets`; paths relative to it (empty if no agents)."""
    if not agents:
        return {}
    rows = agents["rows"]
    out: dict[str, Any] = {"pass_at_k": "plots/agents_pass_at_k.png",
                           "consistency_at_k": "plots/agents_consistency_at_k.png",
                           "turns": "plots/agents_turns.png", "preferences": []}
    at_k_curve(rows, "pass_at_k", "pass@k (unbiased, mean over tasks)",
               assets / out["pass_at_k"])
    at_k_curve(rows, "consistency_at_k", "consistency@k (tasks passed in ≥ k seeds)",
               assets / out["consistency_at_k"])
    turns_box(rows, assets / out["turns"])
    for i, row in enumerate(rows):
        if row["preferences"]:
            rel = f"plots/agents_preference_{i}.png"
            preference_bars(row, f"Selector preference: {_name(row, rows)} "
                                 f"({int(100 * agents['ci'])}% CI)", assets / rel)
            out["preferences"].append({"arm": _name(row, rows), "src": rel})
    return out
