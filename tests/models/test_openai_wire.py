"""The OpenAI-compatible backend sends the request the SDK's own `create(**body)` sends.

The backend hands its request body to the SDK as `extra_body` (no per-call walk of the
messages against the SDK's request types): what reaches the server must be exactly the
JSON the SDK makes of the same body passed as arguments, for every kind of message and
parameter tether sends.
"""

from __future__ import annotations

import base64
from dataclasses import replace

import openai
import pytest

from tether.models.base import GenerateParams, ToolCall, function_tool
from tether.models.openai_backend import OpenAICompatibleModel

BASH = function_tool("bash", "Run a command.", {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
CALL = ToolCall("call_1", "bash", '{"command": "pwd"}')

CASES = {
    "text": ([{"role": "system", "content": "Be brief."},
              {"role": "user", "content": "Name one colour."}],
             GenerateParams.of(max_tokens=16, seed=3)),
    "image": ([{"role": "user", "content": [
        {"type": "text", "text": "What is the title?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]}],
        GenerateParams.of(max_tokens=32, temperature=0.0)),
    "tools": ([{"role": "user", "content": "where am I?"},
               {"role": "assistant", "content": None, "tool_calls": [CALL.to_message()]},
               {"role": "tool", "tool_call_id": "call_1", "content": '{"returncode": 0}'}],
              GenerateParams.of(tools=[BASH], tool_choice="bash", stop=("\n\n",), seed=9)),
    "unicode": ([{"role": "user", "content": "Ünïcödé, \"quotes\" and \\ backslashes ✓"}],
                GenerateParams.of(max_tokens=8, top_p=0.5)),
}


@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_wire_body_is_the_sdks_own(fault_server, case, reasoning):
    messages, params = CASES[case]
    if reasoning:
        params = replace(params, thinking_budget=2048)
    model = OpenAICompatibleModel("m", base_url=fault_server.base_url, key_env=None,
                                  timeout_s=5.0, reasoning=reasoning)
    model.generate(messages, params)
    body = model._request(messages, params, 0)
    sdk = openai.OpenAI(api_key="k", base_url=fault_server.base_url, max_retries=0)
    sdk.chat.completions.create(**body)
    sent, reference = fault_server.requests
    assert sent == reference
    assert sent["messages"] == messages  # and not the placeholder the SDK is given
