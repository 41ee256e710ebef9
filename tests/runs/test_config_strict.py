"""Strict configs: a role, a share or a key that would be silently ignored is a config error.

Before: `reviewr = ...` next to `proposer` ran with the reviewer's calls on the
proposer's model, `shares = {proposer = -0.5}` ran every trial into budget_exhausted,
and `shares = {reviwer = 0.5}` capped nothing. Each is now refused by `tether run`
with exit 2, one `error:` line naming the file and the key, and a "did you mean" hint.
The roles accepted are those the experiment's strategies and instruments declare.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from pydantic import Field

from tether import params
from tether.cli import main
from tether.core.task import Task
from tether.errors import ConfigError
from tether.runs.config import load_experiment
from tether.runs.expansion import load_tasks
from tether.strategies.base import STRATEGIES

from .conftest import SCRIPTED, write_suite


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def refused(tmp_path: Path, toml: str, *needles: str, hint: str = "") -> str:
    """`tether run` on `toml`: exit 2, one `error:` line holding the file and `needles`,
    `hint` in the hint line, no run directory made. Returns the error line."""
    path = tmp_path / "exp.toml"
    path.write_text(toml)
    out_dir = tmp_path / "run"
    res = invoke("run", str(path), "--out", str(out_dir))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    errors = [line for line in res.output.splitlines() if line.startswith("error:")]
    hints = [line for line in res.output.splitlines() if line.startswith("hint:")]
    assert len(errors) == 1, res.output
    assert errors[0].startswith(f"error: {path}: "), res.output
    for needle in needles:
        assert needle in errors[0], res.output
    assert hint in " ".join(hints), res.output
    assert not out_dir.exists()
    return errors[0]


def config(*, models: str = "", strategies: str = "single_shot", params: str = "{}",
           budgets: str = "[100]", suites: str = '["tether:suite.json"]') -> str:
    return (f"suites = {suites}\nseeds = 1\nbudgets = {budgets}\n"
            f"[models]\nproposer = '{SCRIPTED}'\n{models}\n"
            f"[[strategies]]\nname = '{strategies}'\nparams = {params}\n"
            "[run]\nsandbox = 'subprocess'\n")


@pytest.fixture(autouse=True)
def _suite(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")


# --- [models]: only roles something of the experiment calls ---------------------------

def test_typo_in_a_model_role_is_refused_with_a_hint(tmp_path: Path) -> None:
    refused(tmp_path, config(models=f"reviewr = '{SCRIPTED}'", strategies="proposer_reviewer"),
            "models[0].reviewr", "calls the role 'reviewr'",
            hint="did you mean 'reviewer'? roles called here: proposer, reviewer")


def test_a_real_role_no_arm_calls_is_refused(tmp_path: Path) -> None:
    # single_shot never calls a reviewer: this model would never serve a call
    refused(tmp_path, config(models=f"reviewer = '{SCRIPTED}'"), "models[0].reviewer",
            hint="roles called here: proposer")


def test_declared_roles_follow_the_params(tmp_path: Path) -> None:
    selector = f"selector = '{SCRIPTED}'"
    refused(tmp_path, config(models=selector, strategies="best_of_n",
                             params="{n = 2, selector = 'oracle'}"), "models[0].selector")
    load_experiment(_write(tmp_path, config(models=selector, strategies="best_of_n",
                                            params="{n = 2, selector = 'llm'}")))
    # a model-backed feedback part spends under the reviewer role
    reviewer = f"reviewer = '{SCRIPTED}'"
    refused(tmp_path, config(models=reviewer, strategies="self_loop",
                             params="{feedback = 'execution'}"), "models[0].reviewer")
    load_experiment(_write(tmp_path, config(models=reviewer, strategies="self_loop",
                                            params="{feedback = 'critique'}")))


def test_an_agent_calls_the_generator_not_the_proposer(tmp_path: Path) -> None:
    # `proposer` is always accepted in [models] (its model serves roles without one)...
    load_experiment(_write(tmp_path, config(strategies="agent")))
    # ...but an agent charges nothing to it, so a proposer share would cap nothing
    refused(tmp_path, config(strategies="agent",
                             budgets="[{total = 100, shares = {proposer = 0.5}}]"),
            "budgets[0].shares.proposer", hint="shares allowed here: execution, generator")


def test_a_metric_model_needs_a_model_backed_metric(tmp_path: Path) -> None:
    # the suite's metric (scripted_check) calls no model: checked once tasks are loaded
    line = refused(tmp_path, config(models=f"metric = '{SCRIPTED}'"), "models[0].metric",
                   "scripted_check")
    assert "no task's metric instrument calls a model" in line
    exp = load_experiment(_write(tmp_path, config(models=f"metric = '{SCRIPTED}'")))
    judged = [Task(id="t1", suite="s", prompt="p", metric="critique", artifact_kind="text")]
    assert load_tasks(exp, lambda _spec: judged) == judged


# --- budget shares -------------------------------------------------------------------

@pytest.mark.parametrize(("shares", "key", "what"), [
    ("{proposer = -0.5}", "budgets[0].shares.proposer", "between 0 and 1 (got -0.5)"),
    ("{proposer = 1.5}", "budgets[0].shares.proposer", "between 0 and 1 (got 1.5)"),
    ("{proposer = 0.7, reviewer = 0.5}", "budgets[0].shares", "add up to 1.2"),
    ("{proposer = 0.5, execution = 0.6}", "budgets[0].shares", "add up to 1.1"),
])
def test_shares_are_fractions_of_one_total(tmp_path: Path, shares: str, key: str,
                                           what: str) -> None:
    refused(tmp_path, config(strategies="proposer_reviewer",
                             budgets=f"[{{total = 1000, shares = {shares}}}]"),
            f"{key}: ", what)


def test_unknown_share_role_is_refused_with_a_hint(tmp_path: Path) -> None:
    refused(tmp_path, config(strategies="proposer_reviewer",
                             budgets="[100, {total = 1000, shares = {reviwer = 0.5}}]"),
            "budgets[1].shares.reviwer", "would cap nothing",
            hint="did you mean 'reviewer'? shares allowed here: execution, proposer, reviewer")


def test_shares_need_a_total(tmp_path: Path) -> None:
    refused(tmp_path, config(budgets="[{shares = {proposer = 0.5}}]"), "budgets[0].shares",
            "has none", hint="give the budget a total")


def test_valid_shares_still_load(tmp_path: Path) -> None:
    exp = load_experiment(_write(tmp_path, config(
        strategies="proposer_reviewer",
        budgets="[{total = 1000, shares = {proposer = 0.33, execution = 0.34, "
                "reviewer = 0.33}}, {total = 1000, shares = {reviewer = 0}}]")))
    assert [b.shares for b in exp.budgets][1] == {"reviewer": 0}


# --- unknown keys, suites and providers name the file ---------------------------------

def test_unknown_keys_get_a_did_you_mean(tmp_path: Path) -> None:
    refused(tmp_path, config().replace("seeds = 1", "sedes = 1"), "sedes: unknown key",
            hint="did you mean 'seeds'?")
    refused(tmp_path, config() + "concurency = 2\n", "run.concurency: unknown key",
            hint="did you mean 'concurrency'?")


def test_unknown_suite_and_provider_name_the_config_file(tmp_path: Path) -> None:
    refused(tmp_path, config(suites='["nope"]'), "suites[0]: unknown suite spec 'nope'",
            hint="Bundled suites")
    refused(tmp_path, config().replace(SCRIPTED, "nope/model"),
            "models[0].proposer: unknown model provider 'nope'", hint="known forms")


def test_an_unknown_feedback_instrument_is_refused_before_running(tmp_path: Path) -> None:
    refused(tmp_path, config(strategies="self_loop", params="{feedback = 'critque'}"),
            "strategies[0]: strategy 'self_loop': parameter feedback: unknown instrument "
            "'critque'", hint="critique")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ok.toml"
    path.write_text(text)
    return path


def test_resume_names_the_resolved_config(tmp_path: Path) -> None:
    """A stored config whose suite went away is refused naming config.resolved.json."""
    suite = tmp_path / "gone.json"
    write_suite(suite)
    cfg = _write(tmp_path, config(suites=f'["tether:{suite}"]'))
    out = tmp_path / "r"
    assert invoke("run", str(cfg), "--out", str(out), "--json").exit_code == 0
    suite.unlink()
    res = invoke("run", "--resume", str(out))
    assert res.exit_code == 2, res.output
    assert f"error: {out / 'config.resolved.json'}: suites[0]: " in res.output


def test_load_experiment_refuses_too_and_suggests_only_close_roles(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"ok\.toml: models\[0\]\.reviewr: ") as err:
        load_experiment(_write(tmp_path, config(models=f"reviewr = '{SCRIPTED}'")))
    assert "did you mean 'reviewer'" not in (err.value.hint or "")  # single_shot: no reviewer


def test_a_run_from_before_strict_configs_still_rescores(tmp_path: Path) -> None:
    """Rescore reads back what a run ran (its tasks from its config when the store has
    none): an unused role, accepted before configs were strict, does not stop it."""
    from tether.runs.rescore import stored_tasks
    from tether.runs.store import RunStore

    out = tmp_path / "r"
    assert invoke("run", str(_write(tmp_path, config())), "--out", str(out),
                  "--json").exit_code == 0
    with RunStore(out) as store:
        old = store.config()
        old["models"][0]["reviewer"] = SCRIPTED  # single_shot never calls it
        store.write_config(old)
        store.set_meta("tasks", None)
    with RunStore.open(out) as store:
        assert sorted(stored_tasks(store)) == ["suite/t1", "suite/t2", "suite/t3"]
    res = invoke("run", "--resume", str(out))  # running more of it is refused, though
    assert res.exit_code == 2 and "models[0].reviewer" in res.output


class _NeverBuilt:
    """A strategy whose constructor fails: a config check must not call it."""

    name: ClassVar[str] = "never_built"

    class Params(params.Params):
        critic: bool = Field(False, description="a reviewer call reviews the draft")

        def roles(self) -> tuple[str, ...]:
            return ("proposer", "reviewer") if self.critic else ("proposer",)

    def __init__(self, **kwargs: Any) -> None:
        raise RuntimeError("built during config validation")


def test_a_config_is_checked_from_the_declarations_without_building(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    STRATEGIES.names()  # load the registry before swapping its entries
    monkeypatch.setattr(STRATEGIES, "_entries", {**STRATEGIES._entries,
                                                 "never_built": _NeverBuilt})
    path = tmp_path / "exp.toml"
    path.write_text(config(strategies="never_built", params="{critic = true}",
                           models=f"reviewer = '{SCRIPTED}'"))
    exp = load_experiment(path)  # the roles come from Params.roles(), nothing is built
    assert exp.strategies[0].params == {"critic": True}
    refused(tmp_path, config(strategies="never_built", models=f"reviewer = '{SCRIPTED}'"),
            "models[0].reviewer: no strategy or instrument of this experiment calls the "
            "role 'reviewer'")


def test_a_wrong_type_in_params_is_one_line_before_any_trial(tmp_path: Path) -> None:
    line = refused(tmp_path, config(strategies="best_of_n", params="{n = 'three'}"),
                   "strategies[0]: strategy 'best_of_n': parameter n: expected int | 'auto' "
                   "(got 'three')", hint="tether strategies show best_of_n")
    assert line.count("error") == 1


def test_a_misspelled_strategy_param_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    refused(tmp_path, config(strategies="best_of_n", params="{temprature = 0.5}"),
            "strategies[0]: strategy 'best_of_n': unknown parameter 'temprature'",
            hint="did you mean 'temperature'?")


def test_an_instrument_option_inside_a_strategy_param_is_checked(tmp_path: Path) -> None:
    refused(tmp_path, config(strategies="self_loop",
                             params="{feedback = 'execution;chekcs=visible'}"),
            "parameter feedback: instrument 'execution' in 'execution;chekcs=visible': "
            "unknown parameter 'chekcs'", hint="did you mean 'checks'?")
