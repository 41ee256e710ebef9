"""The terminal strategies through the trial runner: end states, records, token metrics."""

from __future__ import annotations

import json

import pytest

from tests.systems.terminal.agent.scripted_environment import ScriptedEnvironment
from tether.core.budget import BudgetSpec
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.errors import ConfigError
from tether.models.base import Completion, Usage
from tether.models.errors import ContextLengthExceeded
from tether.runs.judge.transcript import attempt_view
from tether.runs.trial_runner import run_trial
from tether.strategies.base import build_strategy
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.agent.strategy import Agent
from tether.systems.terminal.trajectory_bon import TrajectoryBoN
from tether.systems.terminal.turn_bon import TurnBoN
from tether.testing.scripted_models import ScriptedModel

SUBMIT = f"Done.\n```bash\necho {FINISH_MARKER}\n```"


def bash(cmd: str) -> str:
    return f"Next.\n```bash\n{cmd}\n```"


def pick(i: int) -> str:
    return json.dumps({"rationale": "best", "selected_index": i})


@pytest.fixture
def envs(monkeypatch):
    """Every terminal strategy opens ScriptedEnvironments; the list holds them in order."""
    made: list[ScriptedEnvironment] = []

    def factory(ctx, params, fail_on=None):
        env = ScriptedEnvironment(fail_on=ctx.task.data.get("fail_on"))
        made.append(env)
        return env

    for cls in (Agent, TurnBoN, TrajectoryBoN):
        monkeypatch.setattr(cls, "environment_factory", staticmethod(factory))
    return made


def trial(strategy, params, generator, selector=(), *, metric="scripted_check",
          budget=None, **data):
    task = Task(id="t1", suite="scripted", prompt="Create done.txt", metric=metric,
                artifact_kind="shell", data={"expect": "touch done.txt", **data})
    spec = TrialSpec(suite="scripted", task_id="t1", strategy=strategy,
                     strategy_params=params, models={"proposer": "gen", "selector": "sel"},
                     budget=budget or BudgetSpec(), seed=3)
    models = {"gen": ScriptedModel(generator), "sel": ScriptedModel(list(selector))}
    return run_trial(spec, task, model_factory=models.__getitem__)


def test_strategies_are_registered_and_check_their_params():
    assert build_strategy("agent", {"step_limit": 5}).params.step_limit == 5
    assert build_strategy("turn_bon", {"n": 8}).params.n == 8
    assert build_strategy("trajectory_bon", {"n": 2, "pick": "oracle"}).params.pick == "oracle"
    with pytest.raises(ConfigError, match="unknown parameter 'step_limt'") as info:
        build_strategy("agent", {"step_limt": 5})
    assert "did you mean 'step_limit'?" in (info.value.hint or "")
    with pytest.raises(ConfigError, match="pick"):
        build_strategy("trajectory_bon", {"pick": "best"})


def test_baseline_pass_delivers_the_transcript_and_scores_it_with_the_metric(envs):
    record, artifacts = trial("agent", {}, [bash("touch done.txt"), SUBMIT])
    assert record.status == "ok" and record.passed is True, record.error_message
    assert record.extra["end_state"] == "pass" and record.extra["exit_reason"] == "submitted"
    assert record.extra["turns"] == 2 and record.extra["n"] == 1
    art = artifacts[record.artifact]
    assert art.kind == "shell" and "touch done.txt" in art.text
    assert art.meta["app_dir"] == "/scripted/app"
    assert [o.purpose for o in record.observations] == ["metric"]  # verified once, cached
    assert envs[0].closed
    assert record.extra["tokens"] == {"generator_output": 10}


def test_wrong_submission(envs):
    record, _ = trial("agent", {}, [bash("touch other.txt"), SUBMIT])
    assert (record.status, record.passed, record.extra["end_state"]) == (
        "ok", False, "wrong_submission")


def test_running_out_of_steps_is_a_time_limit_but_still_verified(envs):
    record, _ = trial("agent", {"step_limit": 2}, lambda m, i: bash("ls"))
    assert (record.status, record.extra["end_state"]) == ("timeout", "time_limit")
    assert record.passed is False and record.metric is not None


def test_an_attempt_a_limit_stopped_fails_even_when_the_verifier_passes(envs):
    record, _ = trial("agent", {"step_limit": 1}, [bash("touch done.txt")])
    assert record.extra["exit_reason"] == "step_limit"
    assert record.extra["end_state"] == "time_limit"
    # the verifier's verdict stays on the record (invariant 1); the trial follows the ending
    assert record.metric is not None and record.metric.passed is True
    assert record.passed is False and record.score == 0.0


