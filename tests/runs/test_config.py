"""The experiment config: shorthands, validation errors that name file and key, resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.runs.config import Experiment, experiment_from_dict, load_experiment
from tether.runs.shipped import SHIPPED_DIR

from .conftest import SCRIPTED, write_config, write_suite


def _load(tmp_path: Path, text: str) -> Experiment:
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return load_experiment(path)


BASE = f"""suites = ["code"]
[models]
proposer = '{SCRIPTED}'
[[strategies]]
name = "single_shot"
"""


def test_full_config_with_every_axis(tmp_path: Path) -> None:
    exp = _load(tmp_path, f"""
name = "study"
suites = ["code"]
tasks = ["fizz*", "re:^sort"]
limit = 2
seeds = 3
budgets = [512, {{total = 2048, count = "input+output", shares = {{reviewer = 0.5}}}}]
[[models]]
label = "small"
proposer = '{SCRIPTED}'
reviewer = "scripted:[\\"ok\\"]"
[[models]]
proposer = "scripted:[\\"x\\"]"
[[strategies]]
name = "single_shot"
label = "greedy"
params = {{max_tokens = 64}}
[[strategies]]
name = "proposer_reviewer"
label = "warm"
params = {{temperature = 0.7}}
[run]
concurrency = 3
cache = "readwrite"
sandbox = "subprocess"
""")
    assert exp.seeds == [0, 1, 2]
    assert [b.total for b in exp.budgets] == [512, 2048]
    assert exp.budgets[1].spec().shares == {"reviewer": 0.5}
    assert exp.models[0].roles == {"proposer": SCRIPTED, "reviewer": 'scripted:["ok"]'}
    assert [s.arm for s in exp.strategies] == ["greedy", "warm"]
    resolved = exp.resolved()
    assert [m["label"] for m in resolved["models"]] == ["small", "models1"]
    assert resolved["run"]["concurrency"] == 3


def test_shorthands_normalise(tmp_path: Path) -> None:
    exp = _load(tmp_path, f'suites = "code"\nstrategies = ["single_shot"]\n'
                          f"models = '{SCRIPTED}'\nbudgets = 100\n")
    assert exp.suites == ["code"]
    assert exp.strategies[0].name == "single_shot" and exp.strategies[0].arm == "single_shot"
    assert exp.models[0].proposer == SCRIPTED
    assert exp.budgets[0].total == 100 and exp.seeds == [0]
    assert exp.run.concurrency == 4 and exp.run.cache == "off"


@pytest.mark.parametrize(("extra", "key", "what"), [
    ("seeds = \"many\"", "seeds", "valid list"),
    ("limit = 0", "limit", "greater than or equal to 1"),
    ("budgets = [{total = 10, totl = 3}]", "budgets[0].totl", "unknown key"),
    ("budgets = [{count = \"tokens\"}]", "budgets[0].count", "'output' or 'input+output'"),
    ("colour = 1", "colour", "unknown key"),
    ("[run]\nconcurrency = 0", "run.concurrency", "greater than or equal to 1"),
    ("[run]\ncache = \"sometimes\"", "run.cache", "'off', 'read', 'write' or 'readwrite'"),
])
def test_errors_name_file_key_and_expectation(tmp_path: Path, extra: str, key: str,
                                              what: str) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, BASE + extra + "\n" if extra.startswith("[run]") else extra + "\n" + BASE)
    msg = str(err.value)
    assert msg.startswith(f"{tmp_path / 'exp.toml'}: {key}: "), msg
    assert what in msg


def test_unknown_key_hint_lists_allowed_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "stratgies = []\n" + BASE)
    assert "stratgies" in str(err.value) and "strategies" in (err.value.hint or "")


def test_missing_required_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"strategies: required key is missing"):
        _load(tmp_path, f"suites = ['code']\nmodels = '{SCRIPTED}'\n")
    # a set without proposer says what proposer is for and which roles the set does name
    with pytest.raises(ConfigError, match=r"models\[0\]: proposer: required: the model every "
                                          r"role .*names only reviewer: rename one to proposer"):
        _load(tmp_path, "suites = ['code']\nstrategies = ['single_shot']\n[models]\n"
                        "reviewer = 'x'\n")
    with pytest.raises(ConfigError, match=r"models\[0\]: proposer: required: .* uses$"):
        _load(tmp_path, "suites = ['code']\nstrategies = ['single_shot']\n[models]\n"
                        "label = 'x'\n")


def test_model_spec_must_be_a_string(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"models\[0\]: .*reviewer: expected a model spec"):
        _load(tmp_path, BASE + "[models.reviewer]\nx = 1\n")


def test_unknown_strategy_and_bad_params(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"strategies\[0\]: unknown strategy 'nope'") as err:
        _load(tmp_path, f"suites = ['code']\nmodels = '{SCRIPTED}'\nstrategies = ['nope']\n")
    assert "single_shot" in (err.value.hint or "")
    with pytest.raises(ConfigError,
                       match=r"strategies\[0\]: strategy 'single_shot': unknown parameter"):
        _load(tmp_path, f"suites = ['code']\nmodels = '{SCRIPTED}'\n[[strategies]]\n"
                        "name = 'single_shot'\nparams = {colour = 1}\n")


def test_same_strategy_twice_needs_labels(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"strategies\[1\]: arm 'single_shot'") as err:
        _load(tmp_path, BASE + "[[strategies]]\nname = 'single_shot'\n"
                               "params = {temperature = 0.5}\n")
    assert "label" in (err.value.hint or "")


def test_bad_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"invalid TOML: .*line 1"):
        _load(tmp_path, "suites = [code]\n")
    with pytest.raises(ConfigError, match="config file not found"):
        load_experiment(tmp_path / "absent.toml")


def test_resolved_json_reloads_to_the_same_experiment(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    exp = load_experiment(write_config(tmp_path, extra="budgets = [50, 100]"))
    # the relative suite path was anchored at the config's directory
    assert exp.suites == [f"tether:{(tmp_path / 'suite.json').resolve()}"]
    resolved_path = tmp_path / "config.resolved.json"
    resolved_path.write_text(json.dumps(exp.resolved()))
    again = load_experiment(resolved_path)
    assert again.resolved() == exp.resolved()
    assert experiment_from_dict(again.resolved(), "x").resolved() == exp.resolved()




def test_the_heldout_config_finds_the_study_data_from_any_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a checkout beside shared/, as the config's header says, entered from elsewhere
    config = tmp_path / "checkout" / "src" / "tether" / "experiments" / "heldout_v2.toml"
    config.parent.mkdir(parents=True)
    config.write_text((SHIPPED_DIR / "heldout_v2.toml").read_text())
    data = (tmp_path / "shared/reference/interaction-scaling/tasks/code"
            / "code_tasks_heldout_v2.json")
    data.parent.mkdir(parents=True)
    data.write_text("[]")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_experiment(config).suites == [f"interaction-scaling:{data.resolve()}"]


def test_a_missing_suite_file_is_named_where_the_config_points(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf").mkdir()
    exp = _load(tmp_path / "conf", BASE.replace('["code"]', '["tether:data/none.json", "code", '
                                                            '"harbor-gated:tb2"]'))
    assert exp.suites == [f"tether:{(tmp_path / 'conf/data/none.json').resolve()}", "code",
                          "harbor-gated:tb2"]
    # found only from the working directory (a path typed in a shell): kept as given
    write_suite(tmp_path / "here.json")
    assert _load(tmp_path / "conf", BASE.replace('"code"', '"tether:./here.json"')
                 ).suites == ["tether:./here.json"]


def test_top_level_must_be_a_table(tmp_path: Path) -> None:
    path = tmp_path / "exp.json"
    path.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="expected a table"):
        load_experiment(path)


def test_reading_back_a_stored_config_builds_no_strategy(tmp_path: Path) -> None:
    """A finished run's config names a compiled harness file that has since moved: reading
    it back (as `tether rescore` does) must not open that file; running it still refuses."""

    gone = str(tmp_path / "moved" / "harness.json")
    data = {"suites": ["code"], "models": {"proposer": SCRIPTED},
            "strategies": [{"name": "compiled_harness", "params": {"harness": gone}}]}
    exp = experiment_from_dict(data, "config.resolved.json", check_roles=False)
    assert exp.strategies[0].params["harness"] == gone
    with pytest.raises(ConfigError, match="harness file not found"):
        experiment_from_dict(data, "exp.toml")


def test_report_options_choose_the_judge_analysis_and_stay_out_when_default(
        tmp_path: Path) -> None:
    plain = _load(tmp_path, BASE)
    assert "report" not in plain.resolved()  # runs resolved before [report] read the same
    paper = _load(tmp_path, BASE + '[report]\njudge_statistics = "paper"\n'
                                   'judge_sample = "baseline-failed"\n')
    assert paper.resolved()["report"] == {"judge_statistics": "paper",
                                          "judge_sample": "baseline-failed"}
    assert experiment_from_dict(paper.resolved(), "x").resolved() == paper.resolved()
    with pytest.raises(ConfigError, match="judge_statistics"):
        _load(tmp_path, BASE + '[report]\njudge_statistics = "bh"\n')


def test_a_config_metric_replaces_every_tasks_metric(tmp_path: Path) -> None:
    from tether.runs.expansion import load_tasks

    write_suite(tmp_path / "suite.json")
    exp = load_experiment(write_config(tmp_path, extra='metric = "execution;checks=visible"'))
    assert exp.resolved()["metric"] == "execution;checks=visible"
    assert {t.metric for t in load_tasks(exp)} == {"execution;checks=visible"}
    plain = load_experiment(write_config(tmp_path))
    assert "metric" not in plain.resolved() and {t.metric for t in load_tasks(plain)} != {
        "execution;checks=visible"}
    with pytest.raises(ConfigError, match="metric"):
        load_tasks(load_experiment(write_config(tmp_path, extra='metric = "nope"')))
