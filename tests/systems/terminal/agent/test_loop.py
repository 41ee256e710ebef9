"""The bash agent loop: protocol, observations, limits and exit reasons (scripted doubles)."""

from __future__ import annotations

import json

import pytest

import tether.systems.terminal.agent.loop as loop
from tests.systems.terminal.agent.scripted_environment import FakeClock, ScriptedEnvironment
from tether.context import TrialContext
from tether.core.budget import BudgetSpec
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.errors import ConfigError
from tether.models.errors import ContextLengthExceeded
from tether.strategies import STRATEGIES
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.agent.loop import SamplePolicy, run_attempt
from tether.systems.terminal.agent.params import AgentParams
from tether.testing.scripted_models import ScriptedModel

SUBMIT = f"Done.\n```bash\necho {FINISH_MARKER}\n```"


def bash(cmd: str) -> str:
    return f"Next step.\n```bash\n{cmd}\n```"


def context(script, budget: BudgetSpec | None = None) -> TrialContext:
    spec = TrialSpec(suite="t", task_id="x", strategy="agent", models={"proposer": "s"},
                     budget=budget or BudgetSpec())
    task = Task(id="x", suite="t", prompt="Create the file done.txt.", metric="scripted_check",
                artifact_kind="shell")
    return TrialContext(spec, task, {"proposer": ScriptedModel(script)})


def run(script, env=None, budget=None, **config):
    ctx = context(script, budget)
    env = env or ScriptedEnvironment()
    cfg = AgentParams(**config)
    return ctx, env, run_attempt(ctx, env, SamplePolicy(cfg), cfg)


def test_commands_run_in_order_until_the_finish_marker():
    ctx, env, result = run([bash("touch done.txt"), bash("ls"), SUBMIT, bash("rm done.txt")])
    assert result.exit_reason == "submitted"
    assert env.executed == ["touch done.txt", "ls", f"echo {FINISH_MARKER}"]
    assert [t.step for t in result.turns] == [1, 2, 3]
    assert len(ctx.calls) == 3 and {c.role for c in ctx.calls} == {"generator"}
    assert result.transcript("h").splitlines() == [
        "# h", "# step 1: exit 0", "touch done.txt", "# step 2: exit 0", "ls",
        "# step 3: exit 0", f"echo {FINISH_MARKER}", "# ended: submitted"]


def test_the_model_sees_templates_then_json_observations():
    seen = []

    def script(messages, info):
        seen.append([dict(m) for m in messages])
        return [bash("ls"), SUBMIT][info.call_number]

    env = ScriptedEnvironment()
    env.files["a.txt"] = ""
    run(script, env)
    first = seen[0]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "exactly one" in first[0]["content"].lower() and FINISH_MARKER in first[0]["content"]
    assert "Create the file done.txt." in first[1]["content"] and "/app" in first[1]["content"]
    second = seen[1]
    assert second[2] == {"role": "assistant", "content": bash("ls")}
    assert json.loads(second[3]["content"].strip()) == {"returncode": 0, "output": "a.txt\n"}


def test_marker_not_alone_on_the_first_line_does_not_submit():
    _, env, result = run([bash(f"echo building {FINISH_MARKER}"), SUBMIT])
    assert result.exit_reason == "submitted" and len(env.executed) == 2


def test_samples_at_the_baseline_temperature_and_top_p():
    params = []

    def script(messages, info):
        params.append(info.params)
        return SUBMIT

    run(script)
    assert (params[0].temperature, params[0].top_p) == (1.0, 0.95)


def test_a_format_error_is_shown_to_the_model():
    seen = []

    def script(messages, info):
        seen.append(messages)
        return ["I would list the files.", SUBMIT][info.call_number]

    _, env, result = run(script)
    assert result.exit_reason == "submitted"
    assert result.turns[0].command is None and "no ```bash block" in result.turns[0].format_error
    assert seen[1][-1]["role"] == "user" and seen[1][-1]["content"].startswith("Format error:")
    assert "2 more format error(s)" in seen[1][-1]["content"]
    assert env.executed == [f"echo {FINISH_MARKER}"]


def test_three_format_errors_in_a_row_end_the_attempt():
    _, env, result = run(["no block", "```bash\nls\n```\n```bash\npwd\n```", "still none", SUBMIT])
    assert result.exit_reason == "format_errors"
    assert len(result.turns) == 3 and env.executed == []


def test_a_runnable_reply_resets_the_format_error_count():
    _, _, result = run(["x", "y", bash("ls"), "z", "w", SUBMIT])
    assert result.exit_reason == "submitted" and len(result.turns) == 6


def test_step_limit_counts_every_reply():
    _, env, result = run(lambda m, i: bash("ls"), step_limit=4)
    assert result.exit_reason == "step_limit" and len(env.executed) == 4


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The loop's clock, moved only by scripted sleeps: limits checked without waiting."""
    fake = FakeClock()
    monkeypatch.setattr(loop, "time", fake)
    return fake