def test_the_run_summary_counts_a_stopped_attempt_with_a_passing_state_as_a_failure(envs):
    from tether.runs.summary import arm_rows

    stopped, _ = trial("agent", {"step_limit": 1}, [bash("touch done.txt")])
    submitted, _ = trial("agent", {}, [bash("touch done.txt"), SUBMIT])
    (row,) = arm_rows([stopped, submitted], {"models": []})
    assert (row["trials"], row["passed"], row["pass_rate"], row["mean_score"]) == (
        2, 1, 0.5, 0.5)


def test_a_reply_cut_at_the_output_limit_is_out_of_context_not_a_format_error(envs):
    def gen(messages, info):
        if info.call_number == 0:
            return bash("touch done.txt")
        return Completion(text="Let me think about this at length", finish_reason="length",
                          usage=Usage(10, 7, 0))

    record, _ = trial("agent", {}, gen)
    assert record.extra["exit_reason"] == "out_of_context"
    assert record.extra["end_state"] == "out_of_context" and record.status == "truncated"
    assert record.extra["format_errors"] == 0 and record.extra["turn_records"][-1]["cut_off"]
    assert "cut off at the model's output limit" in attempt_view(record).transcript


def test_a_cut_complete_command_still_cannot_run(envs):
    cut = Completion(text=bash("touch done.txt"), finish_reason="length", usage=Usage(1, 5, 0))
    record, _ = trial("agent", {}, [cut])
    assert envs[0].executed == [] and record.extra["end_state"] == "out_of_context"


def test_format_errors_in_a_row_are_a_failure_ending_of_their_own(envs):
    record, _ = trial("agent", {"max_format_errors": 2}, lambda m, i: "no block here")
    assert (record.extra["exit_reason"], record.extra["end_state"]) == ("format_errors",
                                                                        "format_error")
    # the model's failure, scored as one: never an error, which is never scored
    assert (record.status, record.passed, record.score) == ("ok", False, 0.0)


def test_token_budget_end(envs):
    # scripted tokens are words: 5 per reply, so the third reply is cut to 2 words
    record, _ = trial("agent", {"max_tokens": 5}, lambda m, i: bash("ls"),
                      budget=BudgetSpec(total=12))
    assert record.status == "budget_exhausted"
    assert record.extra["end_state"] == "time_limit"
    assert record.extra["exit_reason"] == "token_budget"
    assert record.extra["turns"] == 3 and record.tokens() == 12


def test_out_of_context(envs):
    def gen(messages, info):
        if info.call_number:
            raise ContextLengthExceeded("too long")
        return bash("ls")

    record, _ = trial("agent", {}, gen)
    assert (record.status, record.extra["end_state"]) == ("truncated", "out_of_context")
    # the judge is told how the attempt stopped
    assert "outgrew the model's context" in attempt_view(record).transcript


def test_a_sandbox_failure_is_an_agent_error_never_a_score(envs):
    record, _ = trial("agent", {}, [bash("touch done.txt"), bash("boom"), SUBMIT],
                      fail_on="boom")
    assert record.status == "error" and record.passed is None and record.score is None
    assert record.error_kind == "SandboxError" and "scripted sandbox failure" in \
        record.error_message
    assert record.extra["end_state"] == "agent_error" and record.metric is None


def test_a_verifier_failure_is_an_agent_error(envs):
    record, _ = trial("agent", {}, [bash("touch done.txt"), SUBMIT],
                      metric="scripted_check;fail_with=no reward file")
    assert record.status == "error" and record.passed is None
    assert record.extra["end_state"] == "agent_error" and record.error_kind == "instrument"


def test_turn_bon_records_every_candidate_and_counts_tokens_by_role(envs):
    n = 3

    def gen(messages, info):
        turn, i = divmod(info.call_number, n)
        return [[bash("touch x.txt"), bash("touch done.txt"), "no block"],
                [SUBMIT] * n][turn][i]

    record, _ = trial("turn_bon", {"n": n}, gen, [pick(1), pick(0)])
    assert record.passed is True and record.extra["end_state"] == "pass"
    assert envs[0].executed == ["touch done.txt", f"echo {FINISH_MARKER}"]
    first = record.extra["turn_records"][0]
    assert first["selected_index"] == 1
    assert [c["command"] for c in first["candidates"]] == ["touch x.txt", "touch done.txt",
                                                          None]
    assert first["selector"]["replies"] == [pick(1)]
    tokens = record.extra["tokens"]
    # generator: 5 + 5 + 2 words, then 3 x 5 words; selector: 4 words per JSON reply
    assert tokens == {"generator_output": 27, "selector_output": 8}
    assert record.spend["generator"].output_tokens == 27
    assert record.extra["selector_failed_turns"] == 0


