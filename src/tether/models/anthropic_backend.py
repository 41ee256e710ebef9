"""Anthropic Messages API, with extended thinking mapped from `thinking_budget`.

Native tool calls are translated both ways: OpenAI-shaped tool specs become
`{"name", "description", "input_schema"}`, an assistant message's `tool_calls` become
`tool_use` blocks, `tool` messages become `tool_result` blocks of a user turn, and the
reply's `tool_use` blocks come back as `ToolCall`s with their input as JSON text.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from tether.errors import ConfigError
from tether.models.base import (
    Completion,
    GenerateParams,
    Message,
    SampledModel,
    ToolCall,
    Usage,
)
from tether.models.deadline import (
    call_deadline,
    deadline_passed,
    default_deadline_s,
    with_deadlines,
)
from tether.models.errors import (
    AuthenticationError,
    CertificateRefused,
    EndpointUnreachable,
    ModelError,
    certificate_refusal,
)
from tether.models.retry import (
    Retryable,
    RetryPolicy,
    call_with_retries,
    endpoint_slot,
    status_error,
)
from tether.models.usage_check import allowed_output


def _to_anthropic_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    parts = []
    for p in content:
        if p.get("type") == "text":
            parts.append({"type": "text", "text": p["text"]})
        elif p.get("type") == "image_url":
            url = p["image_url"]["url"]
            head, _, data = url.partition(",")
            media = head.removeprefix("data:").split(";")[0] or "image/png"
            parts.append(
                {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
            )
    return parts


def _tool_use_blocks(message: Message) -> list[dict[str, Any]]:
    blocks = []
    for call in message.get("tool_calls") or ():
        fn = call["function"]
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError:
            args = {}  # the model wrote invalid JSON; the reply it got already said so
        blocks.append({"type": "tool_use", "id": call["id"], "name": fn["name"],
                       "input": args if isinstance(args, dict) else {}})
    return blocks


def to_anthropic_messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, chat turns) in the Messages API's shape.

    Consecutive turns of one role are merged, as the API wants roles to alternate
    (a tool result and the user text after it form one user turn).
    """
    system = "\n\n".join(m["content"] if isinstance(m["content"], str) else ""
                          for m in messages if m["role"] == "system")
    chat: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "system":
            continue
        if m["role"] == "tool":
            role = "user"
            blocks: list[dict[str, Any]] = [{"type": "tool_result",
                                             "tool_use_id": m["tool_call_id"],
                                             "content": m.get("content") or ""}]
        else:
            role = m["role"]
            content = _to_anthropic_content(m.get("content") or "")
            blocks = ([{"type": "text", "text": content}] if content else []) \
                if isinstance(content, str) else list(content)
            if role == "assistant":
                blocks += _tool_use_blocks(m)
        if chat and chat[-1]["role"] == role:
            chat[-1]["content"] += blocks
        else:
            chat.append({"role": role, "content": blocks})
    return system, chat


#: OpenAI's tool_choice words in the Messages API's terms (a tool's name forces that tool).
_ANTHROPIC_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"},
                     "none": {"type": "none"}}


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for t in tools:
        fn = t["function"]
        out.append({"name": fn["name"], "description": fn.get("description", ""),
                    "input_schema": fn.get("parameters") or {"type": "object"}})
    return out


def _sampling(params: GenerateParams) -> dict[str, float]:
    """The sampling options to send: none with thinking (the API fixes temperature 1),
    otherwise temperature when not the default, else top_p; never both, which the
    API refuses."""
    if params.thinking_budget:
        return {}
    if params.temperature != 1.0:
        return {"temperature": params.temperature}
    if params.top_p != 1.0:
        return {"top_p": params.top_p}
    return {}


