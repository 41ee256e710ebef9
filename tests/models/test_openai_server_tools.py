"""Native tool calls through a real OpenAI-compatible server: llama-cpp-python's, with its
grammar-constrained `chatml-function-calling` chat format, on the embedded SmolLM2-135M.

Forcing the tool (`tool_choice` = its name) makes the server constrain the reply to a
call of it, so even this tiny model answers with a real `tool_calls` entry; the rest of
the conversation (assistant tool calls, tool results) must be accepted on the next turn.
"""

from __future__ import annotations

import pytest

from tests.models.llama_server import llama_server
from tether.models import parse_model
from tether.models.base import GenerateParams
from tether.systems.terminal.agent.actions import BASH_TOOL

pytestmark = pytest.mark.llama

pytest.importorskip("llama_cpp.server.app")  # needs llama-cpp-python[server]

MSG = [{"role": "system", "content": "You run bash commands with the bash tool."},
       {"role": "user", "content": "List the files in /app."}]


@pytest.fixture(scope="module")
def model():
    with llama_server(2048, "--chat_format", "chatml-function-calling") as base:
        yield parse_model(f"openai-compatible/smollm2@{base};timeout_s=60")


def test_forced_tool_call_comes_back_as_a_tool_call_and_the_result_is_accepted(model):
    (c,) = model.generate(MSG,
                          GenerateParams.of(tools=[BASH_TOOL], tool_choice='bash', max_tokens=64,
                                            seed=1))
    assert c.finish_reason == "tool_calls"
    (call,) = c.tool_calls
    assert call.name == "bash" and call.id and '"command"' in call.arguments
    assert c.usage.input_tokens > 0 and c.usage.output_tokens > 0
    follow = [*MSG, {"role": "assistant", "content": c.text, "tool_calls": [call.to_message()]},
              {"role": "tool", "tool_call_id": call.id,
               "content": '{"returncode": 0, "output": "a.txt\\n"}'}]
    (reply,) = model.generate(follow,
                              GenerateParams.of(tools=[BASH_TOOL], tool_choice='bash',
                                                max_tokens=64, seed=2))
    assert reply.tool_calls and reply.tool_calls[0].name == "bash"
