"""The bash agent with native tool calls: offered tools, tool messages, format errors,
protocol choice, Turn-BoN over tool-call candidates (scripted doubles)."""

from __future__ import annotations

import json

import pytest

from tests.systems.terminal.agent.scripted_environment import ScriptedEnvironment
from tether.context import TrialContext
from tether.core.budget import BudgetSpec
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.errors import ConfigError
from tether.models.base import Completion, ToolCall
from tether.strategies import STRATEGIES
from tether.systems.terminal.agent.actions import (
    BASH_TOOL,
    FINISH_MARKER,
    FormatError,
    parse_native_action,
)
from tether.systems.terminal.agent.loop import SamplePolicy, run_attempt
from tether.systems.terminal.agent.params import AgentParams
from tether.systems.terminal.turn_bon import TurnBoNParams, TurnBoNPolicy
from tether.testing.scripted_models import ScriptedModel


def call(cmd: str, call_id: str = "c1", thought: str = "") -> Completion:
    return Completion(thought, tool_calls=(ToolCall(call_id, "bash",
                                                    json.dumps({"command": cmd})),))


SUBMIT = call(f"echo {FINISH_MARKER}", "done")


def context(generator, *, tools: bool = True, selector=None) -> TrialContext:
    models = {"proposer": ScriptedModel(generator, supports_tools=tools)}
    if selector is not None:
        models["selector"] = ScriptedModel(selector)
    spec = TrialSpec(suite="t", task_id="x", strategy="agent",
                     models={role: "s" for role in models}, budget=BudgetSpec())
    task = Task(id="x", suite="t", prompt="Create done.txt.", metric="scripted_check",
                artifact_kind="shell")
    return TrialContext(spec, task, models)


def run(generator, *, tools: bool = True, **config):
    ctx = context(generator, tools=tools)
    cfg = AgentParams(**config)
    env = ScriptedEnvironment()
    return ctx, env, run_attempt(ctx, env, SamplePolicy(cfg), cfg)


def test_tool_calls_run_and_each_result_answers_its_call():
    seen = []

    def script(messages, info):
        seen.append((list(messages), info.params.tools))
        return [call("touch done.txt", "c1", "Creating it."), SUBMIT][info.call_number]

    _, env, result = run(script)
    assert result.exit_reason == "submitted"
    assert env.executed == ["touch done.txt", f"echo {FINISH_MARKER}"]
    first_msgs, tools = seen[0]
    assert tools == [BASH_TOOL]
    assert "call of the bash tool" in first_msgs[0]["content"]
    assert "```bash" not in first_msgs[0]["content"]
    second_msgs, _ = seen[1]
    assert second_msgs[2] == {"role": "assistant", "content": "Creating it.", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "bash", "arguments": '{"command": "touch done.txt"}'}}]}
    assert second_msgs[3]["role"] == "tool" and second_msgs[3]["tool_call_id"] == "c1"
    assert json.loads(second_msgs[3]["content"].strip()) == {"returncode": 0, "output": ""}
    assert result.turns[0].to_json()["candidates"][0]["tool_calls"][0]["id"] == "c1"


def test_two_calls_are_a_format_error_and_every_call_is_answered():
    two = Completion("", tool_calls=(ToolCall("a", "bash", '{"command": "ls"}'),
                                     ToolCall("b", "bash", '{"command": "pwd"}')))
    seen = []

    def script(messages, info):
        seen.append(list(messages))
        return [two, SUBMIT][info.call_number]

    _, env, result = run(script)
    assert result.turns[0].format_error and "2 tool calls" in result.turns[0].format_error
    assert env.executed == [f"echo {FINISH_MARKER}"]
    answers = seen[1][3:]
    assert [(m["role"], m["tool_call_id"]) for m in answers] == [("tool", "a"), ("tool", "b")]
    assert "Format error" in answers[0]["content"] and "call of the bash tool" in \
        answers[0]["content"]


