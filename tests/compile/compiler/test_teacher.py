from pathlib import Path

from tether.compile.compiler.store import BuildDir
from tether.compile.compiler.teacher import TeacherClient, extract_json
from tether.models.errors import ModelError
from tether.models.scripted import ScriptedModel


def test_extract_json_fenced_bare_and_embedded() -> None:
    assert extract_json('Sure.\n```json\n{"a": 1}\n```\nbye') == {"a": 1}
    assert extract_json('```\n{"b": 2}\n```') == {"b": 2}
    assert extract_json('{"c": 3}') == {"c": 3}
    assert extract_json('The harness is {"d": {"e": 4}} as shown') == {"d": {"e": 4}}
    assert extract_json("no json here") is None
    assert extract_json("```json\n[1, 2]\n```") is None


def test_calls_are_recorded_and_replayed(tmp_path: Path) -> None:
    store = BuildDir(tmp_path).build(0)
    model = ScriptedModel(["first reply", "second reply"])
    teacher = TeacherClient(model, store, seed=0, temperature=0.7, max_tokens=100)
    assert teacher.call("r00-s0", "prompt one").text == "first reply"
    again = TeacherClient(model, store, seed=0, temperature=0.7, max_tokens=100)
    assert again.call("r00-s0", "prompt one").text == "first reply"  # from the file
    assert model.calls == 1
    row = store.teacher_call("r00-s0")
    assert row["prompt"] == "prompt one" and row["output_tokens"] == 2
    assert row["cost"] is None and row["error"] is None


def test_api_error_is_a_reply_with_error(tmp_path: Path) -> None:
    def fail(messages, info):
        raise ModelError("down")

    teacher = TeacherClient(ScriptedModel(fail), BuildDir(tmp_path).build(0), seed=0,
                            temperature=0.0, max_tokens=10)
    reply = teacher.call("r01", "p")
    assert reply.text is None and "down" in (reply.error or "")


def test_budget_exhausted_is_an_error_without_a_call(tmp_path: Path) -> None:
    model = ScriptedModel(["one two three four five six"] * 3)
    teacher = TeacherClient(model, BuildDir(tmp_path).build(0), seed=0, temperature=0.0,
                            max_tokens=50, token_budget=5)
    assert teacher.call("a", "p q").text is not None
    second = teacher.call("b", "p q")
    assert second.error is not None and "budget" in second.error
    assert model.calls == 1
