"""A damaged build file is one line naming it and exit 2, for `tether report` and
`tether compile --resume` alike: cut short, wrong-typed, not an object, not UTF-8, or
nested past the parser. The build is the frozen fixture (a finished toy compile)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli.hub import main
from tether.errors import ConfigError
from tether.systems.compile.compiler.records import Round as RoundShape, read_record
from tether.systems.compile.compiler.store import BuildDir

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


# Each build file and the commands that read it on a finished build.
FILES = {
    "config.json": ("report", "resume"),
    "builds/0/selected.json": ("report", "resume"),
    "builds/0/test.json": ("report", "resume"),
    "builds/0/rounds/000.json": ("report", "resume"),
    "builds/0/teacher/r01.json": ("report", "resume"),
    f"scores/test/{BARE}.json": ("report",),
}
KINDS = ("truncated", "wrong-typed", "not-an-object", "non-utf8", "nested")
CASES = [(f, k, c) for f, cmds in FILES.items() for k in KINDS for c in cmds]


def _command(cmd: str, build: Path) -> list[str]:
    return ["report", str(build), "--json"] if cmd == "report" else [
        "compile", "--resume", str(build), "--json"]


@pytest.mark.parametrize(("name", "kind", "cmd"), CASES,
                         ids=[f"{f.rsplit('/', 1)[-1]}-{k}-{c}" for f, k, c in CASES])
def test_a_damaged_build_file_is_one_line_naming_it(tmp_path: Path, name: str, kind: str,
                                                    cmd: str) -> None:
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    _damage(build / name, kind)
    result = CliRunner().invoke(main, _command(cmd, build))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(build / name) in errors[0], result.stderr
    assert "Traceback" not in result.output


def test_the_undamaged_fixture_reports_and_resumes(tmp_path: Path) -> None:
    """The control: the same commands on the intact copy exit 0."""
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    for cmd in ("report", "resume"):
        result = CliRunner().invoke(main, _command(cmd, build))
        assert result.exit_code == 0, result.output


def test_an_admissible_oneshot_without_a_harness_is_refused(tmp_path: Path) -> None:
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    _damage(build / "builds/0/oneshot.json", "wrong-typed")
    with pytest.raises(ConfigError, match=r"oneshot.json: .*document is not a harness"):
        BuildDir(build).build(0).oneshot()


def test_a_cut_partial_line_is_dropped_but_a_foreign_row_is_damage(tmp_path: Path) -> None:
    d = BuildDir(tmp_path)
    d.append_partial("probe", "h", {"item_id": "a", "score": 1.0})
    path = tmp_path / "scores" / "probe" / "h.partial.jsonl"
    with path.open("ab") as fh:
        fh.write(b'{"item_id": "b", "sco')  # a kill in the middle of a line
    assert [r["item_id"] for r in d.partial_items("probe", "h")] == ["a"]
    path.write_bytes(b'[1, 2]\n{"item_id": "a"}\n')
    with pytest.raises(ConfigError, match=r"h.partial.jsonl: line 1"):
        d.partial_items("probe", "h")


def test_fields_the_code_does_not_read_pass_through(tmp_path: Path) -> None:
    path = tmp_path / "000.json"
    path.write_text(json.dumps({"round": 0, "decision": "accept", "written_by": "future"}))
    assert read_record(path, RoundShape)["written_by"] == "future"
