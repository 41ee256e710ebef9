"""`tether compile --setting jsonl:PATH` from the CLI alone: a user's own file (written
here, not bundled) compiles with a scripted teacher and student (test doubles), and
`harness check`, `--resume` and `report` work on the build."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import recorded
from tether.cli.hub import main

TEACHER = "scripted:tether.testing.scripted_teacher:competent"
STUDENT = "scripted:tether.testing.scripted_teacher:student"
SIZES = ["--probe", "6", "--validation", "6", "--test", "8"]


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def user_file(tmp_path: Path, n: int = 24) -> Path:
    """Made-up trivia: the context field holds the fact that answers the question."""
    path = tmp_path / "mine" / "trivia.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps({
        "id": f"t{k:02d}", "question": f"Which harbour does ferry {k} sail to?",
        "answer": [f"Port{k}vale"], "context": f"Port{k}vale"}) + "\n" for k in range(n)),
        encoding="utf-8")
    return path


def test_a_users_jsonl_compiles_checks_resumes_and_reports(tmp_path: Path,
                                                           monkeypatch) -> None:
    data = user_file(tmp_path)
    monkeypatch.chdir(data.parent)  # a relative path, as a user types it
    out = tmp_path / "build"
    made = _cli("compile", "--setting", "jsonl:trivia.jsonl", "--metric", "f1",
                "--teacher", TEACHER, "--student", STUDENT, *SIZES, "--rounds", "1",
                "--out", str(out), "--json")
    assert made.exit_code == 0, made.output
    result = json.loads(made.output)
    assert not result["selected_is_bare"]
    assert result["selected"]["test"] > result["bare"]["test"]
    config = json.loads((out / "config.resolved.json").read_text())
    assert config["setting"] == f"jsonl:{data.resolve()};metric=f1"

    monkeypatch.chdir(tmp_path)  # elsewhere: the compile names its file absolutely
    # the selected harness is a file of the run directory: its content-addressed artifact
    harness = selected_file(out, result["selected_hash"])
    checked = _cli("harness", "check", str(harness))
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith("admissible on jsonl:")

    again = _cli("compile", "--resume", str(out), "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.output) == result

    reported = _cli("report", str(out), "--json")
    assert reported.exit_code == 0, reported.output
    assert Path(json.loads(reported.output)["report"]).is_file()


def test_impossible_split_sizes_are_refused_with_the_item_count(tmp_path: Path) -> None:
    data = user_file(tmp_path, n=10)
    out = tmp_path / "build"
    refused = _cli("compile", "--setting", f"jsonl:{data}", "--teacher", TEACHER,
                   "--student", STUDENT, "--probe", "4", "--validation", "4", "--test", "20",
                   "--out", str(out))
    assert refused.exit_code == 2
    assert "has 10 items; probe 4 + validation 4 + test 20 = 28 asked" in refused.output
    assert "e.g. --probe 2 --validation 2 --test 6" in refused.output  # what to pass
    assert not out.exists()  # refused before anything was written
    toy = _cli("compile", "--setting", "toy", "--teacher", TEACHER, "--student", STUDENT,
               "--test", "20", "--out", str(tmp_path / "toy"))
    assert toy.exit_code == 2 and "toy" in toy.output and "asked" in toy.output


def test_a_bad_file_is_one_line_naming_the_line(tmp_path: Path) -> None:
    data = user_file(tmp_path, n=3)
    with data.open("a", encoding="utf-8") as f:
        f.write('{"id": "t01", "question": "again?", "answer": "x", "context": "y"}\n')
    bad = _cli("compile", "--setting", f"jsonl:{data}", "--teacher", TEACHER,
               "--student", STUDENT, "--out", str(tmp_path / "b"))
    assert bad.exit_code == 2
    assert "trivia.jsonl:4: duplicate id 't01' (first on line 2)" in bad.output
    assert "Traceback" not in bad.output
    metric = _cli("compile", "--setting", "toy", "--metric", "f1", "--teacher", TEACHER,
                  "--student", STUDENT, "--out", str(tmp_path / "m"))
    assert metric.exit_code == 2 and "--metric applies to data settings" in metric.output


def test_a_small_file_needs_no_size_flags(tmp_path: Path, monkeypatch) -> None:
    """12 rows: the default sizes (50 / 50 / 200) are fitted, for compile, resume and
    harness run alike, and a deployed run's directory is one folder under runs/."""
    data = user_file(tmp_path, n=12)
    monkeypatch.chdir(data.parent)
    made = _cli("compile", "--setting", "jsonl:trivia.jsonl", "--teacher", TEACHER,
                "--student", STUDENT, "--rounds", "0", "--comparators", "none",
                "--out", "build")
    assert made.exit_code == 0, made.output
    assert "split sizes: probe 3, validation 3, test 6" in made.output
    config = json.loads(Path("build/config.resolved.json").read_text())
    assert (config["probe"], config["validation"], config["test"]) == (3, 3, 6)
    again = _cli("compile", "--resume", "build")
    assert again.exit_code == 0 and "split sizes: probe 3, validation 3, test 6" in again.output

    chosen = recorded(Path("build")).selected
    assert chosen is not None
    selected = selected_file(Path("build"), chosen["hash"])
    Path("selected.json").write_text(selected.read_text())
    # the relative path a user types names the file the build recorded absolutely
    checked = _cli("harness", "check", "selected.json", "--setting", "jsonl:trivia.jsonl")
    assert checked.exit_code == 0, checked.output
    for harness in ("selected.json", "bare"):
        ran = _cli("harness", "run", harness, "--setting", "jsonl:trivia.jsonl",
                   "--student", STUDENT)
        assert ran.exit_code == 0, ran.output
        assert ": 6 items" in ran.output  # the compile's test split
    assert sorted(p.name for p in Path("runs").iterdir()) == [
        "harness-jsonl-trivia.jsonl-test-bare", "harness-jsonl-trivia.jsonl-test-selected"]


def test_a_harness_run_error_names_no_temporary_file(tmp_path: Path) -> None:
    ran = _cli("harness", "run", "bare", "--setting", f"jsonl:{tmp_path / 'none.jsonl'}",
               "--student", STUDENT)
    assert ran.exit_code == 2
    assert "no such data file" in ran.output and "harness-run.json" not in ran.output


def selected_file(out: Path, harness_hash: str) -> Path:
    """The selected harness's file in a compile's run directory (its artifact)."""
    path = out / "artifacts" / harness_hash[:2] / f"{harness_hash}.json"
    assert path.is_file() and json.loads(path.read_text())["schema"] == "tether-harness/1"
    return path
