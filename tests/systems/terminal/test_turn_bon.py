"""Turn-BoN: N candidates per turn, the selector's pick is the only one that runs."""

from __future__ import annotations

import json

import pytest

from tests.systems.terminal.agent.scripted_environment import ScriptedEnvironment
from tether.context import TrialContext
from tether.core.budget import BudgetSpec
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.agent.loop import run_attempt
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.spec import TerminalSpec
from tether.systems.terminal.turn_bon import TurnBoNParams, TurnBoNPolicy
from tether.testing.scripted_models import ScriptedModel

SUBMIT = f"Finished.\n```bash\necho {FINISH_MARKER}\n```"


def bash(cmd: str, thought: str = "Next.") -> str:
    return f"{thought}\n```bash\n{cmd}\n```"


def context(generator, selector, budget: BudgetSpec | None = None) -> TrialContext:
    spec = TrialSpec(suite="t", task_id="x", strategy="turn_bon",
                     models={"proposer": "g", "selector": "s"}, budget=budget or BudgetSpec())
    task = Task(id="x", suite="t", prompt="Make exactly one file.", metric="scripted_check",
                artifact_kind="shell")
    return TrialContext(spec, task, {"proposer": ScriptedModel(generator),
                                     "selector": ScriptedModel(selector)})


def per_turn(turns: list[list[str]], n: int):
    """A generator script: turn t's i-th candidate is turns[t][i]."""
    return lambda messages, info: turns[info.call_number // n][info.sample_index]


def pick(*indices: int):
    return [json.dumps({"rationale": f"pick {i}", "selected_index": i}) for i in indices]


def run(generator, selector, n, env=None, **config):
    ctx = context(generator, selector)
    cfg = TurnBoNParams(n=n, **config)
    env = env or ScriptedEnvironment()
    return ctx, env, run_attempt(ctx, env, TurnBoNPolicy(cfg), cfg)


def test_only_the_selected_candidate_runs():
    turns = [[bash("touch a.txt"), bash("touch b.txt"), bash("touch c.txt")], [SUBMIT] * 3]
    ctx, env, result = run(per_turn(turns, 3), pick(1, 0), 3)
    assert result.exit_reason == "submitted"
    assert env.executed == ["touch b.txt", f"echo {FINISH_MARKER}"]
    assert set(env.files) == {"b.txt"}
    record = result.turns[0].to_json()
    assert record["selected_index"] == 1
    assert [c["command"] for c in record["candidates"]] == ["touch a.txt", "touch b.txt",
                                                           "touch c.txt"]
    assert record["selector"]["replies"] == [pick(1)[0]]
    assert record["selector"]["rationale"] == "pick 1" and not record["selector_failed"]
    gen = [c for c in ctx.calls if c.role == "generator"]
    assert len(gen) == 6 and {c.sample_index for c in gen} == {0, 1, 2}
    assert [c.role for c in ctx.calls].count("selector") == 2


def test_candidates_are_iid_samples_at_temperature_one():
    params = []

    def generator(messages, info):
        params.append((info.params.temperature, info.params.top_p, info.sample_index))
        return SUBMIT

    ctx, _, _ = run(generator, pick(0), 2)
    assert params == [(1.0, 0.95, 0), (1.0, 0.95, 1)]
    # one call with n = 2: distinct sample indices, hence distinct seeds per sample
    assert [(c.role, c.sample_index) for c in ctx.calls[:2]] == [("generator", 0),
                                                                 ("generator", 1)]


def test_selector_sees_candidates_without_private_reasoning_and_unrunnable_ones():
    prompts = []

    def selector(messages, info):
        prompts.append(messages)
        return pick(1)[0]

    turns = [[bash("touch a.txt", "<think>secret plan</think>Make a."),
              "I refuse to use a block.", bash("ls")], [SUBMIT] * 3]
    _, env, result = run(per_turn(turns, 3), selector, 3)
    system, user = prompts[0][0]["content"], prompts[0][1]["content"]
    assert '"selected_index"' in system and '"rationale"' in system
    assert "Make exactly one file." in user
    assert "secret plan" not in user and "Make a." in user
    assert "cannot run: Your reply has no ```bash block" in user
    assert '<candidate index="2">' in user
    # candidate 1 could not run, and picking it makes the turn a format error
    assert result.turns[0].command is None and result.turns[0].format_error
    assert result.turns[0].decision.candidates[1].command is None
    # the second turn's selector sees the first turn in its transcript
    assert "format error" in prompts[1][1]["content"]


def test_selector_failure_falls_back_to_candidate_zero_and_is_flagged():
    turns = [[bash("touch a.txt"), bash("touch b.txt")], [SUBMIT] * 2]
    ctx, env, result = run(per_turn(turns, 2), ["no idea"] * 4 + pick(0), 2)
    assert env.executed[0] == "touch a.txt"
    record = result.turns[0].to_json()
    assert record["selector_failed"] and record["selected_index"] == 0
    assert len(record["selector"]["replies"]) == 4
    assert not result.turns[1].to_json()["selector_failed"]


def test_no_selector_call_when_no_candidate_can_run():
    turns = [["none", "neither"], [SUBMIT, SUBMIT]]
    ctx, env, result = run(per_turn(turns, 2), pick(1), 2)
    assert result.turns[0].decision.selector_skipped == "no candidate can run"
    assert [c.role for c in ctx.calls].count("selector") == 1  # only turn 2
    assert result.exit_reason == "submitted"


def test_n_one_is_the_baseline_without_selector_calls():
    ctx, env, result = run([bash("touch a.txt"), SUBMIT], [], 1)
    assert result.exit_reason == "submitted" and env.executed[0] == "touch a.txt"
    assert {c.role for c in ctx.calls} == {"generator"}


@pytest.fixture
def bare_task_dir(tmp_path):
    (tmp_path / "environment").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    return tmp_path


def test_unselected_candidates_leave_no_trace_in_a_real_sandbox(bare_task_dir):
    turns = [[bash(f"echo {k} > {k}.txt") for k in ("alpha", "beta", "gamma")],
             [bash("ls /app")] * 3, [SUBMIT] * 3]
    spec = TerminalSpec(task_dir=bare_task_dir, agent_timeout_s=60)
    with TerminalEnvironment(spec) as env:
        ctx, _, result = run(per_turn(turns, 3), pick(2, 0, 0), 3, env=env)
        assert result.exit_reason == "submitted"
        assert sorted(p.name for p in env.app_dir.iterdir()) == ["gamma.txt"]
        assert (env.app_dir / "gamma.txt").read_text() == "gamma\n"
        assert result.turns[1].output == "gamma.txt\n"


def test_a_selector_call_that_does_not_fit_the_budget_ends_the_attempt():
    # two candidates of 5 (scripted) tokens use the whole budget
    ctx = context(lambda m, i: bash("touch a.txt"), pick(0), BudgetSpec(total=10))
    cfg = TurnBoNParams(n=2, max_tokens=5)
    env = ScriptedEnvironment()
    result = run_attempt(ctx, env, TurnBoNPolicy(cfg), cfg)
    assert result.exit_reason == "token_budget" and env.executed == []


def _run_with(policy_kwargs, selector, turns, n=2):
    ctx = context(per_turn(turns, n), selector)
    cfg = TurnBoNParams(n=n, **policy_kwargs)
    result = run_attempt(ctx, ScriptedEnvironment(), TurnBoNPolicy(cfg), cfg)
    return ctx, result


def test_the_selector_reads_the_agents_earlier_replies_and_whole_outputs():
    long = "x" * 3000
    turns = [[bash(f"echo {long}", "I will print the long line first."), bash("ls")],
             [SUBMIT, bash("ls")]]
    ctx, result = _run_with({}, pick(0, 0), turns)
    assert result.exit_reason == "submitted"
    second = [c for c in ctx.calls if c.role == "selector"][1].messages[1]["content"]
    assert "I will print the long line first." in second  # the reply text, not only $ cmd
    assert long in second  # nothing cut below the agent's own observation limit
    assert "<think>" not in second


def test_thinking_budget_and_reasoning_effort_reach_the_selector_call():
    seen = []

    def selector(messages, info):
        seen.append((info.params.thinking_budget, info.params.max_tokens))
        return pick(0)[0]

    turns = [[SUBMIT, SUBMIT]]
    _run_with({"selector_reasoning_effort": "low", "selector_max_tokens": 100}, selector,
              turns)
    assert seen == [(2048, 100)]  # the answer keeps its own 100 tokens beside the thinking
    with pytest.raises(Exception, match="reasoning_effort"):
        TurnBoNParams(n=2, selector_reasoning_effort="extreme")


def test_a_context_overflow_retries_with_a_fitted_transcript():
    from tether.models.errors import ContextLengthExceeded

    sizes = []

    def selector(messages, info):
        text = messages[1]["content"]
        sizes.append(len(text))
        if len(text) > 12_000:  # each turn shows ~5,000 characters (reply and output)
            raise ContextLengthExceeded("too long")
        return pick(0)[0]

    big = "y" * 2500
    turns = [[bash(f"echo {big}{i}"), bash("ls")] for i in range(4)] + [[SUBMIT, SUBMIT]]
    ctx, result = _run_with({}, selector, turns)
    assert result.exit_reason == "submitted"
    last = result.turns[-1].decision.selection
    assert not last.failed and last.errors[0].startswith("context length exceeded")
    prompt = [c for c in ctx.calls if c.role == "selector"][-1].messages[1]["content"]
    assert "earlier turns left out to fit the selector's context" in prompt
    assert f"{big}0" in prompt and f"{big}3" in prompt  # the first and the latest kept
