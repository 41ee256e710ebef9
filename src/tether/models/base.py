"""The model protocol: `generate(messages, params, *, n, role) -> list[Completion]`.

`params` is one frozen `GenerateParams` (max_tokens, temperature, top_p, seed, stop,
thinking budget, tools): every wrapper passes it on as it is, and the request hash is
computed from it, so what a call was keyed by is what it was made with.

Messages are OpenAI-style chat dicts. Content is a string or a list of parts,
`{"type": "text", "text": ...}` or `{"type": "image_url", "image_url": {"url":
"data:image/png;base64,..."}}`. Native tool use is OpenAI-shaped too: `tools` are
`{"type": "function", "function": {"name", "description", "parameters"}}` specs, an
assistant message may carry `tool_calls` (`{"id", "type": "function", "function":
{"name", "arguments"}}`), and a `{"role": "tool", "tool_call_id", "content"}` message
answers one call. Backends that speak another dialect (Anthropic) translate.
Every completion carries the provider's own token counts; nothing here keeps a
global counter (invariant 2): a caller that wants a ledger wraps the model (see
`tether.models.recording`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol, TypedDict, Unpack, runtime_checkable

from tether.errors import ConfigError
from tether.models.fanout import map_samples, sample_concurrency

Message = dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token counts as reported by the provider (never estimated by a backend; what a
    call is charged when the claim is impossible is `tether.models.usage_check`'s).

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
class ToolCall:
    """One native tool call of a reply. `arguments` is the JSON text exactly as the model
    wrote it (it may be invalid JSON: parsing it is the caller's business)."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        """The call as it goes back into an assistant message's `tool_calls`."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class Completion:
    """One sampled answer. `reasoning` holds thinking text when the provider exposes it;
    `tool_calls` the native tool calls when the request offered tools."""

    text: str
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    model_id: str = ""
    sample_index: int = 0
    cache_hit: bool = False
    tool_calls: tuple[ToolCall, ...] = ()
    #: False when the provider's reply carried no usage (then `usage` is all zeros and
    #: the call is charged a local count: tether.models.usage_check)
    usage_reported: bool = True

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["tool_calls"] = [asdict(c) for c in self.tool_calls]
        return row

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Completion:
        row = dict(row)
        row["usage"] = Usage(**row.get("usage", {}))
        # Rows written before tool calls existed have no such key.
        row["tool_calls"] = tuple(ToolCall(**c) for c in row.get("tool_calls") or ())
        return cls(**row)


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-shaped function tool spec (`parameters` is a JSON schema)."""
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": parameters}}


class GenerateKwargs(TypedDict, total=False):
    """The request keywords a caller may write (the trial context's `generate` takes
    them), one per `GenerateParams` field. `GenerateParams.of(**kwargs)` turns them into
    the frozen params a `Model.generate` takes and a request is keyed by."""

    max_tokens: int
    temperature: float
    top_p: float
    seed: int | None
    stop: list[str] | None
    thinking_budget: int | None
    #: OpenAI-shaped function tool specs offered (see `function_tool`)
    tools: list[dict[str, Any]] | None
    #: None (the provider's default, "auto"), "auto", "required", or a tool's name to force
    tool_choice: str | None


_KWARG_NAMES = frozenset(GenerateKwargs.__annotations__)


@dataclass(frozen=True)
class GenerateParams:
    """Everything besides the messages that shapes a request."""

    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    thinking_budget: int | None = None
    #: canonical JSON of the tool specs offered (a string keeps the params frozen)
    tools_json: str | None = None
    #: None (the provider's default, "auto"), "auto", "required", or a tool's name to force
    tool_choice: str | None = None

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.tool_choice is not None and not self.tools_json:
            raise ValueError("tool_choice needs tools")

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        """The specs, parsed anew on each access (test `tools_json` for presence)."""
        return json.loads(self.tools_json) if self.tools_json else None

    @classmethod
    def of(cls, **kwargs: Unpack[GenerateKwargs]) -> GenerateParams:
        """The params of `generate` keywords (absent ones take the defaults above);
        TypeError for a keyword that is not a request keyword, ValueError for bad values."""
        unknown = set(kwargs) - _KWARG_NAMES
        if unknown:
            raise TypeError(f"unknown generate keyword(s) {sorted(unknown)}")
        defaults: dict[str, Any] = {f.name: f.default for f in fields(cls)}
        stop, tools = kwargs.get("stop"), kwargs.get("tools")
        return cls(
            max_tokens=kwargs.get("max_tokens", defaults["max_tokens"]),
            temperature=kwargs.get("temperature", defaults["temperature"]),
            top_p=kwargs.get("top_p", defaults["top_p"]),
            seed=kwargs.get("seed"),
            stop=tuple(stop) if stop else None,
            thinking_budget=kwargs.get("thinking_budget"),
            tools_json=json.dumps(list(tools), sort_keys=True, separators=(",", ":"))
            if tools else None,
            tool_choice=kwargs.get("tool_choice"),
        )

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["stop"] = list(self.stop) if self.stop else None
        del row["tools_json"]
        if self.tool_choice is None:
            del row["tool_choice"]
        # Only present when tools were offered: requests without tools keep the keys
        # (cache entries, cassettes, recorded hashes) they had before tools existed.
        if self.tools_json:
            row["tools"] = self.tools
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


#: the params of a call that names none (every field's default)
DEFAULT_PARAMS = GenerateParams()


@runtime_checkable
class Model(Protocol):
    """Anything that can answer chat messages with n completions.

    The request is one `GenerateParams` object, passed as it is through every wrapper
    (recording, cache, replay) to the backend, so the params a request is keyed by are
    the params it was made with."""

    model_id: str

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        """n completions of `messages` made with `params`; `role` labels the call."""
        ...


def supports_tools(model: Model) -> bool:
    """Whether `model` takes `tools=` and answers with native tool calls."""
    return bool(getattr(model, "supports_tools", False))


def accepts_images(model: Model) -> bool:
    """Whether `model` takes image parts (`image_url` content). Every backend declares
    it as class data (`accepts_images`); the embedded local models, scripted doubles and
    replays say False. A model that declares nothing is taken to be a VLM, the remote
    default."""
    return bool(getattr(model, "accepts_images", True))


def wrapped_traits(inner: Model) -> tuple[str, bool, bool, int]:
    """(model_id, supports_tools, accepts_images, concurrency) a wrapper (cache, recorder)
    takes over from the model it wraps, so wrapping never changes what a caller sees."""
    return inner.model_id, supports_tools(inner), accepts_images(inner), sample_concurrency(inner)


def png_data_url(png: bytes) -> str:
    """A PNG as the `data:` URL an `image_url` part carries."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


class SampledModel:
    """Base for backends that produce one sample per call.

    Subclasses implement `_sample`; `generate` issues n calls with distinct sample
    indices and seeds, which is what a backend without native `n` must do. They run
    up to `concurrency` at a time (`tether.models.fanout`) and come back in sample order.
    """

    model_id: str = ""
    #: backends with native tool calls set this and read `params.tools`
    supports_tools: bool = False
    #: whether image parts may be sent (see `accepts_images`); remote backends take them
    accepts_images: bool = True
    #: samples of one call in flight at once; remote backends take it from their spec's
    #: `concurrency` option, in-process ones (llama.cpp, scripted) stay serial
    concurrency: int = 1

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        if params.tools_json and not self.supports_tools:
            raise ConfigError(
                f"{self.model_id} does not take native tool calls",
                hint="use the text protocol for this model (agent param protocol = \"text\")")
        return map_samples(lambda i: self._sample(messages, params, i), range(n),
                           self.concurrency)

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
    *,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: str | None = None,
) -> GenerateParams:
    """Positional form of `GenerateParams.of`, kept for existing callers."""
    return GenerateParams.of(max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                             seed=seed, stop=stop, thinking_budget=thinking_budget,
                             tools=tools, tool_choice=tool_choice)


def text_of(message: Message) -> str:
    """The text parts of a message joined (images dropped), for text-only backends."""
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")
