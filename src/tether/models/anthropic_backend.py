"""Anthropic Messages API, with extended thinking mapped from `thinking_budget`."""

from __future__ import annotations

import os
import time
from typing import Any

from tether.errors import ConfigError
from tether.models.base import Completion, GenerateParams, Message, SampledModel, Usage
from tether.models.errors import (
    AuthenticationError,
    ContextLengthExceeded,
    EndpointUnreachable,
    ModelError,
    RateLimited,
    ServerError,
    UnknownModelError,
)
from tether.models.retry import (
    Retryable,
    RetryPolicy,
    call_with_retries,
    endpoint_slot,
    parse_retry_after,
)


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


class AnthropicModel(SampledModel):
    """Claude models. Anthropic has no `seed`; samples differ by sampling alone."""

    def __init__(
        self,
        model: str,
        *,
        key_env: str = "ANTHROPIC_API_KEY",
        timeout_s: float = 300.0,
        concurrency: int = 4,
        retry: RetryPolicy | None = None,
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
        self._client = anthropic.Anthropic(api_key=key, timeout=timeout_s, max_retries=0)
        self.retry = retry or RetryPolicy()
        self._slot = endpoint_slot("https://api.anthropic.com", concurrency)

    def _sample(self, messages: list[Message], params: GenerateParams, index: int) -> Completion:
        system = "\n\n".join(
            m["content"] if isinstance(m["content"], str) else "" for m in messages
            if m["role"] == "system"
        )
        chat = [
            {"role": m["role"], "content": _to_anthropic_content(m["content"])}
            for m in messages if m["role"] != "system"
        ]
        body: dict[str, Any] = {"model": self.model, "messages": chat}
        if system:
            body["system"] = system
        if params.stop:
            body["stop_sequences"] = list(params.stop)
        if params.thinking_budget:
            # Thinking tokens are part of max_tokens; the API requires temperature 1.
            body["thinking"] = {"type": "enabled", "budget_tokens": params.thinking_budget}
            body["max_tokens"] = params.max_tokens + params.thinking_budget
        else:
            body["max_tokens"] = params.max_tokens
            body["temperature"] = params.temperature
            body["top_p"] = params.top_p
        start = time.perf_counter()

        def attempt() -> Completion:
            with self._slot:
                try:
                    resp = self._client.messages.create(**body)
                except self._sdk.APIError as exc:
                    raise self._classify(exc) from exc
            text = "".join(b.text for b in resp.content if b.type == "text")
            thinking = "".join(getattr(b, "thinking", "") for b in resp.content
                               if b.type == "thinking")
            return Completion(
                text=text,
                reasoning=thinking or None,
                finish_reason=resp.stop_reason,
                # Anthropic reports thinking inside output_tokens, not separately.
                usage=Usage(resp.usage.input_tokens, resp.usage.output_tokens, 0),
                latency_s=time.perf_counter() - start,
                model_id=self.model_id,
                sample_index=index,
            )

        return call_with_retries(attempt, self.retry)

    def _classify(self, exc: Exception) -> Exception:
        a = self._sdk
        if isinstance(exc, a.APITimeoutError):
            return Retryable(EndpointUnreachable(f"{self.model_id}: timed out"))
        if isinstance(exc, a.APIConnectionError):
            return Retryable(EndpointUnreachable(f"{self.model_id}: cannot reach the API"))
        if isinstance(exc, a.APIStatusError):
            status = exc.status_code
            if status in (401, 403):
                return AuthenticationError(f"{self.model_id}: the API key was rejected")
            if status == 404:
                return UnknownModelError(f"{self.model_id}: unknown model")
            if status == 429:
                after = parse_retry_after(exc.response.headers.get("retry-after"))
                return Retryable(RateLimited(f"{self.model_id}: rate limited (429)"), after)
            if status >= 500:
                return Retryable(ServerError(f"{self.model_id}: server error {status}"))
            if "too long" in str(exc).lower() or "context" in str(exc).lower():
                return ContextLengthExceeded(f"{self.model_id}: {str(exc)[:300]}")
            return ModelError(f"{self.model_id}: request rejected ({status}): {str(exc)[:300]}")
        return ModelError(f"{self.model_id}: {exc}")
