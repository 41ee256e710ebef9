"""Per-trial call records: the only accounting of model use (invariant 2).

A `RecordingModel` appends one `CallRecord` per completion to a log its owner
holds (a trial, a CLI command); there is no process-wide counter anywhere.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from tether.models.base import (
    DEFAULT_PARAMS,
    Completion,
    GenerateParams,
    Message,
    Model,
    Usage,
    request_key,
    wrapped_traits,
)


@dataclass(frozen=True)
class CallRecord:
    role: str | None
    model_id: str
    request_hash: str
    sample_index: int
    usage: Usage
    latency_s: float
    cache_hit: bool
    messages: list[Message] = field(repr=False)
    output: str = field(repr=False)
    #: native tool calls of the reply, as they go back into an assistant message
    tool_calls: list[dict[str, Any]] = field(default_factory=list, repr=False)
    #: the sampling parameters of the request (max_tokens, temperature, top_p, seed, stop,
    #: thinking_budget, tool_choice), so a call can be reproduced from its record alone;
    #: empty in records written before they were kept
    params: dict[str, Any] = field(default_factory=dict)
    #: when the request was sent (Unix time, seconds; the samples of one request share
    #: it); None in records written before starts were kept, never filled in afterwards
    started_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class RecordingModel:
    """Wraps a model; every completion it returns is also appended to `log`."""

    def __init__(self, inner: Model, log: list[CallRecord], role: str | None = None) -> None:
        self.inner = inner
        self.log = log
        self.role = role
        self.model_id, self.supports_tools, self.accepts_images, self.concurrency = (
            wrapped_traits(inner))

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        role = role or self.role
        started_at = time.time()
        # the params pass through as given: the inner model sees the caller's request
        completions = self.inner.generate(messages, params, n=n, role=role)
        for c in completions:
            self.log.append(
                CallRecord(
                    role=role,
                    model_id=self.model_id,
                    request_hash=request_key(self.model_id, messages, params,
                                             sample_index=c.sample_index),
                    sample_index=c.sample_index,
                    usage=c.usage,
                    latency_s=c.latency_s,
                    cache_hit=c.cache_hit,
                    messages=messages,
                    output=c.text,
                    tool_calls=[t.to_message() for t in c.tool_calls],
                    params=sampling_params(params),
                    started_at=started_at,
                )
            )
        return completions


def sampling_params(params: GenerateParams) -> dict[str, Any]:
    """The request's sampling parameters as a call record keeps them (tool specs are in
    the request hash, not repeated here)."""
    return {"max_tokens": params.max_tokens, "temperature": params.temperature,
            "top_p": params.top_p, "seed": params.seed,
            "stop": list(params.stop) if params.stop else None,
            "thinking_budget": params.thinking_budget, "tool_choice": params.tool_choice}


def total_usage(log: list[CallRecord], role: str | None = None) -> Usage:
    total = Usage()
    for rec in log:
        if role is None or rec.role == role:
            total = total + rec.usage
    return total
