"""Export a run's model calls as training data (`tether export`).

Formats (one JSON object a line):

- `chat-jsonl`, per call (default): one example per recorded model call, `messages` =
  what the model was sent plus the assistant message it answered with (text and native
  tool calls), OpenAI's chat fine-tuning shape. Per trajectory: one example per (trial,
  role), the role's *last* call (for a multi-turn agent its messages already hold the
  whole conversation) with its reply; where that call sampled several answers (turn-level
  best-of-N) the one the agent executed; of several attempts (trajectory best-of-N) the
  delivered one's (the trajectory selector's own call is not part of it).
- `preference`: TRL's conversational preference shape, `prompt` / `chosen` / `rejected`,
  one pair for every two iterations i < j of a keep-best loop (`LoopFacts.iteration_history`)
  where j ranks strictly above i on the task's metric: prompt = the messages of the call
  that wrote iteration i, rejected = its reply, chosen = the reply that wrote iteration j.

Every example has `metadata` beside the messages: trial id, task, strategy, arm, seed,
status, score, passed, role, model id, request hash. Nothing the model did not see or say
is put into `messages`: they are copied from the call records, never built from the
metric's observations, hidden checks or the verifier's output. The tool specs a call
offered are not in its record, so no `tools` key is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tether.core import AgentFacts, LoopFacts, TrialRecord, facts_of
from tether.models import CallRecord
from tether.runs.store import RunStore

Format = Literal["chat-jsonl", "preference"]
Per = Literal["call", "trajectory"]
FORMATS: tuple[str, ...] = ("chat-jsonl", "preference")

_MESSAGE: dict[str, Any] = {
    "type": "object",
    "required": ["role"],
    "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "content": {"type": ["string", "array", "null"]},
        "tool_calls": {"type": "array", "items": {
            "type": "object", "required": ["id", "type", "function"],
            "properties": {"id": {"type": "string"}, "type": {"const": "function"},
                           "function": {"type": "object", "required": ["name", "arguments"],
                                        "properties": {"name": {"type": "string"},
                                                       "arguments": {"type": "string"}}}}}},
        "tool_call_id": {"type": "string"},
    },
}
_ASSISTANT = {**_MESSAGE, "properties": {**_MESSAGE["properties"],
                                         "role": {"const": "assistant"}}}
_METADATA = {
    "type": "object",
    "required": ["trial_id", "task", "strategy", "arm", "seed", "status", "score", "passed"],
    "properties": {
        "trial_id": {"type": "string"}, "task": {"type": "string"},
        "strategy": {"type": "string"}, "arm": {"type": "string"},
        "seed": {"type": "integer"}, "status": {"type": "string"},
        "score": {"type": ["number", "null"]}, "passed": {"type": ["boolean", "null"]},
    },
}
#: one `chat-jsonl` line: the conversation ends with the model's own reply
CHAT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["messages", "metadata"],
    "additionalProperties": False,
    "properties": {
        "messages": {"type": "array", "minItems": 2, "items": _MESSAGE},
        "metadata": {**_METADATA, "required": [*_METADATA["required"], "role", "model_id",
                                               "request_hash", "per"]},
    },
}
#: one `preference` line (TRL's conversational preference format)
PREFERENCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["prompt", "chosen", "rejected", "metadata"],
    "additionalProperties": False,
    "properties": {
        "prompt": {"type": "array", "minItems": 1, "items": _MESSAGE},
        "chosen": {"type": "array", "minItems": 1, "maxItems": 1, "items": _ASSISTANT},
        "rejected": {"type": "array", "minItems": 1, "maxItems": 1, "items": _ASSISTANT},
        "metadata": {**_METADATA, "required": [*_METADATA["required"], "role", "model_id",
                                               "chosen_iteration", "rejected_iteration"]},
    },
}


@dataclass
class ExportCounts:
    """What an export wrote and what it left out, and why."""

    trials: int = 0
    examples: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n


def assistant_message(call: CallRecord) -> dict[str, Any]:
    """The model's reply as an assistant message: exactly its text and tool calls."""
    msg: dict[str, Any] = {"role": "assistant", "content": call.output}
    if call.tool_calls:
        msg["tool_calls"] = [dict(t) for t in call.tool_calls]
    return msg


def _metadata(record: TrialRecord) -> dict[str, Any]:
    spec = record.spec
    return {"trial_id": record.trial_id, "task": spec.task_key, "strategy": spec.strategy,
            "arm": spec.arm, "seed": spec.seed, "status": record.status,
            "score": record.score, "passed": record.passed}


def _call_example(record: TrialRecord, call: CallRecord, per: str) -> dict[str, Any]:
    return {"messages": [*(dict(m) for m in call.messages), assistant_message(call)],
            "metadata": {**_metadata(record), "role": call.role, "model_id": call.model_id,
                         "request_hash": call.request_hash,
                         "sample_index": call.sample_index, "per": per}}


