"""`tether settings list` / `show`: the compile settings as the teacher reads them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tether.cli import main


def test_settings_list_names_each_setting_with_its_resources() -> None:
    result = CliRunner().invoke(main, ["settings", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert rows["toy"]["resources"] == {"hint": True, "signals": True}
    assert rows["toy"]["aggregation"] == "pass_rate"
    assert rows["toy"]["summary"].startswith("Test double")


def test_settings_show_prints_what_the_teacher_reads() -> None:
    result = CliRunner().invoke(main, ["settings", "show", "toy"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("## The setting: toy\n")
    assert 'Resources it offers (enable them under "resources"): {"hint": true, ' \
           '"signals": true}' in result.output
    assert "Metric: pass/fail per item." in result.output


def test_settings_show_of_an_unknown_name_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["settings", "show", "tyo"])
    assert result.exit_code == 2
    assert "unknown setting 'tyo'" in result.output and "Traceback" not in result.output
