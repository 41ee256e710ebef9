"""The headline of `tether demo`: the greedy single-shot draft against best-of-4 picked by
the visible checks, on tether's 28 bundled code tasks, scored by the hidden checks.

Why this pair (measured, docs/results.md "The demo's headline"): on SmolLM2-135M, samples
at T = 0.8 are mostly worse than the greedy draft and a loop's revisions from the checks'
failures rarely fix a program; best-of-4 that keeps the greedy draft as sample 0 and lets
the checks shown in the prompt pick among the draft and three samples at T = 0.4 (ties to
the draft) passes tasks the draft fails and cannot lose one whose draft passes every
visible check. The pick sees only the visible checks; the score is the hidden ones, run
in the sandbox. The draft is the same request in both arms (the trial's first call), so
the run's response cache generates it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from tether.core import TrialRecord
    from tether.runs import RunOutcome

__all__ = ["BASELINE", "CANDIDATE", "headline_config", "headline_numbers", "paired_table",
           "verdict", "why"]

BASELINE, CANDIDATE = "single_shot", "best_of_4"
#: every arm's reply is capped here (the bundled tasks' solutions are a few lines)
MAX_TOKENS = 400


def headline_config(spec: str, n_tasks: int | None, seed: int, sandbox: str) -> dict[str, Any]:
    """The demo experiment as a dict in the config schema (runs through `tether.run`)."""
    return {
        "name": "demo",
        "suites": ["code"],
        **({"limit": n_tasks} if n_tasks else {}),
        "strategies": [
            {"name": "single_shot", "label": BASELINE, "params": {"max_tokens": MAX_TOKENS}},
            {"name": "best_of_n", "label": CANDIDATE,
             "params": {"n": 4, "temperature": 0.4, "draft_temperature": 0.0,
                        "selector": "verifier", "verifier": "execution;checks=visible",
                        "tie_break": "first", "max_tokens": MAX_TOKENS}},
        ],
        "models": {"proposer": spec},
        "budgets": [2000],  # output tokens per trial: room for the four replies
        "seeds": [seed],
        "run": {"concurrency": 1, "sandbox": sandbox, "cache": "readwrite"},
    }


def verdict(r: TrialRecord | None) -> str:
    if r is None:
        return "-"
    if r.status == "error":  # why, in a line: the kind and the start of the message
        return f"[yellow]error[/] ({escape(why(r.error_kind, r.error_message))})"
    score = "" if r.score is None else f" ({r.score:.2f})"
    mark = "[green]pass[/]" if r.passed else "[red]fail[/]"
    return mark + score + ("" if r.status == "ok" else f" {r.status}")


def why(kind: str | None, message: str | None, width: int = 100) -> str:
    """An error in one short line: its kind, then its message cut to `width`."""
    text = " ".join((message or "").split())
    text = text if len(text) <= width else text[: width - 1] + "…"
    return ": ".join(x for x in (kind, text) if x) or "no reason recorded"


def _picked(r: TrialRecord | None) -> str:
    """Which sample the visible checks picked (0 is the greedy draft)."""
    if r is None or r.status == "error":
        return "-"
    index = r.extra.get("selected_index")
    return "-" if index is None else ("draft" if index == 0 else f"sample {index}")


def paired_table(records: list[TrialRecord]) -> Table:
    """Per task: the draft against best-of-4 on the hidden checks."""
    by_task: dict[str, dict[str, TrialRecord]] = {}
    for r in records:
        by_task.setdefault(r.spec.task_id, {})[r.spec.arm] = r
    table = Table(title="single-shot draft vs best-of-4 picked by the visible checks "
                        "(scored by the hidden checks, sandboxed)")
    for col in ("task", "single-shot", "best-of-4", "picked", "output tokens (ss / bo4)"):
        table.add_column(col)
    for task, arms in by_task.items():
        a, b = arms.get(BASELINE), arms.get(CANDIDATE)
        table.add_row(task, verdict(a), verdict(b), _picked(b),
                      f"{a.tokens('output') if a else '-'} / {b.tokens('output') if b else '-'}")
    return table


def headline_numbers(outcome: RunOutcome) -> dict[str, Any]:
    """What `tether demo --json` reports under `headline`."""
    pair = outcome.paired(BASELINE, CANDIDATE)
    arms = {a.label: a for a in outcome.arms}
    return {
        "baseline": BASELINE, "candidate": CANDIDATE, "pairs": pair.pairs,
        "improved": pair.improved, "regressed": pair.regressed, "p": pair.p,
        "pass_rate": {k: arms[k].pass_rate for k in (BASELINE, CANDIDATE) if k in arms},
        "interval": {k: _listed(arms[k].interval) for k in (BASELINE, CANDIDATE) if k in arms},
        "output_tokens": {k: arms[k].output_tokens for k in (BASELINE, CANDIDATE) if k in arms},
        "errors": {k: arms[k].errors for k in (BASELINE, CANDIDATE) if k in arms},
    }


def _listed(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else list(interval)


def _pct(rate: float | None, interval: list[float] | None) -> str:
    if rate is None or interval is None:
        return "-"
    return f"{100 * rate:.0f}% [{100 * interval[0]:.0f}, {100 * interval[1]:.0f}]"


def headline_lines(h: dict[str, Any]) -> list[str]:
    """The headline as it is printed: rates with intervals, the paired counts, and plainly
    whether the grounded arm gained."""
    rate, interval = h["pass_rate"], h["interval"]
    lines = [f"pass rate: single-shot {_pct(rate.get(BASELINE), interval.get(BASELINE))}, "
             f"best-of-4 {_pct(rate.get(CANDIDATE), interval.get(CANDIDATE))} "
             f"(95% Wilson intervals); {h['improved']} improved, {h['regressed']} regressed "
             f"of {h['pairs']} tasks, sign test p = {h['p']:.3g}"]
    if h["improved"] > h["regressed"]:
        lines.append(f"best-of-4 passed {h['improved']} task(s) the draft failed and lost "
                     f"{h['regressed']}; at this many tasks "
                     + ("that is unlikely to be chance (p < 0.05)." if h["p"] < 0.05 else
                        "chance is not ruled out (p >= 0.05)."))
    else:
        lines.append("no gain at this scale: best-of-4 did not pass more tasks than the "
                     "draft on this run (the measured seeds are in docs/results.md).")
    return lines
