"""One student scoring as a trial record: (item, harness or baseline, student, seed).

    scoring = Scoring.of_harness(harness, "validation", bare_hash=bare.hash)
    spec = scoring.spec(task, student="local/smollm2-135m", seed=0)
    record, artifact = scoring_record(spec, index, row, calls, setting, item)
    row = row_of(record)                       # what the scorer reads back

Each item a compile scores is one trial of its run directory, so what works on runs works
on a compile's scorings: the paired report, rescoring, exports. Its spec names
- the task: the item of its split, as `harness-SETTING:SPLIT` suites name it (the same
  task a `tether run` on that suite has, so the metric is the same instrument);
- the strategy and its params: `compiled_harness` with `{"harness": HASH}` (and the
  `intervention`, where one is applied), or the baseline (`cot_vote`, `student_routed`)
  with `{"baseline": KEY}`; a search of its own (GEPA's) adds `{"search": "gepa0"}`, so
  its scores are its own, as they always were;
- the student's model spec, the compile's seed, and a label (the report's arm): `bare`,
  `harness HASH12[+INTERVENTION]`, the baseline's name, or `gepa0 harness HASH12`.

The record's metric is the `harness_answer` observation of the answer
(systems/compile/instrument.py: the setting's metric; a hook error scores 0). An item the
student's endpoint or the sandbox failed on is an `error` trial (never scored). An item an
intervention does not apply to is kept as an unscored trial (`valid` false, the reason in
`na`), never a 0; so is a deployment's row with no gold (`unlabelled`: its answer
is kept as the artifact). The row the scorer works with (the item's outcome, tokens,
score) is in the facts, so `row_of` reads it back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tether.core import Artifact, Task, TrialRecord, TrialSpec
from tether.models import CallRecord, Usage
from tether.systems.compile.harness import Harness
from tether.systems.compile.metric import answer_observation
from tether.systems.compile.setting import Item, Setting
from tether.systems.compile.student import STUDENT_ROLE

__all__ = ["HARNESS_STRATEGY", "Scoring", "row_of", "scoring_record"]

HARNESS_STRATEGY = "compiled_harness"


@dataclass(frozen=True)
class Scoring:
    """What a split's items are scored with (see the module docstring)."""

    split: str
    #: the scores' key: the harness hash, HASH+INTERVENTION, or the baseline's key
    key: str
    strategy: str
    params: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    #: "" for the compile's own scores; a search's name (gepa0) for its own
    scope: str = ""

    @classmethod
    def of_harness(cls, harness: Harness, split: str, *, bare_hash: str,
                   intervention: str | None = None, scope: str = "") -> Scoring:
        key = harness.hash if intervention is None else f"{harness.hash}+{intervention}"
        label = "bare" if harness.hash == bare_hash and intervention is None else (
            f"harness {harness.hash[:12]}" + (f"+{intervention}" if intervention else ""))
        params: dict[str, Any] = {"harness": harness.hash}
        if intervention is not None:
            params["intervention"] = intervention
        if scope:
            params["search"] = scope
            label = f"{scope} {label}"
        return cls(split, key, HARNESS_STRATEGY, params, label, scope)

    @classmethod
    def of_baseline(cls, name: str, key: str, split: str) -> Scoring:
        return cls(split, key, name, {"baseline": key}, name)

    def spec(self, task: Task, *, student: str, seed: int) -> TrialSpec:
        return TrialSpec(suite=task.suite, task_id=task.id, strategy=self.strategy,
                         strategy_params=dict(self.params), models={STUDENT_ROLE: student},
                         seed=seed, label=self.label)

    def where(self, item_id: str) -> dict[str, str]:
        """What a student call's record says it was made for."""
        return {"split": self.split, "key": self.key, "item_id": item_id,
                **({"scope": self.scope} if self.scope else {})}


def scoring_record(scoring: Scoring, spec: TrialSpec, index: int, row: dict[str, Any],
                   calls: list[CallRecord], setting: Setting, item: Item,
                   *, modality: str, wall_s: float = 0.0
                   ) -> tuple[TrialRecord, Artifact | None]:
    """The trial record of one scored item (`row`: the scorer's row of it) and the
    answer artifact it delivered (None when the item was not run to an answer)."""
    outcome = dict(row["outcome"])
    status = str(outcome.get("status"))
    spend = Usage()
    for call in calls:
        spend = spend + call.usage
    facts: dict[str, Any] = {
        "split": scoring.split, "key": scoring.key, "scope": scoring.scope,
        "setting": setting.name, "item_id": item.item_id, "outcome": status,
        "item_outcome": outcome, "tokens": int(row["tokens"]),
        "student_modality": modality, "student_calls": len(calls),
        "student_output_tokens": int(row["tokens"]),
        "step_limit": bool(outcome.get("step_limit"))}
    if scoring.strategy == HARNESS_STRATEGY:
        facts.update(harness_hash=scoring.params["harness"], harness_source="compile",
                     intervention=scoring.params.get("intervention"))
        if status == "hook_error":
            facts["hook_error"] = outcome.get("error")
    base: dict[str, Any] = {"trial_id": spec.trial_id, "index": index, "spec": spec,
                            "calls": calls, "spend": {STUDENT_ROLE: spend} if calls else {},
                            "wall_s": wall_s}
    if row.get("na") is not None:  # the intervention does not apply: never scored
        facts.update(valid=False, na=str(row["na"]))
        return TrialRecord(status="ok", extra=facts, **base), None
    if status == "infra_error":  # the endpoint or the sandbox failed: never scored
        return TrialRecord(status="error", error_kind="infra_error",
                           error_message=str(outcome.get("error") or ""), extra=facts,
                           **base), None
    if status == "metric_error":  # a user's metric failed on this answer: never scored
        return TrialRecord(status="error", error_kind="metric_error",
                           error_message=str(outcome.get("error") or ""), extra=facts,
                           **base), None
    answer = outcome.get("answer")
    artifact = Artifact(kind="text", text=answer or "",
                        meta={"status": status, "key": scoring.key})
    if row.get("unlabelled"):  # no gold: the answer kept, never scored (nor read as 0)
        facts.update(valid=False, unlabelled=True)
        return TrialRecord(status="ok", artifact=artifact.digest,
                           artifact_kind=artifact.kind, extra=facts, **base), artifact
    # the row's score is the metric's, taken once (a user's metric runs in a process)
    known = row.get("score")
    metric = answer_observation(setting, item, answer or "", hook_error=status == "hook_error",
                                score=None if known is None else float(known))
    return TrialRecord(status="ok", artifact=artifact.digest, artifact_kind=artifact.kind,
                       metric=metric, extra=facts, **base), artifact


def row_of(record: TrialRecord) -> dict[str, Any]:
    """The scorer's row of a scored item, read back from its trial record."""
    facts = record.extra
    row: dict[str, Any] = {"item_id": facts["item_id"], "tokens": int(facts["tokens"]),
                           "outcome": dict(facts["item_outcome"]),
                           "score": None if record.status == "error" else record.score}
    if facts.get("na") is not None:
        row.update(score=None, na=str(facts["na"]))
    if facts.get("unlabelled"):
        row.update(score=None, unlabelled=True)
    return row
