"""`tether harness apply`: a compile's selected harness deployed on other files (written
here, not bundled), with the scripted teacher and student (test doubles)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tether.cli.hub import main
from tether.runs import RunStore

TEACHER = "scripted:tether.testing.scripted_teacher:competent"
STUDENT = "scripted:tether.testing.scripted_teacher:student"


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A compile on made-up ferry trivia whose `context` field holds the answer: the
    scripted teacher's harnesses show that field as a `Fact:` line the student reads."""
    root = tmp_path_factory.mktemp("compiled")
    data = _write(root / "ferries.jsonl", [
        {"id": f"f{k:02d}", "question": f"Which harbour does ferry {k} sail to?",
         "answer": f"Port{k}vale", "context": f"Port{k}vale"} for k in range(16)])
    made = _cli("compile", "--setting", f"jsonl:{data}", "--teacher", TEACHER,
                "--student", STUDENT, "--rounds", "1", "--comparators", "none",
                "--out", str(root / "build"), "--json")
    assert made.exit_code == 0, made.output
    result = json.loads(made.stdout)
    assert not result["selected_is_bare"]  # a harness that reads `context` was chosen
    return root / "build"


def _trials(run_dir: Path) -> list[Any]:
    with RunStore.open(run_dir, readonly=True) as store:
        return store.trials()


def _predictions(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _buses(tmp_path: Path, ids: list[int], **extra: Any) -> Path:
    """Rows of another file, unlike the compile's: no `answer`, another question, and a
    field the harness does not use holding what a data row could not (an object)."""
    return _write(tmp_path / "buses.jsonl", [
        {"id": f"b{k}", "question": f"Where does night bus {k} end?", "context": f"Stop{k}",
         "notes": {"driver": "unknown"}, **extra} for k in ids])


def test_a_compiles_out_dir_applied_to_an_unlabelled_file(compiled: Path,
                                                          tmp_path: Path) -> None:
    data = _buses(tmp_path, [7, 3, 11, 5])
    out = tmp_path / "applied"
    ran = _cli("harness", "apply", str(compiled), "--data", str(data), "--student", STUDENT,
               "--out", str(out))
    assert ran.exit_code == 0, ran.output
    # one line per row, in the file's order, each the harness's answer (the bare
    # student, which sees no context, would answer "unsure")
    assert _predictions(out) == [{"id": f"b{k}", "answer": f"Stop{k}"} for k in (7, 3, 11, 5)]
    trials = _trials(out)
    assert len(trials) == 4
    assert all(t.status == "ok" and t.score is None and t.passed is None for t in trials)
    assert all(t.extra["unlabelled"] for t in trials)
    assert "data: " in ran.output and "4 rows, 0 labelled" in ran.output
    assert "checks run: schema, hooks\n" in ran.output
    assert "checks not run: hardcoded, smoke, determinism: no row is labelled" in ran.output
    assert "score: - (no labelled row)" in ran.output
    with RunStore.open(out, readonly=True) as store:
        assert store.meta("command") == "harness apply"


def test_a_labelled_file_is_scored_where_it_has_labels(compiled: Path,
                                                       tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [
        {"id": "r1", "question": "Where does tram 1 end?", "context": "Depot1",
         "answer": "Depot1"},
        {"id": "r2", "question": "Where does tram 2 end?", "context": "Depot2"},
        {"id": "r3", "question": "Where does tram 3 end?", "context": "Depot3",
         "answer": ["Elsewhere"]},  # a label the harness's answer does not match
        {"id": "r4", "question": "Where does tram 4 end?", "context": "Depot4",
         "answer": None}]  # null: unlabelled
    data = _write(tmp_path / "trams.jsonl", rows)
    out = tmp_path / "trams"
    ran = _cli("harness", "apply", str(compiled), "--data", f"jsonl:{data}", "--student",
               STUDENT, "--out", str(out), "--json")
    assert ran.exit_code == 0, ran.output
    result = json.loads(ran.stdout)
    assert (result["rows"], result["labelled"], result["scored"]) == (4, 2, 2)
    assert result["mean"] == 0.5
    assert result["checks"] == ["schema", "hooks", "hardcoded", "smoke", "determinism"]
    assert result["admissibility"]["labelled_rows"] == 2
    assert result["checks_not_run"] == {}
    scores = {t.extra["item_id"]: t.score for t in _trials(out)}
    assert scores == {"r1": 1.0, "r2": None, "r3": 0.0, "r4": None}
    assert [p["answer"] for p in _predictions(out)] == ["Depot1", "Depot2", "Depot3",
                                                          "Depot4"]


def test_a_file_missing_a_field_the_harness_uses_is_one_line(compiled: Path,
                                                             tmp_path: Path) -> None:
    data = _write(tmp_path / "short.jsonl", [
        {"id": "a", "question": "Where?", "context": "Here"},
        {"id": "b", "question": "And there?"}])
    out = tmp_path / "never"
    ran = _cli("harness", "apply", str(compiled), "--data", str(data), "--student", STUDENT,
               "--out", str(out))
    assert ran.exit_code == 2
    lines = [ln for ln in ran.output.splitlines() if ln.strip()]
    assert lines[0] == f"error: {data}:2: no field 'context', which the harness uses"
    assert len(lines) == 2 and lines[1].startswith("hint: ")
    assert not out.exists()


def test_a_second_resume_adds_no_trials(compiled: Path, tmp_path: Path) -> None:
    data = _buses(tmp_path, [1, 2, 3])
    out = tmp_path / "applied"
    first = _cli("harness", "apply", str(compiled), "--data", str(data), "--student",
                 STUDENT, "--out", str(out), "--json")
    assert first.exit_code == 0, first.output
    predictions = _predictions(out)
    for _ in range(2):
        again = _cli("harness", "apply", "--resume", str(out), "--json")
        assert again.exit_code == 0, again.output
        assert json.loads(again.stdout)["answered"] == 3
    assert len(_trials(out)) == 3
    assert len((out / "trials.jsonl").read_text().splitlines()) == 3
    assert _predictions(out) == predictions
    refused = _cli("harness", "apply", str(compiled), "--data", str(data), "--student",
                   STUDENT, "--out", str(out))
    assert refused.exit_code == 2 and "tether harness apply --resume" in refused.output


def test_bare_and_recipe_are_named_as_harness_run_names(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": "a", "question": "2+2?", "answer": "4"}\n')
    for name in ("bare", "recipe"):
        refused = _cli("harness", "apply", name, "--data", str(data), "--student",
                       'scripted:["4"]', "--out", str(tmp_path / name))
        assert refused.exit_code == 2
        assert f"harness {name!r}: apply deploys a harness file" in refused.output
        assert "tether harness run" in refused.output and not (tmp_path / name).exists()
