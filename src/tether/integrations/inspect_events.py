"""A trial's transcript as Inspect events: one model event per call, scores as they came.

Only what the store recorded is shown, at the times it recorded:

- one `ModelEvent` per call (its role, the messages it was sent, its sampling parameters,
  its reply, usage and latency; `cache="read"` for a cache hit), at the call's start,
  completed `latency_s` later;
- consecutive calls of one role inside a span named by the role (type `agent`), so a
  reviewed trial reads proposer, reviewer, proposer...;
- one intermediate `ScoreEvent` per scored iteration of a loop (the trial's
  `iteration_history`), at the time the loop scored it, then the final metric score
  (not intermediate) as the trial ends;
- an `ErrorEvent` at the end of an errored trial.

A record written before tether kept start times (`started_at` None) has no events: no
time is invented for it. Its messages, scores and usage are exported all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from inspect_ai.event import (
    ErrorEvent,
    Event,
    ModelEvent,
    ScoreEvent,
    SpanBeginEvent,
    SpanEndEvent,
)
from inspect_ai.log import EvalError
from inspect_ai.model import ChatCompletionChoice, GenerateConfig, ModelOutput, ModelUsage
from inspect_ai.scorer import Score

from tether.core import TrialRecord
from tether.integrations.inspect_messages import message, reply, role_of
from tether.models import CallRecord


def utc(ts: float) -> datetime:
    """A recorded Unix time as an aware UTC datetime."""
    return datetime.fromtimestamp(ts, UTC)


def iso(ts: float | None) -> str | None:
    return None if ts is None else utc(ts).isoformat()


def call_usage(call: CallRecord) -> ModelUsage:
    u = call.usage
    return ModelUsage(input_tokens=u.input_tokens, output_tokens=u.output_tokens,
                      reasoning_tokens=u.reasoning_tokens,
                      total_tokens=u.input_tokens + u.output_tokens + u.reasoning_tokens)


def sum_usage(calls: Iterable[CallRecord], key: Callable[[CallRecord], str]
              ) -> dict[str, ModelUsage]:
    """Usage summed per `key(call)` (the model id, or the role)."""
    totals: dict[str, ModelUsage] = {}
    for call in calls:
        one = call_usage(call)
        u = totals.setdefault(key(call), ModelUsage())
        u.input_tokens += one.input_tokens
        u.output_tokens += one.output_tokens
        u.reasoning_tokens = (u.reasoning_tokens or 0) + (one.reasoning_tokens or 0)
        u.total_tokens += one.total_tokens
    return totals


def trial_end(record: TrialRecord) -> float | None:
    return None if record.started_at is None else record.started_at + record.wall_s


def _config(params: dict[str, Any]) -> GenerateConfig:
    stop = params.get("stop")
    return GenerateConfig(max_tokens=params.get("max_tokens"),
                          temperature=params.get("temperature"), top_p=params.get("top_p"),
                          seed=params.get("seed"),
                          stop_seqs=list(stop) if isinstance(stop, list | tuple) and stop
                          else ([stop] if isinstance(stop, str) else None),
                          reasoning_tokens=params.get("thinking_budget"))


def model_event(call: CallRecord, t0: float, span_id: str | None) -> ModelEvent:
    """The call as Inspect's model event (`call.started_at` must be known)."""
    assert call.started_at is not None
    output = ModelOutput(model=call.model_id, time=call.latency_s, usage=call_usage(call),
                         choices=[ChatCompletionChoice(message=reply(call),
                                                       stop_reason="unknown")])
    return ModelEvent(
        timestamp=utc(call.started_at), working_start=call.started_at - t0, span_id=span_id,
        model=call.model_id, role=call.role, input=[message(dict(m)) for m in call.messages],
        tools=[], tool_choice="auto" if call.params.get("tool_choice") else "none",
        config=_config(call.params), output=output, cache="read" if call.cache_hit else None,
        completed=utc(call.started_at + call.latency_s), working_time=call.latency_s,
        metadata={"request_hash": call.request_hash, "sample_index": call.sample_index})


def _spans(calls: list[CallRecord], t0: float) -> list[tuple[float, Event]]:
    """Model events grouped into role spans, each with its time (for ordering)."""
    timed = [c for c in calls if c.started_at is not None]
    out: list[tuple[float, Event]] = []
    group: list[CallRecord] = []

    def close() -> None:
        if not group:
            return
        first, last = group[0], group[-1]
        assert first.started_at is not None and last.started_at is not None
        span = f"{role_of(first)}-{len(out)}"
        begin, end = first.started_at, max(c.started_at + c.latency_s for c in group
                                           if c.started_at is not None)
        out.append((begin, SpanBeginEvent(id=span, name=role_of(first), type="agent",
                                          timestamp=utc(begin), working_start=begin - t0)))
        out.extend((c.started_at, model_event(c, t0, span)) for c in group
                   if c.started_at is not None)
        out.append((end, SpanEndEvent(id=span, timestamp=utc(end), working_start=end - t0)))
        group.clear()

    for call in timed:
        if group and role_of(call) != role_of(group[-1]):
            close()
        group.append(call)
    close()
    return out


def _scores(record: TrialRecord, final: Score | None, t0: float) -> list[tuple[float, Event]]:
    out: list[tuple[float, Event]] = []
    for step in record.extra.get("iteration_history") or []:
        at = step.get("scored_at")
        if not isinstance(at, int | float) or step.get("score") is None:
            continue  # an iteration with no score, or one recorded before its time was kept
        score = Score(value=float(step["score"]), explanation=f"iteration {step['iteration']}",
                      metadata={k: step.get(k) for k in ("iteration", "passed", "status")})
        out.append((at, ScoreEvent(score=score, intermediate=True, timestamp=utc(at),
                                   working_start=at - t0)))
    end = trial_end(record)
    if final is not None and end is not None:  # the trial's score is known as it ends
        out.append((end, ScoreEvent(score=final, timestamp=utc(end), working_start=end - t0)))
    return out


def sample_events(record: TrialRecord, final: Score | None,
                  error: EvalError | None) -> list[Event]:
    """The trial's events in time order (see the module docstring); [] without times."""
    t0 = record.started_at
    if t0 is None:
        return []
    timed = _spans(record.calls, t0) + _scores(record, final, t0)
    end = trial_end(record)
    if error is not None and end is not None:
        timed.append((end, ErrorEvent(error=error, timestamp=utc(end), working_start=end - t0)))
    # a stable sort: a span's events keep their order when times tie
    return [event for _, event in sorted(timed, key=lambda pair: pair[0])]
