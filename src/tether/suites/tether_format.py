"""The tether suite file: a JSON list (or JSONL, one per line) of Task objects.

Schema of one entry (`TaskEntry`, pydantic; unknown keys are an error so a typo
never passes silently):

    {"id": "fizz", "prompt": "...", "metric": "execution",
     "suite": "mine",                  # optional: defaults to the file's stem
     "system": null, "artifact_kind": "program",
     "data": {"checks": "assert f(1) == 2", "entry_point": "f", ...}}

For tasks whose metric is the execution instrument, `data` must follow the code-task
convention (`CodeTaskData`): `checks` is an assert script (check_format "assert") or
a {filename: text} map of pytest files (check_format "pytest").

Errors name the file, the task (index and id, or line for JSONL), the key and what
was expected, and are raised as ConfigError.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tether.core import Task
from tether.errors import ConfigError
from tether.suites.json_file import read_json_file
from tether.textio import JSONError, jsonl_lines, loads, read_text


class CodeTaskData(BaseModel):
    """The code-task convention for `data` (extra keys allowed: instruments may add)."""

    model_config = ConfigDict(extra="allow")

    checks: str | dict[str, str]
    check_format: Literal["assert", "pytest"] = "assert"
    entry_point: str | None = None
    visible_checks: str | dict[str, str] | None = None
    timeout_s: float = Field(default=30.0, gt=0)
    reference_solution: str | None = None
    wrong_solution: str | None = None
    buggy_code: str | None = None

    @model_validator(mode="after")
    def _checks_match_format(self) -> CodeTaskData:
        want = str if self.check_format == "assert" else dict
        for key in ("checks", "visible_checks"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, want):
                shape = "an assert script (string)" if want is str else \
                    "a map {test filename: file text}"
                raise ValueError(f"{key} must be {shape} when check_format is "
                                 f"{self.check_format!r}")
        return self


class TaskEntry(BaseModel):
    """One entry of a tether suite file."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    metric: str = Field(min_length=1, description="instrument spec, e.g. 'execution'")
    suite: str | None = None
    system: str | None = None
    artifact_kind: str = "program"
    data: dict[str, Any] = Field(default_factory=dict)

    @property
    def is_code_task(self) -> bool:
        return self.metric.split(";", 1)[0].strip() == "execution"

    def to_task(self, default_suite: str) -> Task:
        fields = self.model_dump()
        fields["suite"] = self.suite or default_suite
        return Task(**fields)


def suite_file_json_schema() -> dict[str, Any]:
    """JSON Schema of a tether suite file (a list of entries)."""
    return {"type": "array", "items": TaskEntry.model_json_schema(),
            "$comment": "JSONL files hold one entry per line"}


def load_tether_file(path: Path) -> list[Task]:
    """Load and validate a .json (list) or .jsonl (one entry per line) suite file."""
    if path.suffix == ".jsonl":
        items = _read_jsonl(path)
        where = [f"line {n}" for n, _ in items]
        raw = [obj for _, obj in items]
    else:
        raw = read_json_file(path)
        if isinstance(raw, dict) and isinstance(raw.get("tasks"), list):
            raw = raw["tasks"]
        if not isinstance(raw, list):
            raise ConfigError(f"{path}: expected a JSON list of task objects, "
                              f"got {type(raw).__name__}",
                              hint="write [ {\"id\": ..., \"prompt\": ..., \"metric\": ...} ]")
        where = [f"task {i}" for i in range(len(raw))]
    tasks = [validate_entry(obj, path, w).to_task(path.stem)
             for obj, w in zip(raw, where, strict=True)]
    _check_unique_ids(tasks, path)
    return tasks


def validate_entry(obj: Any, path: Path, where: str,
                   model: type[BaseModel] = TaskEntry) -> Any:
    """Validate one entry against `model`; ConfigError names file, entry, key, expectation."""
    if not isinstance(obj, dict):
        raise ConfigError(f"{path}: {where}: expected a JSON object, got {type(obj).__name__}")
    label = where + (f" (id {obj['id']!r})" if isinstance(obj.get("id"), str) else "")
    try:
        entry = model.model_validate(obj)
        if isinstance(entry, TaskEntry) and entry.is_code_task:
            try:
                CodeTaskData.model_validate(entry.data)
            except ValidationError as exc:
                raise ConfigError(f"{path}: {label}: {_first_error(exc, 'data.')}",
                                  hint="execution tasks follow the code-task convention: "
                                  "data.checks is required") from None
        return entry
    except ValidationError as exc:
        raise ConfigError(f"{path}: {label}: {_first_error(exc)}",
                          hint=_hint(exc, model)) from None


def _first_error(exc: ValidationError, prefix: str = "") -> str:
    errors = exc.errors()
    err = errors[0]
    key = prefix + ".".join(str(p) for p in err["loc"]) or "(entry)"
    key = key.rstrip(".")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    if err["type"] == "missing":
        return f"key {key!r} is missing{more}"
    if err["type"] == "extra_forbidden":
        return f"unknown key {key!r}{more}"
    msg = err["msg"].removeprefix("Value error, ")
    return f"key {key!r}: {msg} (got {_short(err.get('input'))}){more}"


def _hint(exc: ValidationError, model: type[BaseModel]) -> str:
    err = exc.errors()[0]
    if err["type"] == "extra_forbidden":
        return "allowed keys: " + ", ".join(model.model_fields)
    return "see `tether suites schema` for the expected fields"


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _read_jsonl(path: Path) -> list[tuple[int, Any]]:
    items: list[tuple[int, Any]] = []
    for n, line in jsonl_lines(read_text(path)):
        try:
            items.append((n, loads(line)))
        except JSONError as exc:
            raise ConfigError(f"{path}: line {n}: invalid JSON at column {exc.colno}: {exc.msg}",
                              hint="JSONL holds one JSON object per line") from None
    return items


def _check_unique_ids(tasks: list[Task], path: Path) -> None:
    seen: set[str] = set()
    for i, t in enumerate(tasks):
        if t.key in seen:
            raise ConfigError(f"{path}: task {i}: duplicate id {t.id!r} in suite {t.suite!r}",
                              hint="task ids must be unique within a suite")
        seen.add(t.key)
