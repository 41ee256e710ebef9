"""A tether run as Inspect AI eval logs, written through inspect_ai's own log API.

    paths = export_inspect_logs(store, "logs/")   # one .eval file per arm

Inspect logs one task with one model per file, so each arm of the run (a strategy label)
is one log; its samples are the arm's trials: sample id = the task key, epoch = the
trial's rank among that task's seeds (1-based). A sample holds:

- `input`: the messages of the trial's first model call (what the model was first
  sent); `messages`: the conversation over every call, each call's new messages then its
  reply (assistant messages name their model; a call's role is in their metadata);
- `output`: the delivered artifact's text (the last reply where there is none);
- `scores["tether"]`: the metric observation (value = its score; answer = the artifact;
  explanation = its defects; metadata: instrument, passed, aggregation);
- `model_usage`: tokens per model over every call (input, output, reasoning);
- `error`: an errored trial's error (never a score of 0: invariant 6).

The log's results hold the arm's mean metric score over scored trials (none when no
trial was scored: an all-error arm has no mean, never a mean of 0), its stats the usage
over the arm. Only the records are read: nothing is re-run or re-scored.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentImage,
    ContentText,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall

from tether.core import TrialRecord
from tether.models import CallRecord
from tether.runs import RunStore

__all__ = ["arm_log", "export_inspect_logs"]

#: the scorer name tether's metric appears under in every exported sample
SCORER = "tether"


def _content(content: Any) -> str | list[Any]:
    """OpenAI-style content (a string or parts) as Inspect content."""
    if content is None or isinstance(content, str):
        return content or ""
    parts: list[Any] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append(ContentText(text=str(part.get("text", ""))))
        elif kind == "image_url":
            url = part.get("image_url")
            parts.append(ContentImage(image=str(url.get("url") if isinstance(url, dict)
                                                else url)))
        else:  # a part Inspect has no type for is kept, as its JSON text
            parts.append(ContentText(text=json.dumps(part, sort_keys=True)))
    return parts


def _tool_calls(calls: Iterable[dict[str, Any]]) -> list[ToolCall]:
    out = []
    for call in calls:
        fn = call.get("function") or {}
        try:
            arguments = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = {"raw": fn.get("arguments")}
        out.append(ToolCall(id=str(call.get("id", "")), function=str(fn.get("name", "")),
                            arguments=arguments if isinstance(arguments, dict)
                            else {"value": arguments}))
    return out


def _message(msg: dict[str, Any], model: str | None = None) -> ChatMessage:
    role, content = msg.get("role"), _content(msg.get("content"))
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content, model=model,
                                    tool_calls=_tool_calls(msg.get("tool_calls") or [])
                                    or None)
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=msg.get("tool_call_id"))
    return ChatMessageUser(content=content)


def _reply(call: CallRecord) -> ChatMessageAssistant:
    return ChatMessageAssistant(content=call.output, model=call.model_id,
                                tool_calls=_tool_calls(call.tool_calls) or None,
                                metadata={"role": call.role, "sample_index": call.sample_index,
                                          "request_hash": call.request_hash,
                                          "cache_hit": call.cache_hit})


def _plain(msg: dict[str, Any]) -> tuple[Any, str]:
    return msg.get("role"), json.dumps(msg.get("content"), sort_keys=True)


def conversation(calls: list[CallRecord]) -> list[ChatMessage]:
    """Every call's new messages then its reply (reply messages carry the call's role
    and request hash in their metadata; history messages do not). Another sample of the
    request just shown adds only its reply; a call that continues the conversation shown
    so far (its messages start with it) adds only what is new; any other call (another
    role, a fresh prompt, a history that kept another sample) adds all of its messages."""
    shown: list[tuple[Any, str]] = []
    last_sent: list[tuple[Any, str]] | None = None
    out: list[ChatMessage] = []
    for call in calls:
        sent = [dict(m) for m in call.messages]
        plain = [_plain(m) for m in sent]
        if plain == last_sent:
            new: list[dict[str, Any]] = []
        elif shown and plain[:len(shown)] == shown:
            new = sent[len(shown):]
        else:
            new = sent
        out.extend(_message(m) for m in new)
        out.append(_reply(call))
        last_sent = plain
        shown = [*plain, _plain({"role": "assistant", "content": call.output})]
    return out


def _usage(calls: Iterable[CallRecord]) -> dict[str, ModelUsage]:
    totals: dict[str, ModelUsage] = {}
    for call in calls:
        u = totals.setdefault(call.model_id, ModelUsage())
        u.input_tokens += call.usage.input_tokens
        u.output_tokens += call.usage.output_tokens
        u.reasoning_tokens = (u.reasoning_tokens or 0) + call.usage.reasoning_tokens
        u.total_tokens += (call.usage.input_tokens + call.usage.output_tokens
                           + call.usage.reasoning_tokens)
    return totals


def _score(record: TrialRecord, answer: str | None) -> Score | None:
    metric = record.metric
    if metric is None or not metric.ok or record.score is None:
        return None
    explanation = "\n".join(f"{d.kind}: {d.message}" for d in metric.defects[:50]) \
        or ("passed" if metric.passed else "no defects reported")
    return Score(value=float(record.score), answer=answer, explanation=explanation,
                 metadata={"instrument": metric.instrument, "version": metric.version,
                           "passed": record.passed, "aggregation": metric.aggregation,
                           "higher_is_better": metric.higher_is_better,
                           "n_defects": len(metric.defects)})


def _sample(store: RunStore, record: TrialRecord, epoch: int) -> EvalSample:
    calls = record.calls
    text = store.artifact_text(record.artifact) if record.artifact else None
    delivered = text if text is not None else (calls[-1].output if calls else "")
    model = calls[-1].model_id if calls else "none"
    score = _score(record, text)
    error = None
    if record.status == "error":
        message = f"{record.error_kind or 'error'}: {record.error_message or ''}".strip()
        error = EvalError(message=message, traceback=message, traceback_ansi=message)
    spec = record.spec
    return EvalSample(
        id=spec.task_key, epoch=epoch,
        input=[_message(dict(m)) for m in calls[0].messages] if calls else "",
        target="", messages=conversation(calls),
        output=ModelOutput.from_content(model=model, content=delivered),
        scores={SCORER: score} if score is not None else None,
        model_usage=_usage(calls), error=error,
        total_time=record.wall_s or None,
        metadata={"trial_id": record.trial_id, "strategy": spec.strategy, "arm": spec.arm,
                  "seed": spec.seed, "status": record.status, "passed": record.passed,
                  "models": dict(spec.models)})


def arm_log(store: RunStore, arm: str, records: list[TrialRecord]) -> EvalLog:
    """The Inspect log of one arm's trials (see the module docstring)."""
    by_task: dict[str, list[TrialRecord]] = defaultdict(list)
    for r in records:
        by_task[r.spec.task_key].append(r)
    samples = []
    for task in sorted(by_task):
        for epoch, r in enumerate(sorted(by_task[task], key=lambda r: r.spec.seed), 1):
            samples.append(_sample(store, r, epoch))
    models = [c.model_id for r in records for c in r.calls]
    main = max(set(models), key=models.count) if models else "none"
    scored = [r.score for r in records if r.score is not None]
    metric = records[0].metric.instrument if records and records[0].metric else SCORER
    now = datetime.now(UTC).isoformat()
    spec = EvalSpec(created=now, task=arm,
                    dataset=EvalDataset(name=",".join(sorted({r.spec.suite for r in records})),
                                        samples=len(by_task)),
                    model=main, config=EvalConfig(epochs=max((len(v) for v in by_task.values()),
                                                             default=1)),
                    metadata={"tether_run": str(store.dir), "arm": arm})
    # an arm with no scored trial (all errored) has no mean: never a mean of 0
    mean = {"mean": EvalMetric(name="mean", value=sum(scored) / len(scored))} if scored else {}
    results = EvalResults(
        total_samples=len(samples), completed_samples=len(scored),
        scores=[EvalScore(name=SCORER, scorer=SCORER, metadata={"instrument": metric},
                          metrics=mean)])
    errors = sum(1 for r in records if r.status == "error")
    return EvalLog(status="success" if not errors else "error", eval=spec,
                   results=results, samples=samples,
                   stats=EvalStats(started_at=now, completed_at=now,
                                   model_usage=_usage(c for r in records for c in r.calls)),
                   error=None if not errors else EvalError(
                       message=f"{errors} of {len(records)} trials errored",
                       traceback="", traceback_ansi=""))


def _file_name(arm: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in arm)
    return f"{safe or 'arm'}.eval"


def export_inspect_logs(store: RunStore, out_dir: str | Path) -> list[Path]:
    """Write one Inspect `.eval` log per arm of the run into `out_dir`; their paths."""
    by_arm: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in store.trials():
        by_arm[record.spec.arm].append(record)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for arm in sorted(by_arm):
        path = out / _file_name(arm)
        write_eval_log(arm_log(store, arm, by_arm[arm]), str(path))
        paths.append(path)
    return paths
