"""Any OpenAI-compatible chat endpoint: OpenAI itself, vLLM, SGLang, Ollama, llama.cpp server.

The SDK's own retries are switched off (`max_retries=0`) so that tether's policy
(`tether.models.retry`) is the only one and is testable.
"""

from __future__ import annotations

import json
import os
import threading
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
    sample_seed,
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
    ServerError,
    certificate_refusal,
)
from tether.models.openai_import import import_openai
from tether.models.retry import (
    Retryable,
    RetryPolicy,
    call_with_retries,
    endpoint_slot,
    status_error,
)
from tether.models.tls import start_tls_context, tls_context_for
from tether.models.usage_check import allowed_output

_CONTEXT_MARKERS = ("context length", "context_length", "context window", "maximum context")


#: the effort levels a spec's `effort` option may name (tether.strategies.REASONING_EFFORT)
EFFORTS = ("low", "medium", "high", "max")


def _effort(thinking_budget: int) -> str:
    # OpenAI reasoning models take an effort level, not a token budget (the levels'
    # budgets: tether.strategies.REASONING_EFFORT).
    if thinking_budget <= 2048:
        return "low"
    if thinking_budget <= 16384:
        return "medium"
    if thinking_budget <= 32768:
        return "high"
    return "max"


_clients: dict[tuple[str, str | None, float], Any] = {}
_clients_lock = threading.Lock()


def _client(api_key: str, base_url: str | None, timeout_s: float) -> Any:
    """One SDK client per endpoint, key and timeout for the process, shared by every
    model object (one per trial) that talks to it: a client is thread-safe, keeps its
    connections open between calls, and has a TLS context (made once: tether.models.tls)."""
    openai = import_openai()

    key = (api_key, base_url, timeout_s)
    with _clients_lock:
        if key not in _clients:
            # timeout_s limits each read; the deadline (tether.models.deadline) the
            # whole call, through the client's network backend (per thread, so sharing
            # the client shares no deadline)
            verify = tls_context_for(openai.DefaultHttpxClient)
            http = (openai.DefaultHttpxClient() if verify is None
                    else openai.DefaultHttpxClient(verify=verify))
            _clients[key] = openai.OpenAI(
                api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0,
                http_client=with_deadlines(http))
        return _clients[key]


