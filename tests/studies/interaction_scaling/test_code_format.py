"""The interaction-scaling code loader on the study's own four task files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.studies.interaction_scaling.code_format import (
    FIX_INSTRUCTION,
    IMPLEMENT_INSTRUCTION,
    find_entry_point,
    load_interaction_scaling_code,
)
from tether.suites import load_suite

from .conftest import RunVerdicts, describe

COUNTS = {
    "code_tasks.json": 15,
    "code_tasks_hard.json": 11,
    "code_tasks_heldout.json": 15,
    "code_tasks_heldout_v2.json": 32,
}


def code_file(root: Path, name: str) -> Path:
    return root / "tasks" / "code" / name


@pytest.mark.parametrize(("name", "count"), sorted(COUNTS.items()))
def test_all_four_files_load_with_their_counts(interaction_scaling_dir: Path, name: str,
                                               count: int) -> None:
    path = code_file(interaction_scaling_dir, name)
    tasks = load_suite(f"interaction-scaling:{path}")
    raw = json.loads(path.read_text())
    assert len(tasks) == count
    assert [t.id for t in tasks] == [r["task_id"] for r in raw]
    for task, r in zip(tasks, raw, strict=True):
        assert task.suite == path.stem
        assert task.metric == "execution" and task.artifact_kind == "program"
        assert task.data["checks"] == r["test_code"], "checks pass through unchanged"
        assert task.data["check_format"] == "assert"
        assert task.prompt.startswith(r["description"].rstrip())
        assert task.data["entry_point"], f"{task.id}: no entry point found"
        # The entry point is a name the tests really use.
        assert task.data["entry_point"] in r["test_code"]
        assert r["test_code"] not in task.prompt, "hidden checks never reach the prompt"


def test_bug_reports_and_specs_get_their_instruction(interaction_scaling_dir: Path) -> None:
    bugs = load_interaction_scaling_code(code_file(interaction_scaling_dir, "code_tasks.json"))
    specs = load_interaction_scaling_code(code_file(interaction_scaling_dir,
                                                    "code_tasks_hard.json"))
    assert all(t.prompt.endswith(FIX_INSTRUCTION) and t.data["kind"] == "bugfix" for t in bugs)
    assert all(t.prompt.endswith(IMPLEMENT_INSTRUCTION) and t.data["kind"] == "spec"
               for t in specs)


def test_entry_points_of_known_tasks(interaction_scaling_dir: Path) -> None:
    found = {t.id: t.data["entry_point"] for name in COUNTS
             for t in load_interaction_scaling_code(code_file(interaction_scaling_dir, name))}
    assert found["code_001"] == "parse_csv_line"
    assert found["code_002"] == "Router"  # a class the tests instantiate
    assert found["code_007"] == "ConnectionPool"  # defined after a helper class
    assert found["codeh_eval_expr"] == "eval_expr"  # spec task: no code to read
    assert found["code_hv2_001"] == "escape_sql_string"


def test_v2_keeps_buggy_and_fixed_code(interaction_scaling_dir: Path) -> None:
    path = code_file(interaction_scaling_dir, "code_tasks_heldout_v2.json")
    raw = {r["task_id"]: r for r in json.loads(path.read_text())}
    for task in load_interaction_scaling_code(path):
        assert task.data["buggy_code"] == raw[task.id]["buggy_code"]
        assert task.data["reference_solution"] == raw[task.id]["fixed_code"]
        assert task.data["bug_class"] == raw[task.id]["bug_class"]


def test_v2_fixed_code_passes_and_buggy_code_fails_in_the_sandbox(
        interaction_scaling_dir: Path, run_verdicts: RunVerdicts) -> None:
    tasks = load_suite(
        f"interaction-scaling:{code_file(interaction_scaling_dir, 'code_tasks_heldout_v2.json')}")
    fixed = run_verdicts([(t.data["reference_solution"], t.data["checks"]) for t in tasks])
    buggy = run_verdicts([(t.data["buggy_code"], t.data["checks"]) for t in tasks])
    # An infrastructure failure must not pass as a "buggy code fails" verdict.
    assert all(r.killed_reason is None for r in fixed + buggy), [describe(r) for r in buggy]
    fixed_by_id = dict(zip([t.id for t in tasks], fixed, strict=True))
    buggy_by_id = dict(zip([t.id for t in tasks], buggy, strict=True))
    passed = [i for i, r in fixed_by_id.items() if r.returncode == 0]
    failed = [i for i, r in buggy_by_id.items() if r.returncode != 0]
    assert len(passed) == 32, {i: describe(r) for i, r in fixed_by_id.items() if r.returncode}
    assert len(failed) == 32, [i for i, r in buggy_by_id.items() if r.returncode == 0]
    assert all("Traceback" in r.stderr for r in buggy), "buggy code fails by raising"


def test_entry_point_rules() -> None:
    tests = "import math\nx = helper(1)\nassert solve(x) == math.floor(2.5)\n"
    # Defined by the code: preferred over a name called earlier.
    assert find_entry_point(tests, "def solve(x):\n    return x\n") == "solve"
    # No code: the first non-builtin name the tests call.
    assert find_entry_point(tests, None) == "helper"
    # Names the test script binds itself, and builtins, are never the entry point.
    assert find_entry_point("def f(a):\n    return a\nassert len(f(g([1]))) == 1\n", None) == "g"
    # Code that is prose with fragments still yields its definitions.
    assert find_entry_point("", "text\ndef fragment(:\nclass Thing:\n") == "fragment"
    assert find_entry_point("", None) is None


def test_sniff_routes_interaction_scaling_files(tmp_path: Path) -> None:
    code = tmp_path / "mine.json"
    code.write_text(json.dumps([{"task_id": "t1", "description": "Write `f()`.",
                                 "test_code": "assert f() == 1\n", "difficulty": "easy"}]))
    (task,) = load_suite(f"interaction-scaling:{code}")
    assert task.id == "t1" and task.suite == "mine" and task.data["entry_point"] == "f"
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"id": "x", "requirements": ["a"]}]))
    with pytest.raises(ConfigError, match="not a task file any interaction-scaling format"):
        load_suite(f"interaction-scaling:{other}")


def test_malformed_task_names_file_index_and_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([
        {"task_id": "ok", "description": "d", "test_code": "assert True"},
        {"task_id": "broken", "description": "d", "test_code": 42},
    ]))
    with pytest.raises(ConfigError) as err:
        load_suite(f"interaction-scaling/code:{path}")
    msg = str(err.value)
    assert str(path) in msg and "task 1" in msg and "'broken'" in msg and "'test_code'" in msg
