"""`tether strategies` / `tether instruments`: list and show come from the factories."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tether.cli import main


def test_strategies_list_and_show_read_the_declared_parameters() -> None:
    listed = CliRunner().invoke(main, ["strategies", "list", "--json"])
    assert listed.exit_code == 0
    names = [r["name"] for r in json.loads(listed.output)]
    assert {"single_shot", "best_of_n", "proposer_reviewer"} <= set(names)
    shown = CliRunner().invoke(main, ["strategies", "show", "best_of_n", "--json"])
    params = {p["name"]: p["default"] for p in json.loads(shown.output)["params"]}
    assert params["temperature"] == "0.8" and "n" in params


def test_show_of_a_misspelled_name_suggests_the_known_ones() -> None:
    result = CliRunner().invoke(main, ["instruments", "show", "executon"])
    assert result.exit_code == 2 and "execution" in result.output
    shown = CliRunner().invoke(main, ["instruments", "show", "execution", "--json"])
    assert [p["name"] for p in json.loads(shown.output)["params"]][:2] == ["checks",
                                                                           "memory_mb"]
