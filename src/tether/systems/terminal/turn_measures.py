"""Per-turn measures of the executed replies (the turn-level best-of-N paper's Figure 5).

For every turn with a chosen reply:
- `reasoning_tokens`: the reasoning tokens of the chosen candidate, as its provider
  counted them (`usage.reasoning_tokens`; a model that thinks in its visible text, e.g.
  inside `<think>`, reports 0 here: its thinking is output);
- `command_chars`: the characters of the chosen candidate's shell command (turns whose
  reply had a runnable command only).

Per (arm, budget): the mean over turns of the pick; for turns with several candidates,
the mean a uniform pick would have had (the mean over the turn's candidates); and against
the baseline arm, the difference of per-task means (turns pooled over seeds within a
task), with the paired bootstrap over tasks (`tether.stats.paired_bootstrap`) and its
p-value, as the paper tests it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from tether.stats import PairedObservation, paired_bootstrap

MEASURES = ("reasoning_tokens", "command_chars")


def _candidate_value(candidate: dict[str, Any], measure: str) -> float | None:
    if measure == "command_chars":
        command = candidate.get("command")
        return None if command is None else float(len(command))
    value = candidate.get("reasoning_tokens")
    return None if value is None else float(value)


def turn_values(turns: Sequence[dict[str, Any]], measure: str) -> list[tuple[float,
                                                                          float | None]]:
    """(the pick's value, the uniform pick's expected value or None) per counted turn."""
    out = []
    for turn in turns:
        candidates = turn.get("candidates") or []
        index = turn.get("selected_index", 0)
        if not candidates or not 0 <= index < len(candidates):
            continue
        picked = _candidate_value(candidates[index], measure)
        if picked is None:
            continue
        others = [v for c in candidates if (v := _candidate_value(c, measure)) is not None]
        out.append((picked, statistics.fmean(others) if len(candidates) > 1 else None))
    return out


def _per_task(group: Sequence[Any], measure: str) -> dict[str, float]:
    """Task -> mean pick value over the task's turns (every seed's)."""
    values: dict[str, list[float]] = {}
    for entry in group:
        turns = entry.record.extra.get("turn_records") or []
        values.setdefault(entry.key[0], []).extend(p for p, _ in turn_values(turns, measure))
    return {t: statistics.fmean(v) for t, v in values.items() if v}


def per_turn(group: Sequence[Any], baseline: Sequence[Any] | None) -> dict[str, Any]:
    """The measures of one (arm, budget) group, against its baseline group when given."""
    out: dict[str, Any] = {}
    for measure in MEASURES:
        pairs = [v for e in group
                 for v in turn_values(e.record.extra.get("turn_records") or [], measure)]
        if not pairs:
            continue
        uniform = [u for _, u in pairs if u is not None]
        row: dict[str, Any] = {"n_turns": len(pairs),
                               "picked": statistics.fmean(p for p, _ in pairs),
                               "uniform": statistics.fmean(uniform) if uniform else None,
                               "vs_baseline": None}
        if baseline is not None and baseline is not group:
            a, b = _per_task(baseline, measure), _per_task(group, measure)
            tasks = sorted(set(a) & set(b))
            if tasks:
                r = paired_bootstrap([PairedObservation(t, 0, a[t], b[t]) for t in tasks])
                row["vs_baseline"] = {"difference": r.estimate, "low": r.low, "high": r.high,
                                      "p_value": r.p_value, "n_tasks": len(tasks)}
        out[measure] = row
    return out
