"""Bounded JSON and TOML reading, and every user-facing reader built on it: non-UTF-8
and deeply nested inputs are one line naming the file, exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli.hub import main
from tether.errors import ConfigError
from tether.models.pricing import load_price_table
from tether.textio import MAX_DEPTH, JSONError, loads, read_json, read_toml

DEEP = "[" * 100_000 + "]" * 100_000
TEACHER = "scripted:tether.testing.scripted_teacher:competent"
STUDENT = "scripted:tether.testing.scripted_teacher:student"


def test_loads_reads_what_json_dumps_writes() -> None:
    value = {"a": [1, 2.5, None, True], "b": "é", "n": float("inf"), "big": 10**30}
    assert loads(json.dumps(value)) == value
    assert loads(b'{"x": 1}') == {"x": 1}
    nested = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    assert loads(nested) == json.loads(nested)


@pytest.mark.parametrize(("text", "says"), [
    (DEEP, f"nested deeper than {MAX_DEPTH} levels at line 1"),
    ("[1, 2", "EOF while parsing a list at line 1 column 5"),
    (b"\xff\xfe[]", "not UTF-8 text (byte 0)"),
    ("1 2", "trailing characters"),
])
def test_loads_fails_with_one_json_error(text: str | bytes, says: str) -> None:
    with pytest.raises(JSONError) as info:
        loads(text)
    assert says in str(info.value) and "\n" not in str(info.value)


def test_read_json_and_read_toml_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "x"\n# \xff\n')
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + DEEP + "\n")
    for path, says in ((bad, "not UTF-8 text"), (deep, "nested too deeply to read")):
        with pytest.raises(ConfigError, match=f"{path.name}: .*{says}"):
            read_toml(path)
    (tmp_path / "deep.json").write_text(DEEP)
    with pytest.raises(ConfigError, match=r"deep.json: not valid JSON: nested deeper"):
        read_json(tmp_path / "deep.json")


@pytest.mark.parametrize("name", ["prices.toml", "prices.json"])
def test_a_price_table_not_utf8_or_nested_is_one_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_price_table(path)
    path.write_text(("a = " if name.endswith("toml") else "") + DEEP)
    with pytest.raises(ConfigError, match="nested"):
        load_price_table(path)


def _files(tmp: Path) -> dict[str, Path]:
    (tmp / "bad.toml").write_bytes(b'name = "x"\n# \xff\xfe\n')
    (tmp / "deep.toml").write_text("a = " + DEEP + "\n")
    (tmp / "deep.json").write_text(DEEP)
    (tmp / "rows.jsonl").write_text("".join(
        json.dumps({"id": f"t{k}", "question": "q", "answer": "a"}) + "\n"
        for k in range(30)) + DEEP + "\n")
    task = tmp / "task"
    for sub in ("tests", "environment"):
        (task / sub).mkdir(parents=True)
    (task / "instruction.md").write_text("Do it.\n")
    (task / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    (task / "environment" / "setup.sh").write_text("true\n")
    (task / "task.toml").write_text("a = " + DEEP + "\n")
    return {"tmp": tmp}


CASES = [
    (["run", "{tmp}/bad.toml"], "bad.toml: not UTF-8 text"),
    (["run", "{tmp}/deep.toml"], "deep.toml: invalid TOML: nested too deeply"),
    (["run", "{tmp}/deep.json"], "deep.json: invalid JSON at line 1 column 202: nested"),
    (["compile", "{tmp}/deep.toml"], "deep.toml: invalid TOML: nested too deeply"),
    (["compile", "{tmp}/bad.toml"], "bad.toml: not UTF-8 text"),
    (["harness", "hash", "{tmp}/deep.json"], "harness {tmp}/deep.json is not JSON: nested"),
    (["harness", "check", "{tmp}/deep.json", "--setting", "toy"], "is not JSON: nested"),
    (["compile", "--setting", "jsonl:{tmp}/rows.jsonl", "--teacher", TEACHER, "--student",
      STUDENT, "--out", "{tmp}/b"], "rows.jsonl:31: not JSON (nested deeper"),
    (["suites", "show", "{tmp}/deep.json"], "deep.json: invalid JSON at line 1"),
    (["suites", "show", "{tmp}/rows.jsonl"], "rows.jsonl: line 31: invalid JSON"),
    (["suites", "show", "harbor:{tmp}/task"], "task.toml: not valid TOML: nested too deeply"),
    (["models", "ping", "scripted:{tmp}/deep.json"], "deep.json: nested deeper than"),
]


@pytest.mark.parametrize(("args", "says"), CASES, ids=[" ".join(a[:2]) + f"-{i}"
                                                       for i, (a, _) in enumerate(CASES)])
def test_every_reader_refuses_in_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    fields = _files(tmp_path)
    result = CliRunner().invoke(main, [a.format(**fields) for a in args])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and says.format(**fields) in errors[0], result.stderr
    assert "Traceback" not in result.output
