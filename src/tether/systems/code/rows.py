"""`jsonl:PATH`: a code suite from a JSONL file in a common row shape, told apart per row;
`hf:PATH` and `parquet:PATH`: the same rows read through the `datasets` library (a
`save_to_disk` directory or a local parquet/JSONL/CSV file; tether.suites.dataset_rows).

- `prompt`, `test`, `entry_point` (+ `task_id`, `canonical_solution`): HumanEval, through
  `tether.systems.code.humaneval.to_task`: the same task as `humaneval:PATH`, with the same
  prompt + completion program assembly;
- `text`, `test_list` (+ `task_id`, `code`, `test_setup_code`, `challenge_test_list`):
  MBPP (below);
- `id`, `prompt`, `metric` (+ `data`, ...): a tether suite entry (`TaskEntry`).

An MBPP row becomes a task whose prompt is the problem text and its tests (as MBPP's
own prompt shows them), asking for the function in a ```python block. The hidden checks
are `test_setup_code`, then `test_list` and `challenge_test_list`; the visible checks
(the default best-of-N verifier) are `test_list`, which the prompt shows; the entry point
is the function the first test calls; `code` is the reference solution. Task ids are
`task_id` (`/` as `_`), else `id`; the suite is the file's stem. A row of none of these
shapes, a row with a shape's key of the wrong type or a duplicate id is a ConfigError
naming the line (`PATH:N`; a dataset's row number from 1, for `hf:` and `parquet:`).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.suites import (
    FORMATS as DATASET_FORMATS,
    load_dataset_rows,
    register_format,
    validate_entry,
)
from tether.systems.code import humaneval

__all__ = ["FORMAT", "load_code_rows", "load_dataset_code_rows", "mbpp_task", "row_shape"]

FORMAT = "jsonl"
MBPP_INSTRUCTION = ("{text}\nYour code should pass these tests:\n\n{tests}\n\n"
                    "Return the function in a single ```python block.")


def row_shape(row: dict[str, Any]) -> str | None:
    """"humaneval", "mbpp", "tether" or None."""
    if {"prompt", "test", "entry_point"} <= set(row):
        return "humaneval"
    if {"text", "test_list"} <= set(row):
        return "mbpp"
    if {"id", "prompt", "metric"} <= set(row):
        return "tether"
    return None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def _called(test: str) -> str | None:
    """The function the first call of an assert line names."""
    try:
        tree = ast.parse(test)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id
    return None


def mbpp_task(row: dict[str, Any], path: Path, line: int, suite: str) -> Task:
    where = f"{path}:{line}"
    if not isinstance(row.get("text"), str) or not row["text"].strip():
        raise ConfigError(f"{where}: MBPP row: 'text' must be a non-empty string")
    tests = row.get("test_list")
    if not _strings(tests) or not tests:
        raise ConfigError(f"{where}: MBPP row: 'test_list' must be a non-empty list of "
                          "assert lines")
    extra = row.get("challenge_test_list") or []
    if not _strings(extra) and extra != []:
        raise ConfigError(f"{where}: MBPP row: 'challenge_test_list' must be a list of "
                          "assert lines")
    setup = row.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise ConfigError(f"{where}: MBPP row: 'test_setup_code' must be a string")
    entry = _called(tests[0])
    if entry is None:
        raise ConfigError(f"{where}: MBPP row: the first test calls no function "
                          f"({tests[0][:60]!r})", hint="tests look like assert f(1) == 2")
    raw_id = row.get("task_id", row.get("id"))
    if raw_id is None:
        raise ConfigError(f"{where}: MBPP row: no 'task_id'")
    shown = "\n".join(tests)
    data: dict[str, Any] = {"checks": "\n".join([setup, *tests, *extra]).strip() + "\n",
                            "check_format": "assert", "entry_point": entry,
                            "visible_checks": "\n".join([setup, shown]).strip() + "\n",
                            "source_task_id": raw_id}
    if isinstance(row.get("code"), str):
        data["reference_solution"] = row["code"]
    prompt = MBPP_INSTRUCTION.format(text=row["text"].strip(), tests=shown)
    return Task(id=str(raw_id).replace("/", "_"), suite=suite, prompt=prompt,
                artifact_kind="program", metric="execution", data=data)


def load_code_rows(path: Path) -> list[Task]:
    """The tasks of a JSONL file of HumanEval, MBPP or tether rows (mixed is fine)."""
    return _tasks(humaneval.read_rows(path), path, "line")


def load_dataset_code_rows(fmt: str, path: Path | str) -> list[Task]:
    """The tasks of a dataset (`hf:PATH`, `parquet:PATH`) of the same row shapes."""
    return _tasks(load_dataset_rows(fmt, Path(path)).rows, Path(path), "row")


def _tasks(rows: list[tuple[int, Any]], path: Path, unit: str) -> list[Task]:
    suite = path.name.split(".")[0]
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        if not isinstance(row, dict):
            raise ConfigError(f"{path}:{line}: expected a JSON object")
        shape = row_shape(row)
        if shape == "humaneval":
            task = humaneval.to_task(row, path, line, suite)
        elif shape == "mbpp":
            task = mbpp_task(row, path, line, suite)
        elif shape == "tether":
            task = validate_entry(row, path, f"{unit} {line}").to_task(suite)
        else:
            raise ConfigError(
                f"{path}:{line}: not a code task row (keys: {', '.join(sorted(row)) or 'none'})",
                hint="rows are HumanEval (prompt, test, entry_point), MBPP (text, test_list) "
                     "or tether (id, prompt, metric); see docs/suites.md")
        if task.id in seen:
            raise ConfigError(f"{path}:{line}: duplicate task id {task.id!r} "
                              f"(first on {unit} {seen[task.id]})")
        seen[task.id] = line
        tasks.append(task)
    if not tasks:
        raise ConfigError(f"{path}: no rows")
    return tasks


register_format(FORMAT, lambda path: load_code_rows(Path(path)))
for _fmt in DATASET_FORMATS:
    register_format(_fmt, functools.partial(load_dataset_code_rows, _fmt))
