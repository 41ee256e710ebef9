import hashlib
from pathlib import Path

from tether.models.errors import ModelError
from tether.models.replies import json_object
from tether.systems.compile.compiler.teacher import TeacherClient
from tether.testing.scripted_models import ScriptedModel

from .conftest import toy_run


def test_the_teachers_json_object_fenced_bare_and_embedded() -> None:
    assert json_object('Sure.\n```json\n{"a": 1}\n```\nbye') == {"a": 1}
    assert json_object('```\n{"b": 2}\n```') == {"b": 2}
    assert json_object('{"c": 3}') == {"c": 3}
    assert json_object('The harness is {"d": {"e": 4}} as shown') == {"d": {"e": 4}}
    assert json_object("no json here") is None
    assert json_object("```json\n[1, 2]\n```") is None


def test_calls_are_recorded_and_replayed(tmp_path: Path) -> None:
    store = toy_run(tmp_path).build(0)
    model = ScriptedModel(["first reply", "second reply"])
    teacher = TeacherClient(model, store, seed=0, temperature=0.7, max_tokens=100)
    assert teacher.call("r00-s0", "prompt one").text == "first reply"
    again = TeacherClient(model, store, seed=0, temperature=0.7, max_tokens=100)
    assert again.call("r00-s0", "prompt one").text == "first reply"  # from its record
    assert model.calls == 1
    row = store.teacher_call("r00-s0")
    assert row["prompt"] == "prompt one" and row["output_tokens"] == 2
    assert row["cost"] is None and row["error"] is None
    # the prompt and the reply are the run's content-addressed artifacts
    for text, digest in ((row["prompt"], row["prompt_digest"]),
                         (row["reply"], row["reply_digest"])):
        assert digest == hashlib.sha256(text.encode()).hexdigest()
        assert store.run.store.artifact_text(digest) == text


def test_api_error_is_a_reply_with_error(tmp_path: Path) -> None:
    def fail(messages, info):
        raise ModelError("down")

    teacher = TeacherClient(ScriptedModel(fail), toy_run(tmp_path).build(0), seed=0,
                            temperature=0.0, max_tokens=10)
    reply = teacher.call("r01", "p")
    assert reply.text is None and "down" in (reply.error or "")


def test_the_budget_is_reserved_so_spend_never_exceeds_it(tmp_path: Path) -> None:
    # "p q": a prompt estimated at 5 input tokens; each reply is 6 words (6 tokens)
    model = ScriptedModel(["one two three four five six"] * 3)
    store = toy_run(tmp_path).build(0)
    teacher = TeacherClient(model, store, seed=0, temperature=0.0, max_tokens=50,
                            token_budget=20)
    assert teacher.call("a", "p q").text is not None  # 2 in + 6 out
    second = teacher.call("b", "p q")  # 7 left after the prompt: max_tokens cut to 7
    assert second.text is not None and teacher.stopped is None
    third = teacher.call("c", "p q")  # 4 left, the prompt alone takes 5: refused
    assert third.text is None and "budget of 20" in (third.error or "")
    assert teacher.stopped == third.error and model.calls == 2
    assert teacher.tokens_used() == 16 <= 20
    rows = store.teacher_calls()
    assert sum(r["input_tokens"] + r["output_tokens"] for r in rows) == 16
    first = store.teacher_call("a")
    assert [c["role"] for c in first["calls"]] == ["teacher"]
    assert len(first["calls"][0]["request_hash"]) == 64
    assert store.teacher_call("c")["calls"] == []
    # a resumed build starts from what the run says was spent, and replays the refusal
    again = TeacherClient(model, store, seed=0, temperature=0.0, max_tokens=50,
                          token_budget=20)
    assert again.tokens_used() == 16 and again.call("c", "p q").error == third.error
    assert again.stopped == third.error and model.calls == 2
