"""Per-trial call records: the only accounting of model use (invariant 2).

A `RecordingModel` appends one `CallRecord` per completion to a log its owner
holds (a trial, a CLI command); there is no process-wide counter anywhere.

Each completion's usage is checked before it is recorded or returned
(`tether.models.usage_check`): an impossible claim is replaced by a local count, and the
record says so (`usage_flag`, `claimed_usage`). A call that fails after its requests
went out is recorded too: one record per failed sample, with its `error` and no usage
(its cost is unknown), beside the records of its samples that did answer.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
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
from tether.models.errors import ModelError, ReplayMiss
from tether.models.fanout import ran_samples
from tether.models.usage_check import UsageFlag, check_usage


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
    #: why the provider's usage was not charged (`missing`, `over_limit`, `negative`):
    #: `usage` is then a local count and the call's cost is unknown
    usage_flag: UsageFlag | None = None
    #: the provider's claim when it was not charged (None when taken, or absent)
    claimed_usage: Usage | None = None
    #: set when the call failed after its request was sent (no usage, cost unknown)
    error: str | None = None
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
        try:
            completions = self.inner.generate(messages, params, n=n, role=role)
        except ModelError as exc:
            if not isinstance(exc, ReplayMiss):  # a replay sends nothing to anyone
                self._record_failure(exc, messages, params, role, started_at)
            raise
        return [self._record(c, messages, params, role, started_at) for c in completions]

    def _record(self, c: Completion, messages: list[Message], params: GenerateParams,
                role: str | None, started_at: float) -> Completion:
        checked = check_usage(c, messages, params)
        if checked.flag is not None:
            c = replace(c, usage=checked.usage)  # the caller's ledger charges the count
        self.log.append(CallRecord(
            role=role, model_id=self.model_id,
            request_hash=request_key(self.model_id, messages, params,
                                     sample_index=c.sample_index),
            sample_index=c.sample_index, usage=c.usage, latency_s=c.latency_s,
            cache_hit=c.cache_hit, messages=messages, output=c.text,
            tool_calls=[t.to_message() for t in c.tool_calls],
            params=sampling_params(params), usage_flag=checked.flag,
            claimed_usage=checked.claimed, started_at=started_at))
        return c

    def _record_failure(self, exc: ModelError, messages: list[Message],
                        params: GenerateParams, role: str | None, started_at: float) -> None:
        ran = ran_samples(exc)
        done = ran.done if ran is not None else []
        failed = ran.failed if ran is not None else [(0, exc)]
        for _, c in done:
            if isinstance(c, Completion):
                self._record(c, messages, params, role, started_at)
        for index, error in failed:
            self.log.append(CallRecord(
                role=role, model_id=self.model_id,
                request_hash=request_key(self.model_id, messages, params, sample_index=index),
                sample_index=index, usage=Usage(), latency_s=0.0, cache_hit=False,
                messages=messages, output="", params=sampling_params(params),
                error=f"{type(error).__name__}: {error}"[:500], started_at=started_at))


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
