"""tether suite files: schema, JSON and JSONL, and errors that say where and what."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tether.errors import ConfigError
from tether.suites import load_suite, load_tether_file, suite_file_json_schema


def entry(**over: Any) -> dict[str, Any]:
    base = {"id": "t1", "prompt": "Write f.", "metric": "execution",
            "data": {"checks": "assert f() == 1", "entry_point": "f"}}
    base.update(over)
    return base


def write(tmp_path: Path, name: str, content: Any) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def error_of(spec: str) -> ConfigError:
    with pytest.raises(ConfigError) as err:
        load_suite(spec)
    return err.value


def test_json_list_loads_with_file_stem_as_default_suite(tmp_path: Path) -> None:
    path = write(tmp_path, "mine.json", [entry(), entry(id="t2", suite="other")])
    tasks = load_suite(f"tether:{path}")
    assert [(t.id, t.suite) for t in tasks] == [("t1", "mine"), ("t2", "other")]
    assert tasks[0].data["entry_point"] == "f" and tasks[0].artifact_kind == "program"
    assert load_suite(str(path)) == tasks, "a plain path is a tether file"


def test_jsonl_one_task_per_line(tmp_path: Path) -> None:
    lines = [json.dumps(entry(id=f"t{i}")) for i in range(3)]
    path = write(tmp_path, "lines.jsonl", "\n".join(lines[:2]) + "\n\n" + lines[2] + "\n")
    assert [t.id for t in load_tether_file(path)] == ["t0", "t1", "t2"]


def test_missing_key_names_file_index_id_and_key(tmp_path: Path) -> None:
    bad = entry(id="second")
    del bad["metric"]
    path = write(tmp_path, "s.json", [entry(), bad])
    err = error_of(f"tether:{path}")
    assert str(path) in str(err) and "task 1 (id 'second')" in str(err)
    assert "'metric'" in str(err) and "missing" in str(err)
    assert err.hint


def test_wrong_type_says_what_was_expected(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", [entry(prompt=["not", "a", "string"])])
    err = error_of(str(path))
    assert "task 0 (id 't1')" in str(err) and "'prompt'" in str(err)
    assert "valid string" in str(err)


def test_unknown_key_is_an_error_with_the_allowed_keys(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", [entry(promt="typo")])
    err = error_of(str(path))
    assert "unknown key 'promt'" in str(err)
    assert err.hint and "prompt" in err.hint


def test_execution_tasks_need_code_task_data(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", [entry(data={"entry_point": "f"})])
    err = error_of(str(path))
    assert "'data.checks'" in str(err) and "missing" in str(err)
    path = write(tmp_path, "p.json", [entry(data={"checks": "x", "check_format": "pytest"})])
    err = error_of(str(path))
    assert "'data'" in str(err) and "map" in str(err)
    # Other metrics carry whatever data their instrument reads.
    path = write(tmp_path, "v.json", [entry(metric="geometry", data={"canvas": [1920, 1080]})])
    assert load_suite(str(path))[0].data == {"canvas": [1920, 1080]}


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "s.jsonl", json.dumps(entry()) + "\n{not json\n")
    err = error_of(str(path))
    assert str(path) in str(err) and "line 2" in str(err)
    path = write(tmp_path, "t.jsonl", json.dumps(entry()) + "\n" + json.dumps({"id": "x"}))
    assert "line 2 (id 'x')" in str(error_of(str(path)))


def test_bad_json_and_wrong_shapes(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", '[{"id": "t1",]')
    err = error_of(str(path))
    assert str(path) in str(err) and "invalid JSON at line 1" in str(err)
    assert "expected a JSON list" in str(error_of(str(write(tmp_path, "o.json", {"id": 1}))))
    assert "task 0: expected a JSON object" in str(error_of(str(write(tmp_path, "n.json", [3]))))


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", [entry(), entry()])
    assert "duplicate id 't1'" in str(error_of(str(path)))


def test_schema_describes_the_entry_fields() -> None:
    schema = suite_file_json_schema()
    assert schema["type"] == "array"
    assert set(schema["items"]["required"]) == {"id", "prompt", "metric"}
    assert {"suite", "system", "artifact_kind", "data"} <= set(schema["items"]["properties"])