def test_a_text_reply_in_tool_mode_gets_a_user_format_error():
    seen = []

    def script(messages, info):
        seen.append(list(messages))
        return ["I think I am done.", SUBMIT][info.call_number]

    _, _, result = run(script)
    assert result.exit_reason == "submitted"
    assert seen[1][3]["role"] == "user" and "Format error" in seen[1][3]["content"]


@pytest.mark.parametrize("calls,fragment", [
    ((ToolCall("x", "python", '{"command": "1"}'),), "no tool named 'python'"),
    ((ToolCall("x", "bash", "{not json"),), "not valid JSON"),
    ((ToolCall("x", "bash", '{"cmd": "ls"}'),), 'non-empty "command"'),
    ((ToolCall("x", "bash", '{"command": "   "}'),), 'non-empty "command"'),
])
def test_bad_native_calls_are_format_errors(calls, fragment):
    with pytest.raises(FormatError, match=fragment):
        parse_native_action(calls)


def test_auto_uses_text_for_models_without_tools():
    seen = []

    def script(messages, info):
        seen.append(info.params.tools)
        return f"```bash\necho {FINISH_MARKER}\n```"

    _, _, result = run(script, tools=False)
    assert result.exit_reason == "submitted" and seen == [None]


def test_text_protocol_can_be_forced_on_a_tool_model():
    seen = []

    def script(messages, info):
        seen.append((info.params.tools, messages[0]["content"]))
        return f"```bash\necho {FINISH_MARKER}\n```"

    run(script, protocol="text")
    assert seen[0][0] is None and "```bash" in seen[0][1]


def test_tool_calls_protocol_on_a_text_model_is_a_config_error():
    with pytest.raises(ConfigError, match="does not take native tool calls"):
        run(lambda m, i: SUBMIT, tools=False, protocol="tool_calls")


def test_unknown_protocol_is_a_config_error():
    with pytest.raises(ConfigError, match="parameter protocol: expected 'auto' | "
                                          "'tool_calls' | 'text'"):
        STRATEGIES.check("agent", {"protocol": "xml"})


def test_turn_bon_selects_among_tool_call_candidates_and_runs_only_the_pick():
    turns = [[call("touch a.txt", "a"), call("touch b.txt", "b")], [SUBMIT, SUBMIT]]
    shown = []

    def selector(messages, info):
        shown.append(messages[-1]["content"])
        return json.dumps({"rationale": "b", "selected_index": 1})

    ctx = context(lambda m, info: turns[info.call_number // 2][info.sample_index],
                  selector=selector)
    cfg = TurnBoNParams(n=2)
    env = ScriptedEnvironment()
    result = run_attempt(ctx, env, TurnBoNPolicy(cfg), cfg)
    assert env.executed == ["touch b.txt", f"echo {FINISH_MARKER}"]
    assert set(env.files) == {"b.txt"}
    assert '[bash tool call] {"command": "touch a.txt"}' in shown[0]
    assert result.exit_reason == "submitted"


@pytest.mark.parametrize("choice,sent", [("auto", None), ("required", "required"),
                                         ("bash", "bash")])
def test_tool_choice_is_sent_only_when_not_the_default(choice, sent):
    seen = []

    def script(messages, info):
        seen.append(info.params.tool_choice)
        return SUBMIT

    run(script, tool_choice=choice)
    assert seen == [sent]


def test_unknown_tool_choice_is_a_config_error():
    with pytest.raises(ConfigError, match="parameter tool_choice: expected 'auto' | "
                                          "'required' | 'bash'"):
        STRATEGIES.check("agent", {"tool_choice": "python"})


def test_a_raw_newline_inside_the_command_string_is_accepted():
    raw = '{"command": "cat <<EOF > a.txt\nhello\nEOF"}'  # not escaped: strict JSON refuses
    action = parse_native_action((ToolCall("x", "bash", raw),))
    assert action.command == "cat <<EOF > a.txt\nhello\nEOF" and action.form == "native"