def test_trajectory_bon_oracle_delivers_the_first_passing_attempt(envs):
    attempts = [bash("touch x.txt"), SUBMIT, bash("touch done.txt"), SUBMIT,
                bash("touch done.txt"), SUBMIT]
    record, artifacts = trial("trajectory_bon", {"n": 3, "pick": "oracle"}, attempts)
    assert record.extra["selected_attempt"] == 1
    assert record.extra["oracle_passed"] == [False, True, True]
    assert record.passed is True and len(envs) == 3 and all(e.closed for e in envs)
    assert "attempt 2 of 3" in artifacts[record.artifact].text
    assert [o.purpose for o in record.observations].count("selection") == 3


def test_trajectory_bon_oracle_picks_by_the_ending_first(envs):
    """Attempt 1 leaves a passing state but hits the step limit; attempt 2 submits and
    passes: the oracle delivers the one that submitted."""
    attempts = [bash("touch done.txt"), bash("ls"), bash("touch done.txt"), SUBMIT]
    record, _ = trial("trajectory_bon", {"n": 2, "pick": "oracle", "step_limit": 2},
                      attempts)
    assert record.extra["oracle_passed"] == [True, True]
    assert record.extra["oracle_endings"] == ["time_limit", "pass"]
    assert record.extra["selected_attempt"] == 1
    assert record.extra["end_state"] == "pass" and record.passed is True


def test_trajectory_bon_selector_picks_an_attempt(envs):
    attempts = [bash("touch done.txt"), SUBMIT, bash("touch x.txt"), SUBMIT]
    record, _ = trial("trajectory_bon", {"n": 2}, attempts, [pick(1)])
    assert record.extra["selected_attempt"] == 1 and record.passed is False
    assert record.extra["end_state"] == "wrong_submission"
    assert len(record.extra["attempts"]) == 2 and not record.extra["selector_failed"]
    selector_prompt = [c for c in record.calls if c.role == "selector"][0].messages[1]
    assert '<attempt index="1" ended="submitted">' in selector_prompt["content"]
    assert "$ touch x.txt" in selector_prompt["content"]


# --- end to end on the real sandbox: bundled Harbor tasks, bwrap, the hidden verifier ---

def bundled(task_id: str):
    from tether.systems.terminal.harbor import BUNDLED_TERMINAL, load_harbor_task

    return load_harbor_task(BUNDLED_TERMINAL / task_id, suite="terminal")


def real_trial(task, strategy, params, generator, selector=()):
    spec = TrialSpec(suite="terminal", task_id=task.id, strategy=strategy,
                     strategy_params=params, models={"proposer": "gen", "selector": "sel"})
    models = {"gen": ScriptedModel(generator), "sel": ScriptedModel(list(selector))}
    return run_trial(spec, task, model_factory=models.__getitem__)


def test_turn_bon_passes_a_real_task_through_the_hidden_verifier():
    n = 2

    def gen(messages, info):
        turn, i = divmod(info.call_number, n)
        return [[bash("echo hi > hello.txt"), bash("printf 'hello\\n' > hello.txt")],
                [bash("cat /app/hello.txt; ls -a /app")] * n, [SUBMIT] * n][turn][i]

    record, artifacts = real_trial(bundled("hello-file"), "turn_bon", {"n": n}, gen,
                                   [pick(1), pick(0), pick(0)])
    assert record.status == "ok" and record.passed is True, record.error_message
    assert record.extra["end_state"] == "pass"
    assert record.metric.instrument == "terminal_verifier" and record.metric.score == 1.0
    turns = record.extra["turn_records"]
    assert turns[1]["output"].startswith("hello\n")
    assert "hello.txt" in turns[1]["output"] and "tests" not in turns[1]["output"]
    # what the attempt changed under /app, for the reward-hacking judge
    assert record.extra["changed_files"] == ["added /app/hello.txt"]
    app_dir = artifacts[record.artifact].meta["app_dir"]
    assert app_dir and not __import__("os").path.exists(app_dir)  # cleaned up after scoring


def test_baseline_wrong_submission_on_a_real_task():
    record, _ = real_trial(bundled("count-lines"), "agent", {},
                           [bash("echo 42 > /app/count.txt"), SUBMIT])
    assert (record.status, record.passed, record.extra["end_state"]) == (
        "ok", False, "wrong_submission")
    assert record.metric.defects[0].kind == "verifier_failed"


def test_trajectory_bon_oracle_on_a_real_task_verifies_each_attempts_own_app():
    attempts = [bash("echo bye > hello.txt"), SUBMIT, bash("echo hello > hello.txt"), SUBMIT]
    record, _ = real_trial(bundled("hello-file"), "trajectory_bon", {"n": 2, "pick": "oracle"},
                           attempts)
    assert record.extra["oracle_passed"] == [False, True]
    assert record.extra["selected_attempt"] == 1 and record.passed is True
    assert [a["changed_files"] for a in record.extra["attempts"]] == [
        ["added /app/hello.txt"]] * 2 and record.extra["changed_files"] == ["added /app/hello.txt"]