class AnthropicModel(SampledModel):
    """Claude models. Anthropic has no `seed`; samples differ by sampling alone. The
    samples of one call are sent concurrently up to `concurrency`."""

    supports_tools = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        key_env: str = "ANTHROPIC_API_KEY",
        timeout_s: float = 300.0,
        concurrency: int = 4,
        retry: RetryPolicy | None = None,
        deadline_s: float | None = None,
    ) -> None:
        try:
            import anthropic
        except ImportError:
            raise ConfigError(
                "anthropic models need the 'anthropic' extra",
                hint="pip install 'tether[anthropic]'",
            ) from None
        key = os.environ.get(key_env)
        if not key:
            raise AuthenticationError(f"no API key for anthropic/{model}: set {key_env}")
        self.model = model
        self.model_id = f"anthropic/{model}"
        self._sdk = anthropic
        # timeout_s limits each read; the deadline (tether.models.deadline) the whole call
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, timeout=timeout_s, max_retries=0,
            http_client=with_deadlines(anthropic.DefaultHttpxClient()))
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self.retry = retry or RetryPolicy()
        self.concurrency = concurrency
        self._slot = endpoint_slot(base_url or "https://api.anthropic.com", concurrency)
        self._sampling_rejected = False

    def _sample(self, messages: list[Message], params: GenerateParams, index: int) -> Completion:
        system, chat = to_anthropic_messages(messages)
        body: dict[str, Any] = {"model": self.model, "messages": chat}
        if system:
            body["system"] = system
        if params.tools_json:
            body["tools"] = to_anthropic_tools(params.tools or [])  # present: tools_json is set
        if params.tool_choice:
            body["tool_choice"] = _ANTHROPIC_CHOICE.get(
                params.tool_choice, {"type": "tool", "name": params.tool_choice})
        if params.stop:
            body["stop_sequences"] = list(params.stop)
        if params.thinking_budget:
            # Thinking tokens are part of max_tokens; the API requires temperature 1.
            body["thinking"] = {"type": "enabled", "budget_tokens": params.thinking_budget}
            body["max_tokens"] = params.max_tokens + params.thinking_budget
        else:
            body["max_tokens"] = params.max_tokens
        sampling = _sampling(params)
        deadline = self.deadline_s or default_deadline_s(self.timeout_s, allowed_output(params))
        started: list[float] = []  # from the first attempt that had the endpoint (openai_backend)

        def attempt() -> Completion:
            with self._slot, call_deadline(deadline):
                if not started:
                    started.append(time.perf_counter())
                try:
                    resp = self._create(body, sampling)
                except self._sdk.APIError as exc:
                    if isinstance(exc, self._sdk.APITimeoutError) and deadline_passed():
                        raise EndpointUnreachable(
                            f"{self.model_id}: no complete reply within the call's deadline "
                            f"of {deadline:g}s", hint="raise it with ;deadline_s=SECONDS on "
                            "the model spec") from exc
                    raise self._classify(exc) from exc
            text = "".join(b.text for b in resp.content if b.type == "text")
            thinking = "".join(getattr(b, "thinking", "") for b in resp.content
                               if b.type == "thinking")
            calls = tuple(ToolCall(b.id, b.name, json.dumps(b.input)) for b in resp.content
                          if b.type == "tool_use")
            usage = getattr(resp, "usage", None)
            counts = (getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None))
            # a gateway may leave usage out: the call is then charged a local count
            reported = all(isinstance(n, int) for n in counts)
            return Completion(
                text=text,
                tool_calls=calls,
                reasoning=thinking or None,
                finish_reason=resp.stop_reason,
                # Anthropic reports thinking inside output_tokens, not separately.
                usage=Usage(counts[0], counts[1], 0) if reported else Usage(),  # type: ignore[arg-type]
                latency_s=time.perf_counter() - started[0],
                model_id=self.model_id,
                sample_index=index,
                usage_reported=reported,
            )

        return call_with_retries(attempt, self.retry)

    def _create(self, body: dict[str, Any], sampling: dict[str, float]) -> Any:
        """One Messages request. SDK 1.x dropped the sampling keywords (the API still takes
        them on most models), so they travel in `extra_body`; a model that rejects them
        (newer Claude models deprecate `temperature`) is asked again without, and this
        client stops sending them."""
        if not sampling or self._sampling_rejected:
            return self._client.messages.create(**body)
        try:
            return self._client.messages.create(**body, extra_body=sampling)
        except self._sdk.BadRequestError as exc:
            text = str(exc).lower()
            if not any(name in text for name in sampling):
                raise
            # Samples in flight may race to set it: each then retries once without, which
            # is what a lone request does, so no lock is needed.
            self._sampling_rejected = True
            return self._client.messages.create(**body)

    def _classify(self, exc: Exception) -> Exception:
        a = self._sdk
        if isinstance(exc, a.APITimeoutError):
            return Retryable(EndpointUnreachable(f"{self.model_id}: timed out"))
        if isinstance(exc, a.APIConnectionError) and (refused := certificate_refusal(exc)):
            return CertificateRefused(
                f"{self.model_id}: the TLS certificate of the API was refused: {refused}")
        if isinstance(exc, a.APIConnectionError):
            return Retryable(EndpointUnreachable(f"{self.model_id}: cannot reach the API",
                                                 no_connection=True))
        if isinstance(exc, a.APIStatusError):
            text = str(exc)
            return status_error(self.model_id, exc.status_code, text, where="the Anthropic API",
                                retry_after=exc.response.headers.get("retry-after"),
                                context_overflow="too long" in text.lower()
                                or "context" in text.lower())
        return ModelError(f"{self.model_id}: {exc}")
