"""Each strategy's declared `roles` are exactly the roles its calls are charged to.

The config check (tether.runs.roles) accepts a model or a budget share only for a
declared role, so a declaration that misses a role would refuse a valid config, and
one that names a role never called would let a typo through: both are checked here by
running whole trials that reach every call of the strategy.
"""

from __future__ import annotations

import json

import pytest

from tests.strategies.trial_helpers import RoleScript, code_task, program, run
from tests.systems.terminal.test_strategies import SUBMIT, bash, envs, pick, trial  # noqa: F401
from tether.strategies.base import build_strategy, declared_roles, strategy_roles

REVIEW = json.dumps({"issues": [{"location": "f", "cause": "missing beta", "change": "add"}]})


def _script() -> RoleScript:
    # the proposer never passes (beta is missing), so loops run every cycle
    return RoleScript(
        proposer=lambda m, i: program(f"def f():\n    return 'alpha {i.call_number}'"),
        reviewer=lambda m, i: REVIEW,
        selector=lambda m, i: json.dumps({"selected_index": 1}))


@pytest.mark.parametrize(("strategy", "params", "roles"), [
    ("single_shot", {}, {"proposer"}),
    ("reasoning", {"mode": "prompt", "max_tokens": 64}, {"proposer"}),
    ("best_of_n", {"n": 2, "selector": "oracle"}, {"proposer"}),
    ("best_of_n", {"n": 2, "selector": "llm"}, {"proposer", "selector"}),
    ("best_of_n", {"n": 2, "selector": "verifier", "verifier": "critique"},
     {"proposer", "reviewer"}),
    ("best_of_n", {"n": 2, "selector": "verifier", "verifier": "scripted_partial"},
     {"proposer"}),
    ("self_loop", {"max_iterations": 1, "feedback": "scripted_partial"}, {"proposer"}),
    ("self_loop", {"max_iterations": 1, "feedback": "critique"}, {"proposer", "reviewer"}),
    ("iad", {"k": 2, "max_iterations": 1, "feedback": "scripted_partial"}, {"proposer"}),
    ("iad", {"k": 2, "max_iterations": 1, "feedback": "critique+scripted_partial"},
     {"proposer", "reviewer"}),
    ("proposer_reviewer", {"max_iterations": 1, "feedback": "none"}, {"proposer", "reviewer"}),
    ("proposer_reviewer", {"max_iterations": 1, "feedback": "screenshot_vlm"},
     {"proposer", "reviewer"}),
])
def test_code_strategies_declare_the_roles_they_call(strategy: str, params: dict,
                                                     roles: set[str]) -> None:
    assert set(declared_roles(build_strategy(strategy, params))) == roles
    assert strategy_roles(strategy, params) == declared_roles(build_strategy(strategy, params))
    if "screenshot_vlm" in str(params.get("feedback")):
        return  # a screenshot needs a browser; the declaration alone is the point here
    record, _ = run(strategy, params, _script(), task=code_task())
    assert record.status in ("ok", "budget_exhausted"), record.error_message
    assert {c.role for c in record.calls} == roles


@pytest.mark.parametrize(("strategy", "params", "roles"), [
    ("agent", {}, {"generator"}),
    ("turn_bon", {"n": 2}, {"generator", "selector"}),
    ("turn_bon", {"n": 1}, {"generator"}),
    ("trajectory_bon", {"n": 2, "pick": "selector"}, {"generator", "selector"}),
    ("trajectory_bon", {"n": 2, "pick": "oracle"}, {"generator"}),
])
def test_terminal_strategies_declare_the_roles_they_call(envs, strategy: str,  # noqa: F811
                                                         params: dict, roles: set[str]) -> None:
    assert set(declared_roles(build_strategy(strategy, params))) == roles
    assert strategy_roles(strategy, params) == declared_roles(build_strategy(strategy, params))
    n = params.get("n", 1)
    # every candidate runs a command that fails the check, then submits: the attempts
    # end with a wrong submission, so a selector (if any) has to choose among them
    generator = [bash("touch x.txt")] * n + [SUBMIT] * n
    if strategy == "trajectory_bon":
        generator = [bash("touch x.txt"), SUBMIT] * n
    record, _ = trial(strategy, params, generator, [pick(0)] * 4)
    assert record.extra["end_state"] == "wrong_submission", record.error_message
    assert {c.role for c in record.calls} == roles


def test_a_strategy_that_declares_no_roles_cannot_be_checked() -> None:
    from tether.errors import ConfigError

    class Undeclared:
        name = "undeclared"

    with pytest.raises(ConfigError, match="declares no roles") as err:
        declared_roles(Undeclared())  # type: ignore[arg-type]
    assert "roles" in (err.value.hint or "")
