"""A deployment (`tether harness apply`) through its Python entry: a crash mid-run and
its resume, a harness file from another setting, an inadmissible harness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tether.errors import ConfigError
from tether.runs import RunStore
from tether.systems.compile import SCHEMA, Deployment
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent

STUDENT = "scripted:tether.testing.scripted_teacher:student"
#: reads the `context` field as the `Fact:` line the scripted student repeats
READER = {"schema": SCHEMA, "setting": "jsonl:/elsewhere/compiled-on.jsonl",
          "prompts": {"answer": "Fact: {context}\nQuestion: {question}\nAnswer with one word."},
          "resources": {"context": True}}


def _file(tmp_path: Path, n: int, **label: str) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{k}", "question": f"Where is {k}?",
                                        "context": f"Place{k}", **label}) + "\n"
                            for k in range(n)), encoding="utf-8")
    return path


def _harness(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "harness.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _trial_ids(out: Path) -> list[str]:
    with RunStore.open(out, readonly=True) as store:
        return sorted(t.extra["item_id"] for t in store.trials())


def test_a_crash_mid_run_resumes_with_the_rows_left(tmp_path: Path) -> None:
    """The fourth student call dies (as a killed process would stop): the three rows
    before it are committed; the resume scores only the rest, each row once."""
    data, out = _file(tmp_path, 6), tmp_path / "out"
    student = ScriptedStudent({})
    made: list[str] = []

    def dying(messages: list[dict[str, Any]], info: Any) -> str:
        if len(made) == 3:
            raise RuntimeError("the process is gone")
        made.append(str(messages[-1]["content"]))
        return student.script(messages, info)

    deployment, admission = Deployment.start(_harness(tmp_path, READER), str(data), STUDENT,
                                             out, model=ScriptedModel(dying))
    assert deployment is not None and admission["admissible"]
    with pytest.raises(RuntimeError, match="the process is gone"):
        deployment.run()
    assert _trial_ids(out) == ["r0", "r1", "r2"]
    assert not (out / "predictions.jsonl").exists()

    again: list[str] = []

    def counting(messages: list[dict[str, Any]], info: Any) -> str:
        again.append(str(messages[-1]["content"]))
        return student.script(messages, info)

    result = Deployment.resume(out, model=ScriptedModel(counting)).run()
    assert len(again) == 3  # rows r3..r5 only
    assert _trial_ids(out) == [f"r{k}" for k in range(6)]
    assert (result.rows, result.answered, result.errors, result.mean) == (6, 6, 0, None)
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"id": f"r{k}", "answer": f"Place{k}"} for k in range(6)]


def test_the_rows_not_the_setting_name_decide(tmp_path: Path) -> None:
    """A harness compiled on another file (named in its document) runs on these rows,
    since they have its `context` field; the document was not checked against their
    setting's name."""
    deployment, admission = Deployment.start(_harness(tmp_path, READER),
                                             str(_file(tmp_path, 2)), STUDENT,
                                             tmp_path / "out")
    assert deployment is not None, admission
    assert deployment.run().answered == 2


def test_an_inadmissible_harness_is_not_run(tmp_path: Path) -> None:
    opener = {**READER, "hooks": {"parse": "def parse(text, item):\n"
                                           "    return open('/etc/passwd').read()\n"}}
    out = tmp_path / "out"
    deployment, admission = Deployment.start(_harness(tmp_path, opener),
                                             str(_file(tmp_path, 2, answer="x")), STUDENT,
                                             out)
    assert deployment is None and not admission["admissible"]
    assert [v["check"] for v in admission["violations"]] == ["hooks"]
    assert admission["checks_not_run"] == {c: "an earlier check failed"
                                           for c in ("hardcoded", "smoke", "determinism")}
    assert not out.exists()


def test_a_resume_refuses_a_file_whose_rows_changed(tmp_path: Path) -> None:
    data, out = _file(tmp_path, 3), tmp_path / "out"
    deployment, _ = Deployment.start(_harness(tmp_path, READER), str(data), STUDENT, out)
    assert deployment is not None
    deployment.run()
    _file(tmp_path, 4)  # a row more
    with pytest.raises(ConfigError, match="changed since"):
        Deployment.resume(out)
