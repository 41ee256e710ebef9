"""`tether suites list|show|schema`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tether.cli import main


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args))


def test_list_json_has_suites_formats_and_forms() -> None:
    result = invoke("suites", "list", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    code = next(s for s in data["suites"] if s["name"] == "code")
    assert code["tasks"] >= 22
    assert "tether" in data["formats"] and "interaction-scaling/code" in data["formats"]
    assert any(f["spec"] == "interaction-scaling:PATH" for f in data["spec_forms"])


def test_list_table() -> None:
    result = invoke("suites", "list")
    assert result.exit_code == 0, result.output
    assert "code" in result.output and "interaction-scaling:PATH" in result.output


def test_show_code_json_lists_tasks_in_order() -> None:
    result = invoke("suites", "show", "code", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["count"] == len(data["tasks"]) >= 22
    first = data["tasks"][0]
    assert first == {"id": "is_even", "suite": "code", "kind": "spec", "difficulty": "easy",
                     "entry_point": "is_even", "metric": "execution"}


def test_show_table_and_interaction_scaling(interaction_scaling_dir: Path) -> None:
    path = interaction_scaling_dir / "tasks" / "code" / "code_tasks_hard.json"
    result = invoke("suites", "show", f"interaction-scaling:{path}")
    assert result.exit_code == 0, result.output
    assert "11 tasks" in result.output and "eval_expr" in result.output


def test_unknown_spec_is_one_line_and_a_hint_exit_2() -> None:
    result = invoke("suites", "show", "nope")
    assert result.exit_code == 2
    assert "unknown suite spec 'nope'" in result.output and "hint:" in result.output
    assert "Traceback" not in result.output


def test_bad_file_names_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"id": "a", "prompt": "p"}]))
    result = invoke("suites", "show", str(path))
    assert result.exit_code == 2
    assert "s.json" in result.output and "'metric'" in result.output


def test_schema_is_json_schema() -> None:
    result = invoke("suites", "schema")
    assert result.exit_code == 0
    assert json.loads(result.output)["type"] == "array"
