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


def test_show_prints_each_parameter_with_its_type_default_and_description() -> None:
    shown = CliRunner().invoke(main, ["strategies", "show", "best_of_n", "--json"])
    data = json.loads(shown.output)
    n = next(p for p in data["params"] if p["name"] == "n")
    assert n == {"name": "n", "type": "int | 'auto'", "default": "4",
                 "description": "samples per trial, or auto: as many as the budget buys"}
    assert data["roles"].startswith("proposer (with the defaults")
    table = CliRunner().invoke(main, ["strategies", "show", "single_shot"],
                               env={"COLUMNS": "200"})
    assert table.exit_code == 0
    row = next(line for line in table.output.splitlines() if "max_tokens" in line)
    assert ["max_tokens", "int", "1024", "most tokens of the one reply"] == [
        c.strip() for c in row.strip("│ ").split("│")]
    assert "roles: proposer\n" in table.output


def test_instrument_show_says_whether_it_calls_a_model() -> None:
    shown = json.loads(CliRunner().invoke(main, ["instruments", "show", "critique",
                                                 "--json"]).output)
    assert shown["calls a model"] == "yes" and shown["grounded"] == "no"
    assert [p["name"] for p in shown["params"]] == ["model", "max_tokens"]


def test_list_names_the_extra_an_entry_needs_when_it_is_not_installed(monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "playwright", None)  # a base install: no browser extra
    result = CliRunner().invoke(main, ["instruments", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r["needs"] for r in json.loads(result.stdout)}
    assert rows["geometry"] == rows["screenshot_judge"] == "pip install 'tether[browser]'"
    assert rows["critique"] is None and rows["execution"] is None
    monkeypatch.setitem(sys.modules, "bpy", None)
    result = CliRunner().invoke(main, ["strategies", "list", "--json"])
    rows = {r["name"]: r["needs"] for r in json.loads(result.stdout)}
    assert {n for n, need in rows.items() if need} == {"vetr", "viga", "scene_one_shot",
                                                        "blender_alchemy"}
    assert rows["vetr"] == "pip install 'tether[blender]'"
