"""The shapes of what a compile records, checked whenever one is read back.

A compile's events (compiler/run.py) and the files of a build directory an earlier
tether wrote (compiler/legacy.py) are checked against the same shapes: a row damaged by
hand or by a full disk (cut short, not UTF-8, nested past the parser, a field of the
wrong type) is a one-line ConfigError naming where it is, never a traceback from
wherever the value is used later (a report template, a resume). Each shape names the
fields the compiler and the report read, with their types; fields they do not read pass
through unchecked, so what older versions wrote still loads. The config is checked as a
whole, by CompileConfig itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from tether.errors import ConfigError
from tether.systems.compile.harness import Harness
from tether.textio import JSONError, loads

__all__ = ["Arm", "CompileRow", "Oneshot", "ProbeReport", "Record", "Round", "Score",
           "Selected", "StudentCall", "TeacherCall", "TestScores", "Verdict", "checked",
           "damaged", "damaged_event", "read_record"]


def damaged(path: Path, why: str) -> ConfigError:
    return ConfigError(f"{path}: {why}", hint="the build file is damaged: restore it, or "
                       "delete it to have that step run again")


def damaged_event(run_dir: Path, where: str, why: str) -> ConfigError:
    return ConfigError(f"{where}: {why}", hint=(
        f"{run_dir / 'events.jsonl'} and {run_dir / 'trials.jsonl'} hold a copy of what "
        f"the compile recorded: move run.sqlite aside, then `tether compile --resume "
        f"{run_dir}` rebuilds the store from them"))


def checked(value: Any, shape: type[BaseModel], fail: Callable[[str], ConfigError]) -> Any:
    """`value` once it is a JSON object with `shape`; `fail(why)` is raised otherwise."""
    if not isinstance(value, dict):
        raise fail(f"not a JSON object but {type(value).__name__}")
    try:
        shape.model_validate(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(map(str, err["loc"])) or "the document"
        raise fail(f"{where}: {err['msg']}") from None
    return value


def read_record(path: Path, shape: type[BaseModel]) -> Any:
    """The file's JSON (None when absent) once it has `shape`; ConfigError otherwise."""
    if not path.is_file():
        return None
    try:
        value = loads(path.read_bytes())
    except JSONError as exc:
        raise damaged(path, f"not valid JSON: {exc}") from None
    except OSError as exc:
        raise damaged(path, f"cannot read: {exc.strerror}") from None
    return checked(value, shape, lambda why: damaged(path, why))


class Record(BaseModel):
    """A build file: a JSON object; the fields named in a subclass have their types."""

    model_config = ConfigDict(extra="allow")


class _Harnessed(Record):
    hash: str
    document: Harness


class _H0(_Harnessed):
    validation: float | None = None
    probe: float | None = None


class Selected(_Harnessed):
    is_bare: bool
    validation: float | None = None
    h0: _H0 | None = None
    stopped: str | None = None


class Oneshot(Record):
    hash: str | None = None
    document: dict[str, Any] | None = None  # a Harness when admissible
    admissible: bool | None = None
    error: str | None = None

    @model_validator(mode="after")
    def _admissible_has_document(self) -> Oneshot:
        if self.admissible and self.document is None:
            raise ValueError("admissible, but no document")
        if self.admissible:
            try:
                Harness.model_validate(self.document)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(map(str, err["loc"]))
                raise ValueError(f"document is not a harness ({where}: {err['msg']})"
                                 ) from None
        return self


class Arm(Record):
    hash: str | None
    key: str | None = None
    mean: float | None  # None: the student budget stopped the arm before its last item
    n: int
    tokens_per_item: float
    infra_errors: int = 0


class _Intervention(Record):
    na: str | None = None
    key: str | None = None

    @model_validator(mode="after")
    def _na_or_key(self) -> _Intervention:
        if self.na is None and self.key is None:
            raise ValueError("neither na nor key")
        return self


class TestScores(Record):
    arms: dict[str, Arm | None]
    audit: list[Any] = []
    flagged: bool | None = None
    interventions: dict[str, _Intervention] = {}
    items: list[str] = []


class Round(Record):
    round: int
    restart: int | None = None
    decision: str
    hash: str | None = None
    admissible: bool | None = None
    violations: list[dict[str, Any]] = []
    probe: float | None = None
    validation: float | None = None
    infra_errors: int | None = None
    error: str | None = None


class Verdict(Record):
    hash: str | None
    admissible: bool
    violations: list[dict[str, Any]]


class ProbeReport(Record):
    hash: str
    score: float
    n: int


class TeacherCall(Record):
    key: str
    prompt: str | None = None
    reply: str | None = None
    error: str | None = None
    refused: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None


class Score(Record):
    hash: str
    split: str
    scores: dict[str, float]
    outcomes: dict[str, dict[str, Any]]
    output_tokens: int
    infra_errors: int = 0
    na: dict[str, str] = {}
    budget: dict[str, Any] = {}


class CompileRow(Record):
    """The `compile` event: what the compile was asked and on which items."""

    config: dict[str, Any]
    splits: dict[str, list[str]]
    tasks: dict[str, dict[str, Any]]


class _Usage(BaseModel):
    output_tokens: int
    reasoning_tokens: int = 0


class StudentCall(Record):
    """A student call's record (what a resumed compile is charged with)."""

    usage: _Usage
