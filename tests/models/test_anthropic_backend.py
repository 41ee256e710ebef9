"""The Anthropic backend against a local stand-in of the Messages API (no key, no network).

The real SDK talks HTTP to a scripted server on 127.0.0.1, so request translation
(system prompt, tools, tool_use / tool_result blocks, merged turns) and reply parsing
are exercised end to end through the code path a live run takes.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("anthropic")

from tether.models.anthropic_backend import AnthropicModel, to_anthropic_messages  # noqa: E402
from tether.models.base import GenerateParams, ToolCall, function_tool  # noqa: E402
from tether.models.errors import CertificateRefused, RateLimited  # noqa: E402
from tether.models.retry import RetryPolicy  # noqa: E402

BASH = function_tool("bash", "Run a command.", {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})


class MessagesServer:
    """Answers POST /v1/messages with the next scripted reply (the last one repeats)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []
        #: when set, each request waits until that many are waiting together
        self.barrier: threading.Barrier | None = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                status, payload = outer.replies[min(len(outer.requests), len(outer.replies)) - 1]
                if outer.barrier is not None:
                    try:
                        outer.barrier.wait()
                    except threading.BrokenBarrierError:
                        pass  # fewer arrived together: the test reads barrier.broken
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()


def message(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 21, "output_tokens": 9}}


@pytest.fixture
def server():
    s = MessagesServer()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


@pytest.fixture
def model(server, monkeypatch):
    monkeypatch.setenv("TETHER_TEST_ANTHROPIC_KEY", "sk-test")
    return AnthropicModel("claude-test", base_url=server.base_url,
                          key_env="TETHER_TEST_ANTHROPIC_KEY",
                          retry=RetryPolicy(max_attempts=2, base_delay_s=0.01))


def test_tool_use_reply_becomes_tool_calls(server, model):
    server.replies = [(200, message([
        {"type": "text", "text": "Listing first."},
        {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}],
        stop="tool_use"))]
    (c,) = model.generate([{"role": "system", "content": "be brief"},
                           {"role": "user", "content": "go"}],
                           GenerateParams.of(tools=[BASH], max_tokens=50))
    req = server.requests[0]
    assert req["system"] == "be brief" and req["max_tokens"] == 50
    assert req["tools"] == [{"name": "bash", "description": "Run a command.",
                             "input_schema": BASH["function"]["parameters"]}]
    assert c.text == "Listing first." and c.finish_reason == "tool_use"
    assert c.tool_calls == (ToolCall("toolu_1", "bash", '{"command": "ls"}'),)
    assert (c.usage.input_tokens, c.usage.output_tokens) == (21, 9)


def test_tool_conversation_is_translated_to_blocks(server, model):
    server.replies = [(200, message([{"type": "text", "text": "done"}]))]
    call = ToolCall("toolu_1", "bash", '{"command": "ls"}')
    model.generate([{"role": "user", "content": "go"},
                    {"role": "assistant", "content": "Looking.", "tool_calls": [call.to_message()]},
                    {"role": "tool", "tool_call_id": "toolu_1", "content": '{"returncode": 0}'},
                    {"role": "user", "content": "(2 commands left)"}],
                    GenerateParams.of(tools=[BASH]))
    sent = server.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"] == [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"returncode": 0}'},
        {"type": "text", "text": "(2 commands left)"}]


def test_no_tools_means_no_tools_field(server, model):
    server.replies = [(200, message([{"type": "text", "text": "hi"}]))]
    (c,) = model.generate([{"role": "user", "content": "hi"}])
    assert "tools" not in server.requests[0] and c.tool_calls == ()


def test_samples_are_sent_concurrently(server, monkeypatch):
    monkeypatch.setattr("tether.models.retry._limits", {})  # this port's own semaphore
    monkeypatch.setenv("TETHER_TEST_ANTHROPIC_KEY", "sk-test")
    model = AnthropicModel("claude-test", base_url=server.base_url, concurrency=3,
                           key_env="TETHER_TEST_ANTHROPIC_KEY")
    server.replies = [(200, message([{"type": "text", "text": "hi"}]))]
    # Three requests must be held at once for any of them to be answered in time.
    server.barrier = threading.Barrier(3, timeout=20)
    out = model.generate([{"role": "user", "content": "hi"}],
                         GenerateParams.of(temperature=0.7), n=3)
    assert not server.barrier.broken
    assert len(server.requests) == 3
    assert [c.sample_index for c in out] == [0, 1, 2]


