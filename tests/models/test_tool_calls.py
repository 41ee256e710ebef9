"""Native tool calls through the model layer: request shape, parsing, caching, recording."""

from __future__ import annotations

import json

import pytest

from tether.errors import ConfigError
from tether.models.base import (
    Completion,
    GenerateParams,
    ToolCall,
    function_tool,
    make_params,
    request_key,
    supports_tools,
)
from tether.models.cache import CachedModel, ReplayModel, ResponseStore
from tether.models.openai_backend import OpenAICompatibleModel
from tether.models.recording import RecordingModel
from tether.testing import ScriptedModel

BASH = function_tool("bash", "Run a command.", {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
MSG = [{"role": "user", "content": "list the files"}]


def make(server):
    return OpenAICompatibleModel("fake", base_url=server.base_url, key_env=None, timeout_s=5.0)


def test_openai_request_carries_tools_and_reply_tool_calls_are_parsed(fault_server):
    fault_server.script = [{"tool_calls": [
        {"id": "call_7", "name": "bash", "arguments": '{"command": "ls -la"}'}],
        "finish_reason": "tool_calls"}]
    (c,) = make(fault_server).generate(MSG, GenerateParams.of(tools=[BASH]))
    assert fault_server.requests[0]["tools"] == [BASH]
    assert c.text == "" and c.finish_reason == "tool_calls"
    assert c.tool_calls == (ToolCall("call_7", "bash", '{"command": "ls -la"}'),)


def test_openai_tool_conversation_is_sent_as_it_is(fault_server):
    call = ToolCall("call_1", "bash", '{"command": "pwd"}')
    history = [*MSG, {"role": "assistant", "content": None, "tool_calls": [call.to_message()]},
               {"role": "tool", "tool_call_id": "call_1", "content": '{"returncode": 0}'}]
    (c,) = make(fault_server).generate(history, GenerateParams.of(tools=[BASH]))
    sent = fault_server.requests[0]["messages"]
    assert sent[1]["tool_calls"][0]["function"] == {"name": "bash",
                                                    "arguments": '{"command": "pwd"}'}
    assert sent[2] == history[2]
    assert c.tool_calls == ()  # a plain text reply has none


def test_a_request_without_tools_has_no_tools_field(fault_server):
    make(fault_server).generate(MSG)
    assert "tools" not in fault_server.requests[0]


def test_missing_call_id_gets_one(fault_server):
    fault_server.script = [{"tool_calls": [{"id": "", "name": "bash", "arguments": "{}"}]}]
    (c,) = make(fault_server).generate(MSG, GenerateParams.of(tools=[BASH]))
    assert c.tool_calls[0].id == "call_0"


def test_tools_change_the_request_key_and_no_tools_keeps_the_old_key():
    plain = make_params(64, 0.0, 1.0, 1, None, None)
    assert "tools" not in plain.to_json()  # old cache entries and cassettes still hit
    with_tools = make_params(64, 0.0, 1.0, 1, None, None, tools=[BASH])
    assert with_tools.tools == [BASH]
    assert request_key("m", MSG, plain) != request_key("m", MSG, with_tools)


def test_completion_json_round_trip_keeps_tool_calls_and_reads_old_rows():
    c = Completion("", tool_calls=(ToolCall("a", "bash", '{"command": "ls"}'),))
    assert Completion.from_json(json.loads(json.dumps(c.to_json()))) == c
    old = {k: v for k, v in Completion("hi").to_json().items() if k != "tool_calls"}
    assert Completion.from_json(old).tool_calls == ()


def test_text_only_backend_refuses_tools_with_a_hint():
    model = ScriptedModel(["x"])
    assert not supports_tools(model)
    with pytest.raises(ConfigError, match="does not take native tool calls"):
        model.generate(MSG, GenerateParams.of(tools=[BASH]))


def _tool_script(messages, info):
    assert info.params.tools == [BASH]
    return Completion("", tool_calls=(ToolCall(f"c{info.call_number}", "bash",
                                               '{"command": "ls"}'),))


def test_cache_serves_tool_calls_and_replay_knows_the_cassette_used_tools(tmp_path):
    inner = ScriptedModel(_tool_script, supports_tools=True)
    cached = CachedModel(inner, ResponseStore(tmp_path / "c.sqlite"))
    assert supports_tools(cached)
    (first,) = cached.generate(MSG, GenerateParams.of(tools=[BASH], seed=3))
    (again,) = cached.generate(MSG, GenerateParams.of(tools=[BASH], seed=3))
    assert inner.calls == 1 and again.cache_hit and again.tool_calls == first.tool_calls
    replay = ReplayModel(tmp_path / "c.sqlite")
    assert supports_tools(replay)
    (served,) = replay.generate(MSG, GenerateParams.of(tools=[BASH], seed=3))
    assert served.tool_calls == first.tool_calls


def test_replay_of_a_text_cassette_does_not_claim_tools(tmp_path):
    cached = CachedModel(ScriptedModel(["hello"]), ResponseStore(tmp_path / "t.sqlite"))
    cached.generate(MSG)
    assert not supports_tools(ReplayModel(tmp_path / "t.sqlite"))


def test_recording_keeps_the_calls_and_hashes_the_tools():
    log: list = []
    rec = RecordingModel(ScriptedModel(_tool_script, supports_tools=True), log, role="generator")
    assert supports_tools(rec)
    rec.generate(MSG, GenerateParams.of(tools=[BASH]))
    (row,) = log
    assert row.tool_calls == [{"id": "c0", "type": "function",
                               "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]
    params = make_params(256, 0.0, 1.0, None, None, None, tools=[BASH])
    assert row.request_hash == request_key("scripted", MSG, params)


@pytest.mark.parametrize("choice,sent", [
    ("required", "required"), ("auto", "auto"),
    ("bash", {"type": "function", "function": {"name": "bash"}})])
def test_openai_tool_choice(fault_server, choice, sent):
    make(fault_server).generate(MSG, GenerateParams.of(tools=[BASH], tool_choice=choice))
    assert fault_server.requests[0]["tool_choice"] == sent


def test_tool_choice_changes_the_key_only_when_set():
    base = make_params(64, 0.0, 1.0, 1, None, None, tools=[BASH])
    forced = make_params(64, 0.0, 1.0, 1, None, None, tools=[BASH], tool_choice="bash")
    assert "tool_choice" not in base.to_json() and forced.to_json()["tool_choice"] == "bash"
    assert request_key("m", MSG, base) != request_key("m", MSG, forced)
    with pytest.raises(ValueError, match="tool_choice needs tools"):
        make_params(64, 0.0, 1.0, 1, None, None, tool_choice="bash")