class OpenAICompatibleModel(SampledModel):
    """Chat completions over HTTP; one request per sample so each sample has its own seed,
    the samples of one call sent concurrently up to `concurrency` (the endpoint's limit).

    Native tool calls are passed through as they are (the message format is OpenAI's);
    a server that cannot do them (llama.cpp server without --jinja, say) rejects the
    request, and the error says so.
    """

    supports_tools = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        key_env: str | None = "OPENAI_API_KEY",
        timeout_s: float = 120.0,
        concurrency: int = 8,
        reasoning: bool = False,
        effort: str | None = None,
        retry: RetryPolicy | None = None,
        spec: str | None = None,
        deadline_s: float | None = None,
    ) -> None:
        start_tls_context()  # made beside the SDK's import (tether.models.tls)
        openai = import_openai()  # its type packages made lazy (tether.models.openai_import)

        self.model = model
        self.model_id = spec or (f"openai/{model}" if base_url is None else f"{model}@{base_url}")
        self.base_url = base_url
        key = api_key or (os.environ.get(key_env) if key_env else None)
        # A key variable the spec names (;key_env=VAR) or OpenAI's own must be set: sent
        # without it, the server's bare 401 would never say which variable is missing.
        if not key and (base_url is None or key_env is not None):
            raise AuthenticationError(
                f"no API key for {self.model_id}: set {key_env or 'OPENAI_API_KEY'}"
            )
        # Local servers usually accept any key; the SDK insists on one being set.
        self._client = _client(key or "not-needed", base_url, timeout_s)
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self._openai = openai
        self.reasoning = reasoning
        if effort is not None and effort not in EFFORTS:
            raise ConfigError(f"{self.model_id}: effort must be one of {', '.join(EFFORTS)}, "
                              f"got {effort!r}")
        #: the reasoning effort of a call that names no thinking budget (reasoning models)
        self.effort = effort
        self.retry = retry or RetryPolicy()
        self.concurrency = concurrency
        self._slot = endpoint_slot(base_url or "https://api.openai.com", concurrency)

    def _request(self, messages: list[Message], params: GenerateParams, index: int) -> dict:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": params.temperature,
            "top_p": params.top_p,
        }
        seed = sample_seed(params.seed, index)
        if seed is not None:
            body["seed"] = seed
        if params.stop:
            body["stop"] = list(params.stop)
        if params.tools_json:
            body["tools"] = params.tools
        if params.tool_choice in ("auto", "required", "none"):
            body["tool_choice"] = params.tool_choice
        elif params.tool_choice:
            body["tool_choice"] = {"type": "function", "function": {"name": params.tool_choice}}
        if self.reasoning:
            # Reasoning models count thinking inside max_completion_tokens.
            body["max_completion_tokens"] = params.max_tokens + (params.thinking_budget or 0)
            if params.thinking_budget:
                body["reasoning_effort"] = _effort(params.thinking_budget)
            elif self.effort is not None:
                # the spec's own level; the reply's reasoning then counts inside max_tokens
                body["reasoning_effort"] = self.effort
        else:
            body["max_tokens"] = params.max_tokens
        return body

    def call_deadline_s(self, params: GenerateParams) -> float:
        """The deadline of one attempt: the spec's `deadline_s`, else one that scales with
        what the request may generate (tether.models.deadline)."""
        return self.deadline_s or default_deadline_s(self.timeout_s, allowed_output(params))

    def _sample(self, messages: list[Message], params: GenerateParams, index: int) -> Completion:
        body = self._request(messages, params, index)
        deadline = self.call_deadline_s(params)
        # the latency runs from when the first attempt had the endpoint: waiting for a
        # slot is this process's queue (more callers than the endpoint's limit), not the
        # endpoint's time; retries and their pauses stay in it
        started: list[float] = []

        def attempt() -> Completion:
            with self._slot, call_deadline(deadline):
                if not started:
                    started.append(time.perf_counter())
                try:
                    # the body is already the API's JSON (tether's messages are OpenAI's
                    # wire format): sent as `extra_body`, which the SDK merges over its
                    # own fields as it is, rather than walked against the SDK's request
                    # types on every call (a third of the SDK's CPU per call, inside the
                    # endpoint's slot). `model` and `messages` are the required
                    # arguments; the body's own values take their place on the wire.
                    resp = self._client.chat.completions.create(
                        model=self.model, messages=[], extra_body=body)
                except self._openai.APIError as exc:
                    if isinstance(exc, self._openai.APITimeoutError) and deadline_passed():
                        # not retried: a server this slow for this request stays that slow
                        raise EndpointUnreachable(
                            f"{self.model_id}: no complete reply within the call's deadline "
                            f"of {deadline:g}s", hint="raise it with ;deadline_s=SECONDS on "
                            "the model spec") from exc
                    raise self._classify(exc) from exc
                except (json.JSONDecodeError, ValueError) as exc:
                    raise Retryable(
                        ServerError(f"{self.model_id}: malformed response: {exc}")
                    ) from exc
            return self._parse(resp, index, time.perf_counter() - started[0])

        return call_with_retries(attempt, self.retry)

    def _parse(self, resp: Any, index: int, latency: float) -> Completion:
        choices = getattr(resp, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise Retryable(ServerError(f"{self.model_id}: malformed response (no choices)"))
        choice = choices[0]
        msg = choice.message
        usage = getattr(resp, "usage", None)
        details = getattr(usage, "completion_tokens_details", None) if usage else None
        reasoning = getattr(msg, "reasoning_content", None) or (msg.model_extra or {}).get(
            "reasoning"
        )
        # completion_tokens already includes the reasoning tokens: split them so the
        # ledger (which charges output + reasoning) counts each generated token once.
        reasoning_tokens = getattr(details, "reasoning_tokens", 0) or 0
        claimed = getattr(usage, "completion_tokens", None)
        # a reply without usage (or without its output count) is charged a local count
        reported = isinstance(claimed, int)
        completion_tokens: int = claimed if isinstance(claimed, int) else 0
        return Completion(
            text=msg.content or "",
            tool_calls=_tool_calls(msg),
            reasoning=reasoning,
            finish_reason=choice.finish_reason,
            usage=Usage(
                input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                # a negative count stays negative: the charge check flags it
                output_tokens=(max(completion_tokens - reasoning_tokens, 0)
                               if completion_tokens >= 0 else completion_tokens),
                reasoning_tokens=reasoning_tokens,
            ),
            latency_s=latency,
            model_id=self.model_id,
            sample_index=index,
            usage_reported=reported,
        )

    def _classify(self, exc: Exception) -> Exception:
        """Turn an SDK error into a tether error, wrapped in Retryable when worth retrying."""
        o = self._openai
        where = self.base_url or "api.openai.com"
        if isinstance(exc, o.APITimeoutError):
            return Retryable(EndpointUnreachable(f"{self.model_id}: timed out talking to {where}"))
        if isinstance(exc, o.APIConnectionError) and (refused := certificate_refusal(exc)):
            return CertificateRefused(
                f"{self.model_id}: the TLS certificate of {where} was refused: {refused}")
        if isinstance(exc, o.APIConnectionError):
            return Retryable(
                EndpointUnreachable(
                    f"{self.model_id}: cannot reach {where}",
                    hint="is the server running and the base URL right (it usually ends in /v1)?",
                    no_connection=True,
                )
            )
        if isinstance(exc, o.APIResponseValidationError):
            return Retryable(ServerError(f"{self.model_id}: malformed response from {where}"))
        if isinstance(exc, o.APIStatusError):
            text = str(exc)
            # str(exc) holds only the message; the error's code or type may say it instead.
            tags = f"{text} {exc.code or ''} {exc.type or ''}".lower()
            return status_error(self.model_id, exc.status_code, text, where=where,
                                retry_after=exc.response.headers.get("retry-after"),
                                context_overflow=any(m in tags for m in _CONTEXT_MARKERS)
                                or "exceed" in tags)
        return ModelError(f"{self.model_id}: {exc}")


def _tool_calls(msg: Any) -> tuple[ToolCall, ...]:
    """The function calls of a reply message (other tool types are not requested)."""
    calls = []
    for i, call in enumerate(getattr(msg, "tool_calls", None) or ()):
        fn = getattr(call, "function", None)
        if fn is None:
            continue
        # Some servers omit ids; a call needs one for its tool message to answer it.
        calls.append(ToolCall(id=getattr(call, "id", None) or f"call_{i}",
                              name=fn.name or "", arguments=fn.arguments or ""))
    return tuple(calls)
