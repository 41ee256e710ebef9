"""What a compile recorded, damaged, is one line naming where and exit 2, never a traceback.

- A build directory an earlier tether wrote (the frozen fixture, a finished toy compile):
  a file cut short, wrong-typed, not an object, not UTF-8 or nested past the parser, for
  `tether report`; such a directory is never resumed (one line too).
- A compile's run directory: an event row of the wrong shape or not JSON, or a
  `run.sqlite` that is not a store, for `tether report` and `tether compile --resume`;
  a lost `run.sqlite` is rebuilt from the logs (tests/systems/compile/compiler/
  test_crash_resume.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli.hub import main
from tether.errors import ConfigError
from tether.systems.compile.compiler.legacy import OldBuildDir
from tether.systems.compile.compiler.records import Round as RoundShape, read_record

from .conftest import STUDENT_SPEC, TEACHER_SPEC

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "compile_build"
BARE = "71f7d245f4383cdec45b4a4c7f36b90f4e63121aec280d0b1ffe613ec901a8e9"


def _wrong_type(name: str) -> Callable[[dict], None]:
    """Each file's value with one field the code reads set to the wrong type."""
    changes: dict[str, Callable[[dict], None]] = {
        "config.json": lambda v: v.update(probe="many"),
        "selected.json": lambda v: v.update(document=5),
        "test.json": lambda v: v["arms"].update(bare={"hash": 3, "mean": "x"}),
        "rounds": lambda v: v.update(round="zero"),
        "teacher": lambda v: v.update(input_tokens="lots"),
        "scores": lambda v: v.update(scores=[1, 2]),
        "oneshot.json": lambda v: v.update(admissible=True, document={"schema": 1}),
    }
    return next(fn for key, fn in changes.items() if key in name)


def _damage(path: Path, kind: str) -> None:
    text = path.read_text(encoding="utf-8")
    if kind == "truncated":
        path.write_text(text[: len(text) // 2], encoding="utf-8")
    elif kind == "wrong-typed":
        value = json.loads(text)
        _wrong_type(str(path))(value)
        path.write_text(json.dumps(value), encoding="utf-8")
    elif kind == "not-an-object":
        path.write_text("[1, 2]", encoding="utf-8")
    elif kind == "non-utf8":
        path.write_bytes(b"\xff\xfe" + text.encode())
    elif kind == "nested":
        path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")


# The build files `tether report` reads of a finished build.
FILES = ("config.json", "builds/0/selected.json", "builds/0/test.json",
         "builds/0/rounds/000.json", "builds/0/teacher/r01.json", f"scores/test/{BARE}.json")
KINDS = ("truncated", "wrong-typed", "not-an-object", "non-utf8", "nested")
CASES = [(f, k) for f in FILES for k in KINDS]


def _command(cmd: str, build: Path) -> list[str]:
    return ["report", str(build), "--json"] if cmd == "report" else [
        "compile", "--resume", str(build), "--json"]


@pytest.mark.parametrize(("name", "kind"), CASES,
                         ids=[f"{f.rsplit('/', 1)[-1]}-{k}" for f, k in CASES])
def test_a_damaged_build_file_is_one_line_naming_it(tmp_path: Path, name: str,
                                                    kind: str) -> None:
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    _damage(build / name, kind)
    result = CliRunner().invoke(main, _command("report", build))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(build / name) in errors[0], result.stderr
    assert "Traceback" not in result.output


def test_the_undamaged_fixture_reports_and_is_never_resumed(tmp_path: Path) -> None:
    """The control: the intact copy reports; a resume of it is one line, exit 2."""
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    assert CliRunner().invoke(main, _command("report", build)).exit_code == 0
    result = CliRunner().invoke(main, _command("resume", build))
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {build} is a build directory written by an earlier tether: "
                      f"`tether report {build}` reads it, but it cannot resume it"]


def test_an_admissible_oneshot_without_a_harness_is_refused(tmp_path: Path) -> None:
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    _damage(build / "builds/0/oneshot.json", "wrong-typed")
    with pytest.raises(ConfigError, match=r"oneshot.json: .*document is not a harness"):
        OldBuildDir(build).build(0).oneshot()


def test_a_cut_student_call_line_is_dropped_but_a_foreign_row_is_damage(
        tmp_path: Path) -> None:
    path = tmp_path / "student" / "calls.jsonl"
    path.parent.mkdir()
    path.write_bytes(b'{"role": "student"}\n{"role": "stu')  # a kill in the middle of a line
    assert OldBuildDir(tmp_path).student_calls() == [{"role": "student"}]
    path.write_bytes(b'[1, 2]\n{"role": "student"}\n')
    with pytest.raises(ConfigError, match=r"calls.jsonl: line 1"):
        OldBuildDir(tmp_path).student_calls()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished compile's run directory (small: the damage is what is tested)."""
    out = tmp_path_factory.mktemp("compiled") / "run"
    result = CliRunner().invoke(main, [
        "compile", "--setting", "toy", "--teacher", TEACHER_SPEC, "--student", STUDENT_SPEC,
        "--probe", "3", "--validation", "3", "--test", "3", "--rounds", "1",
        "--comparators", "h0,oneshot", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return out


# An event the commands read, and a row of it damaged: not JSON, or a field the code reads
# of the wrong type.
EVENTS = {"compile": {"config": 5, "splits": {}, "tasks": {}},
          "selected": {"hash": "h", "document": 5, "is_bare": True},
          "test": {"arms": {"bare": {"hash": 3, "mean": "x"}}},
          "round": {"round": "zero", "decision": "accept"},
          "teacher_call": {"key": "r01", "input_tokens": "lots"}}
DAMAGED = [(kind, how) for kind in EVENTS for how in ("not-json", "wrong-typed")]


@pytest.mark.parametrize(("kind", "how"), DAMAGED, ids=[f"{k}-{h}" for k, h in DAMAGED])
@pytest.mark.parametrize("cmd", ["report", "resume"])
def test_a_damaged_event_is_one_line_naming_it(compiled: Path, tmp_path: Path, kind: str,
                                               how: str, cmd: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(compiled, run)
    row = "{\"cut" if how == "not-json" else json.dumps(EVENTS[kind])
    with sqlite3.connect(run / "run.sqlite") as db:
        db.execute("UPDATE events SET row = ? WHERE seq = (SELECT MAX(seq) FROM events "
                   "WHERE kind = ?)", (row, kind))
    result = CliRunner().invoke(main, _command(cmd, run))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"{run / 'run.sqlite'}: event {kind} " in errors[0], \
        result.stderr


@pytest.mark.parametrize("cmd", ["report", "resume"])
def test_a_store_that_is_no_store_is_one_line(compiled: Path, tmp_path: Path,
                                              cmd: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(compiled, run)
    (run / "run.sqlite").write_bytes(b"this is not a database" * 100)
    result = CliRunner().invoke(main, _command(cmd, run))
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(run / "run.sqlite") in errors[0], result.stderr


def test_the_undamaged_run_reports_and_resumes(compiled: Path, tmp_path: Path) -> None:
    """The control of the two tests above."""
    run = tmp_path / "run"
    shutil.copytree(compiled, run)
    for cmd in ("report", "resume"):
        result = CliRunner().invoke(main, _command(cmd, run))
        assert result.exit_code == 0, result.output


def test_fields_the_code_does_not_read_pass_through(tmp_path: Path) -> None:
    path = tmp_path / "000.json"
    path.write_text(json.dumps({"round": 0, "decision": "accept", "written_by": "future"}))
    assert read_record(path, RoundShape)["written_by"] == "future"
