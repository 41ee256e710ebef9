"""Shipped experiments run by name: `tether run humaneval`, from any working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.errors import ConfigError
from tether.runs.shipped import (
    SHIPPED_DIR,
    config_path,
    header_summary,
    shipped_experiments,
    shipped_name,
)


def test_every_toml_of_the_folder_is_a_shipped_experiment_with_a_summary():
    found = shipped_experiments()
    assert sorted(found) == sorted(p.stem for p in SHIPPED_DIR.glob("*.toml"))
    assert "humaneval" in found
    assert all(header_summary(p) for p in found.values())
    assert header_summary(found["humaneval"]).startswith("HumanEval (164 problems")


@pytest.mark.parametrize("arg", ["humaneval", "humaneval.toml", "experiments/humaneval.toml"])
def test_a_name_finds_the_shipped_file_from_anywhere(arg: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert shipped_name(arg) == "humaneval"
    assert config_path(arg) == SHIPPED_DIR / "humaneval.toml"


def test_a_file_of_the_user_wins_over_a_shipped_name(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "humaneval").write_text("name = 'mine'\n")
    assert config_path("humaneval") == Path("humaneval")
    assert shipped_name("elsewhere/humaneval.toml") is None


def test_an_unknown_name_is_refused_with_a_suggestion(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as exc:
        config_path("humaneva")
    assert "config file not found: humaneva" in str(exc.value)
    assert "did you mean 'humaneval'?" in (exc.value.hint or "")
    result = CliRunner().invoke(main, ["run", "humaneva", "--plan"])
    assert result.exit_code == 2
    assert "did you mean 'humaneval'?" in result.output


def test_run_by_name_plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "humaneval", "--plan", "--json", "--limit", "2"])
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.stdout)
    assert numbers["name"] == "humaneval" and numbers["trials"] == 2 * 3
    assert not list(tmp_path.iterdir())  # a plan writes nothing


def test_experiments_list_and_show():
    runner = CliRunner()
    listed = runner.invoke(main, ["experiments", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [r["name"] for r in rows] == sorted(shipped_experiments())
    table = runner.invoke(main, ["experiments", "list"])
    assert "humaneval" in table.output and "turn_bon" in table.output
    shown = runner.invoke(main, ["experiments", "show", "humaneval"])
    assert shown.exit_code == 0
    assert shown.output == (SHIPPED_DIR / "humaneval.toml").read_text()
    missing = runner.invoke(main, ["experiments", "show", "vetrr"])
    assert missing.exit_code == 2 and "did you mean 'vetr'?" in missing.output