def _executed_index(record: TrialRecord) -> int:
    """The sample the agent executed at its last turn (0 when nothing says otherwise)."""
    agent = facts_of(record.extra, AgentFacts)
    if agent is None or not agent.turn_records:
        return 0
    return int(agent.turn_records[-1].get("selected_index") or 0)


def _delivered_calls(record: TrialRecord) -> list[CallRecord]:
    """The calls of the delivered attempt: all of them, unless the trial made several
    attempts (`trajectory_bon` names the delivered one's slice, `calls` = [first, end))."""
    calls = record.extra.get("calls")
    if (isinstance(calls, list) and len(calls) == 2 and all(isinstance(i, int) for i in calls)
            and "attempts" in record.extra):
        return record.calls[calls[0]:calls[1]]
    return record.calls


def trajectory_calls(record: TrialRecord, roles: set[str] | None) -> list[CallRecord]:
    """Per role, the last call of the delivered attempt (the sample the agent executed,
    when the last request sampled several answers)."""
    out = []
    delivered = _delivered_calls(record)
    for role in dict.fromkeys(c.role for c in delivered):
        if roles is not None and role not in roles:
            continue
        calls = [c for c in delivered if c.role == role]
        last = [c for c in calls if c.messages == calls[-1].messages]
        wanted = _executed_index(record)
        out.append(next((c for c in last if c.sample_index == wanted), last[0]))
    return out


def _rank(row: dict[str, Any]) -> tuple[int, float]:
    """A pass beats a fail, then the higher score (KeepBest's order)."""
    return (int(bool(row.get("passed"))), float(row["score"]))


def iteration_calls(store: RunStore, record: TrialRecord,
                    history: list[dict[str, Any]], role: str) -> dict[int, CallRecord]:
    """history position -> the call whose reply holds that iteration's artifact.

    Calls are walked in order with the history: an artifact is found in the first later
    call of `role` whose reply contains its text (replies and iterations come in order).
    """
    calls = [c for c in record.calls if c.role == role]
    found: dict[int, CallRecord] = {}
    at = 0
    for pos, row in enumerate(history):
        text = store.artifact_text(row["artifact"]) if row.get("artifact") else None
        if not text or not text.strip():
            continue
        for j in range(at, len(calls)):
            if text.strip() in calls[j].output:
                found[pos], at = calls[j], j + 1
                break
    return found


def preference_pairs(store: RunStore, record: TrialRecord, role: str,
                     counts: ExportCounts) -> Iterator[dict[str, Any]]:
    loop = facts_of(record.extra, LoopFacts)
    if loop is None:
        counts.skip("not a loop trial")
        return
    history = loop.iteration_history
    calls = iteration_calls(store, record, history, role)
    scored = [p for p in range(len(history)) if history[p].get("score") is not None]
    unmatched = sum(1 for p in scored if p not in calls)
    if unmatched:
        counts.skip("iteration without a matching call", unmatched)
    usable = [p for p in scored if p in calls]
    for i in usable:
        for j in usable:
            if j <= i or _rank(history[j]) <= _rank(history[i]):
                continue
            rej, cho = calls[i], calls[j]
            yield {"prompt": [dict(m) for m in rej.messages],
                   "chosen": [assistant_message(cho)], "rejected": [assistant_message(rej)],
                   "metadata": {**_metadata(record), "role": role, "model_id": cho.model_id,
                                "chosen_iteration": history[j]["iteration"],
                                "rejected_iteration": history[i]["iteration"],
                                "chosen_score": history[j]["score"],
                                "rejected_score": history[i]["score"],
                                "chosen_request_hash": cho.request_hash,
                                "rejected_request_hash": rej.request_hash}}


def export_examples(store: RunStore, *, fmt: Format = "chat-jsonl", per: Per = "call",
                    only_passed: bool = False, roles: Iterable[str] | None = None,
                    counts: ExportCounts | None = None) -> Iterator[dict[str, Any]]:
    """The examples of a run, in trial order; `counts` (if given) tallies them."""
    counts = counts if counts is not None else ExportCounts()
    wanted = set(roles) if roles else None
    for record in store.trials():
        if record.status == "error":
            counts.skip("errored trial")
            continue
        if only_passed and not record.passed:
            counts.skip("not passed")
            continue
        counts.trials += 1
        if fmt == "preference":
            role_names = sorted(wanted) if wanted else ["proposer"]
            for role in role_names:
                for row in preference_pairs(store, record, role, counts):
                    counts.examples += 1
                    yield row
            continue
        calls = (trajectory_calls(record, wanted) if per == "trajectory"
                 else [c for c in record.calls if wanted is None or c.role in wanted])
        for call in calls:
            counts.examples += 1
            yield _call_example(record, call, per)


def write_jsonl(rows: Iterable[dict[str, Any]], path: Path) -> int:
    """Write rows one JSON object a line (written to a temporary file, then moved)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    tmp.replace(path)
    return n