def test_wall_time_ends_the_attempt_between_steps(clock):
    env = ScriptedEnvironment(clock=clock)
    _, env, result = run(lambda m, i: bash("sleep 0.2"), env=env, wall_time_s=0.3)
    assert result.exit_reason == "wall_time"
    assert len(env.executed) == 2
    # the second command only got the time that was left
    assert env.timeouts == [pytest.approx(0.3), pytest.approx(0.1)]
    assert result.wall_s == pytest.approx(0.4)


def test_token_budget_ends_the_attempt():
    # scripted tokens are words: each reply below is 5 words
    ctx, env, result = run(lambda m, i: bash("ls"), budget=BudgetSpec(total=10), max_tokens=5)
    assert result.exit_reason == "token_budget"
    assert len(env.executed) == 2 and ctx.ledger.charged() <= 10


def test_out_of_context_is_its_own_exit():
    def script(messages, info):
        if info.call_number == 2:
            raise ContextLengthExceeded("prompt of 9000 tokens > 8192")
        return bash("ls")

    _, _, result = run(script)
    assert result.exit_reason == "out_of_context" and "8192" in result.error
    assert len(result.turns) == 2


def test_a_sandbox_failure_is_an_agent_error_not_a_wrong_submission():
    _, _, result = run([bash("ls"), bash("cat broken"), SUBMIT],
                       env=ScriptedEnvironment(fail_on="broken"))
    assert result.exit_reason == "agent_error"
    assert result.error_kind == "SandboxError" and "scripted sandbox failure" in result.error


def test_long_output_reaches_the_model_as_head_and_tail():
    seen = []

    def script(messages, info):
        seen.append(messages)
        return [bash("big"), SUBMIT][info.call_number]

    env = ScriptedEnvironment(handler=lambda c: (0, "a" * 8000 + "b" * 8000)
                              if c == "big" else (0, f"{FINISH_MARKER}\n"))
    run(script, env)
    row = json.loads(seen[1][-1]["content"].strip())
    assert row["elided_chars"] == 6000
    assert row["output"].startswith("a" * 5000) and row["output"].endswith("b" * 5000)


def test_templates_are_strict_about_variables():
    with pytest.raises(ConfigError, match="undefined"):
        run([SUBMIT], system_template="You work in {{ wrkdir }}.")


def test_a_bad_observation_template_fails_before_any_call():
    with pytest.raises(ConfigError, match="observation_template: prompt template: .*undefined"):
        STRATEGIES.check("agent", {"observation_template": "{{ observaton }}"})


@pytest.mark.parametrize(("key", "value", "wanted"), [
    ("step_limit", 0, "greater than or equal to 1"),
    ("max_tokens", -1, "greater than or equal to 1"),
    ("max_format_errors", 0, "greater than or equal to 1"),
    ("observation_limit", 0, "greater than or equal to 1"),
    ("command_timeout_s", 0, "greater than 0"),
    ("wall_time_s", -5.0, "greater than 0"),
    ("command_timeout_s", float("inf"), "finite number"),
    ("top_p", 1.5, "less than or equal to 1"),
    ("temperature", -0.1, "greater than or equal to 0"),
])
def test_config_rejects_nonsense_limits(key, value, wanted):
    with pytest.raises(ConfigError, match=f"^strategy 'agent': parameter {key}: .*{wanted}"):
        STRATEGIES.check("agent", {key: value})


def test_each_recorded_call_keeps_the_messages_it_was_sent():
    ctx, _, _ = run([bash("ls"), bash("ls"), SUBMIT])
    assert [len(c.messages) for c in ctx.calls] == [2, 4, 6]


def test_the_environment_saying_time_is_up_ends_the_attempt():
    from tether.systems.terminal.environment import AgentTimeExceeded

    def handler(command):
        raise AgentTimeExceeded("agent timeout of 120s spent")

    _, env, result = run([bash("ls"), SUBMIT], env=ScriptedEnvironment(handler=handler))
    assert result.exit_reason == "wall_time" and len(env.executed) == 1
    assert result.turns[0].not_run == "agent timeout of 120s spent"


def test_a_reply_that_arrives_after_the_time_is_up_is_recorded_but_not_run(clock):
    def slow(messages, info):
        clock.sleep(0.3)
        return bash("touch late.txt")

    _, env, result = run(slow, wall_time_s=0.2)
    assert result.exit_reason == "wall_time" and env.executed == []
    (turn,) = result.turns
    assert turn.command is None and turn.format_error is None
    assert "ran out" in turn.not_run
    assert turn.to_json()["candidates"][0]["command"] == "touch late.txt"
