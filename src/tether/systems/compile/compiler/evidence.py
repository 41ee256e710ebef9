"""Probe evidence: what the teacher learns about a harness from the probe split.

    report = probe_report(setting, probe_items, probe_score)

Gold labels are used here to diagnose probe items only (never validation or test).
Every failed probe item (score below 1) gets one stage, the first that explains it:

- `hook_error:HOOK` the route / parse / select_lines hook raised, timed out or broke the
  contract; `abstain` the route abstained; `verdict` a code verdict was wrong;
- `routing` the item hit the step limit;
- `parse` a gold answer is in the student's last reply but not in the parsed answer;
- `read` a gold answer was in a prompt the student saw, and the reply missed it;
- `pick` the harness made a pick call and the answer is wrong (the wrong candidate);
- `evidence` the student never saw a gold answer (nothing to read it from).

The report holds the probe mean, the stage counts, up to 30 failure traces stratified by
stage (round-robin over stages, items in split order), the abstention rate and, where the
harness picks (a call of a prompt named `pick` or `discriminate`), the pick precision:
the share of picked items, not abstained, that it answered right.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tether.systems.compile.compiler.scoring import SplitScore
from tether.systems.compile.setting import Item, Setting

__all__ = ["MAX_TRACES", "paired_traces", "probe_report", "stage_of", "trace_of"]

MAX_TRACES = 30
PICK_PROMPTS = ("pick", "discriminate")
_SHOWN_CHARS = 700
_REPLY_CHARS = 300


def _has(text: str, golds: Sequence[str]) -> bool:
    """A gold answer in `text` as a whole word (case-folded): "no" is not in "not"."""
    folded = text.casefold()
    return any(g.strip() and re.search(rf"(?<!\w){re.escape(g.strip().casefold())}(?!\w)",
                                       folded) for g in golds)


def stage_of(outcome: dict[str, Any], golds: Sequence[str]) -> str:
    """The stage that explains a failed item (see the module docstring)."""
    status = outcome.get("status")
    if status == "hook_error":
        return "hook_error:" + (outcome.get("error") or "hook").split(":", 1)[0]
    if status == "abstain":
        return "abstain"
    if status == "verdict":
        return "verdict"
    if outcome.get("step_limit"):
        return "routing"
    calls = outcome.get("calls") or []
    last = calls[-1]["reply"] if calls else ""
    if last and _has(last, golds):
        return "parse"
    if any(_has(text, golds) for text in outcome.get("shown") or []):
        return "read"
    if any(c.get("prompt") in PICK_PROMPTS for c in calls):
        return "pick"
    return "evidence"


def trace_of(item: Item, outcome: dict[str, Any], golds: Sequence[str], score: float | None,
             stage: str | None = None) -> dict[str, Any]:
    """One probe item as the teacher sees it (prompts and replies cut to a readable size)."""
    shown = outcome.get("shown") or []
    calls = []
    for i, call in enumerate(outcome.get("calls") or []):
        text = shown[i] if i < len(shown) else ""
        calls.append({"prompt": call.get("prompt"), "shown": _cut(text, _SHOWN_CHARS),
                      "reply": _cut(str(call.get("reply", "")), _REPLY_CHARS)})
    row = {"item_id": item.item_id, "question": item.question, "gold": list(golds),
           "answer": outcome.get("answer"), "status": outcome.get("status"),
           "score": score, "calls": calls}
    if stage is not None:
        row["stage"] = stage
    if outcome.get("error"):
        row["error"] = outcome["error"]
    return row


def probe_report(setting: Setting, items: Sequence[Item], probe: SplitScore) -> dict[str, Any]:
    """The probe report of one harness (see the module docstring)."""
    stages: Counter[str] = Counter()
    failures: dict[str, list[dict[str, Any]]] = {}
    picked = picked_right = abstained = 0
    for item in items:
        outcome = probe.outcomes.get(item.item_id)
        if outcome is None or outcome.get("status") == "infra_error":
            continue
        score = probe.scores.get(item.item_id)
        golds = setting.gold(item)
        abstained += outcome.get("status") == "abstain"
        if any(c.get("prompt") in PICK_PROMPTS for c in outcome.get("calls") or []):
            if outcome.get("status") != "abstain":
                picked += 1
                picked_right += bool(score is not None and score >= 1.0)
        if score is not None and score >= 1.0:
            continue
        stage = stage_of(outcome, golds)
        stages[stage] += 1
        failures.setdefault(stage, []).append(trace_of(item, outcome, golds, score, stage))
    scored = len(probe.scores)
    return {"hash": probe.hash, "score": probe.mean, "n": scored,
            "stages": dict(sorted(stages.items())),
            "abstention_rate": abstained / scored if scored else 0.0,
            "pick_precision": picked_right / picked if picked else None,
            "failures": _stratified(failures, MAX_TRACES)}


def _stratified(by_stage: dict[str, list[dict[str, Any]]], limit: int) -> list[dict[str, Any]]:
    """Round-robin over the stages (sorted), in split order within each stage."""
    queues = [list(rows) for _, rows in sorted(by_stage.items())]
    out: list[dict[str, Any]] = []
    while len(out) < limit and any(queues):
        for queue in queues:
            if queue and len(out) < limit:
                out.append(queue.pop(0))
    return out


def paired_traces(setting: Setting, items: Sequence[Item], before: SplitScore,
                  after: SplitScore, limit: int = 10) -> dict[str, Any]:
    """Probe items where two harnesses score differently: counts and up to `limit` pairs."""
    won = lost = 0
    pairs: list[dict[str, Any]] = []
    for item in items:
        a, b = before.scores.get(item.item_id), after.scores.get(item.item_id)
        if a is None or b is None or a == b:
            continue
        won += b > a
        lost += b < a
        if len(pairs) < limit:
            pairs.append({"item_id": item.item_id, "question": item.question,
                          "gold": setting.gold(item),
                          "before": {"answer": before.outcomes[item.item_id].get("answer"),
                                     "score": a},
                          "after": {"answer": after.outcomes[item.item_id].get("answer"),
                                    "score": b}})
    return {"before": before.hash, "after": after.hash, "won": won, "lost": lost,
            "pairs": pairs}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more]"
