"""The model protocol: `generate(messages, ...) -> list[Completion]`.

Messages are OpenAI-style chat dicts. Content is a string or a list of parts,
`{"type": "text", "text": ...}` or `{"type": "image_url", "image_url": {"url":
"data:image/png;base64,..."}}`. Every completion carries the provider's own token
counts; nothing here keeps a global counter (invariant 2): a caller that wants a
ledger wraps the model (see `tether.models.recording`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

Message = dict[str, Any]

#: Accounting labels a call may carry. Free text is allowed, these are the known ones.
ROLES = ("proposer", "reviewer", "selector", "teacher", "student", "judge")


@dataclass(frozen=True)
class Usage:
    """Token counts as reported by the provider (never estimated by tether).

    `output_tokens` excludes `reasoning_tokens` where a provider reports them apart
    (OpenAI's completion_tokens includes them; tether splits them), so the sum of the
    two is what was generated. Anthropic reports thinking inside output_tokens.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass(frozen=True)
class Completion:
    """One sampled answer. `reasoning` holds thinking text when the provider exposes it."""

    text: str
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    model_id: str = ""
    sample_index: int = 0
    cache_hit: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Completion:
        row = dict(row)
        row["usage"] = Usage(**row.get("usage", {}))
        return cls(**row)


@dataclass(frozen=True)
class GenerateParams:
    """Everything besides the messages that shapes a request."""

    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    thinking_budget: int | None = None

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["stop"] = list(self.stop) if self.stop else None
        return row


def sample_seed(seed: int | None, sample_index: int) -> int | None:
    """Seed of sample `i`: distinct per sample so n samples are n different samples."""
    return None if seed is None else seed + sample_index


def request_key(
    model_id: str,
    messages: list[Message],
    params: GenerateParams,
    *,
    sample_index: int = 0,
    scope: str = "",
) -> str:
    """Canonical hash of a request plus its sample index and scope (invariant 7)."""
    canonical = json.dumps(
        {
            "model": model_id,
            "messages": messages,
            "params": params.to_json(),
            "sample_index": sample_index,
            "scope": scope,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@runtime_checkable
class Model(Protocol):
    """Anything that can answer chat messages with n completions."""

    model_id: str

    def generate(
        self,
        messages: list[Message],
        *,
        n: int = 1,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        stop: list[str] | None = None,
        thinking_budget: int | None = None,
        role: str | None = None,
    ) -> list[Completion]: ...


class SampledModel:
    """Base for backends that produce one sample per call.

    Subclasses implement `_sample`; `generate` issues n calls with distinct sample
    indices and seeds, which is what a backend without native `n` must do.
    """

    model_id: str = ""

    def generate(
        self,
        messages: list[Message],
        *,
        n: int = 1,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        stop: list[str] | None = None,
        thinking_budget: int | None = None,
        role: str | None = None,
    ) -> list[Completion]:
        params = make_params(max_tokens, temperature, top_p, seed, stop, thinking_budget)
        return [self._sample(messages, params, i) for i in range(n)]

    def _sample(
        self, messages: list[Message], params: GenerateParams, sample_index: int
    ) -> Completion:
        raise NotImplementedError


def make_params(
    max_tokens: int,
    temperature: float,
    top_p: float,
    seed: int | None,
    stop: list[str] | None,
    thinking_budget: int | None,
) -> GenerateParams:
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    return GenerateParams(
        max_tokens=max_tokens,
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        stop=tuple(stop) if stop else None,
        thinking_budget=thinking_budget,
    )


def text_of(message: Message) -> str:
    """The text parts of a message joined (images dropped), for text-only backends."""
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")