def test_rate_limit_is_retried_then_raised(server, model):
    server.replies = [(429, {"type": "error", "error": {"type": "rate_limit_error",
                                                        "message": "slow down"}})]
    with pytest.raises(RateLimited):
        model.generate([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 2


def test_invalid_json_arguments_become_an_empty_input():
    bad = {"id": "x", "type": "function", "function": {"name": "bash", "arguments": "{oops"}}
    _, chat = to_anthropic_messages([{"role": "assistant", "content": None,
                                      "tool_calls": [bad]}])
    assert chat == [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "x", "name": "bash", "input": {}}]}]


def test_sampling_travels_in_the_body_one_option_only(server, model):
    server.replies = [(200, message([{"type": "text", "text": "hi"}]))]
    model.generate([{"role": "user", "content": "hi"}],
                   GenerateParams.of(temperature=0.0, top_p=0.9))
    model.generate([{"role": "user", "content": "hi"}],
                   GenerateParams.of(temperature=1.0, top_p=0.95))
    model.generate([{"role": "user", "content": "hi"}],
                   GenerateParams.of(temperature=1.0, thinking_budget=1024))
    first, second, third = server.requests
    assert first["temperature"] == 0.0 and "top_p" not in first
    assert second["top_p"] == 0.95 and "temperature" not in second
    assert "temperature" not in third and third["thinking"]["budget_tokens"] == 1024


def test_a_model_that_rejects_temperature_is_asked_again_without_it(server, model):
    rejected = {"type": "error", "error": {"type": "invalid_request_error",
                                           "message": "`temperature` is deprecated for this model"}}
    server.replies = [(400, rejected), (200, message([{"type": "text", "text": "ok"}]))]
    (c,) = model.generate([{"role": "user", "content": "hi"}], GenerateParams.of(temperature=0.0))
    model.generate([{"role": "user", "content": "hi"}], GenerateParams.of(temperature=0.0))
    assert c.text == "ok"
    assert [("temperature" in r) for r in server.requests] == [True, False, False]


@pytest.mark.parametrize("choice,sent", [("required", {"type": "any"}),
                                         ("bash", {"type": "tool", "name": "bash"})])
def test_tool_choice_in_anthropic_terms(server, model, choice, sent):
    server.replies = [(200, message([{"type": "text", "text": "hi"}]))]
    model.generate([{"role": "user", "content": "hi"}],
                   GenerateParams.of(tools=[BASH], tool_choice=choice))
    assert server.requests[0]["tool_choice"] == sent


def test_spec_with_base_url_builds_a_working_client(server, monkeypatch):
    from tether.models import parse_model

    monkeypatch.setenv("TETHER_TEST_ANTHROPIC_KEY", "sk-test")
    server.replies = [(200, message([{"type": "text", "text": "from the proxy"}]))]
    model = parse_model(f"anthropic/claude-test;base_url={server.base_url};"
                        "key_env=TETHER_TEST_ANTHROPIC_KEY")
    (c,) = model.generate([{"role": "user", "content": "hi"}])
    assert c.text == "from the proxy" and server.requests[0]["model"] == "claude-test"


def test_a_refused_certificate_is_named_and_not_retried(model):
    import ssl

    import anthropic
    import httpx2

    cert_error = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED]")
    cert_error.verify_message = "self-signed certificate"
    error = anthropic.APIConnectionError(request=httpx2.Request("POST", "https://h/v1"))
    error.__cause__ = cert_error
    classified = model._classify(error)
    assert isinstance(classified, CertificateRefused) and classified.no_connection
    assert str(classified).endswith("the TLS certificate of the API was refused: "
                                    "self-signed certificate")
