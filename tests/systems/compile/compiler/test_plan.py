"""The shared-H0 mode (compiler/plan.py): protocols A and B from one H0 in one compile."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tether.errors import TetherError
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.plan import PlannedBuild, build_plan
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.teacher import TeacherClient
from tether.systems.compile.report import hc_numbers
from tether.systems.compile.setting import Item
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher

from .conftest import recorded, toy_config, toy_run

ROUND0 = re.compile(r"^# Harness compilation: round 0, attempt", re.M)


def test_the_plan_pairs_an_a_and_a_b_build_per_replicate() -> None:
    assert build_plan(2, "B") == [PlannedBuild(0, "B", 0), PlannedBuild(1, "B", 1)]
    plan = build_plan(2, "AB")
    assert [(b.index, b.protocol, b.replicate, b.h0_from, b.h0_with) for b in plan] == [
        (0, "A", 0, None, "1"), (1, "B", 0, "0", None),
        (2, "A", 1, None, "3"), (3, "B", 1, "2", None)]
    assert plan[0].shared_h0 == plan[1].shared_h0 == {"written_by": "0", "read_by": "1"}
    assert build_plan(1, "A")[0].shared_h0 is None


def _compile_ab(out: Path, plan: dict[str, Any], **fields: Any
                ) -> tuple[dict[str, Any], ScriptedTeacher, list[tuple[str, bool]]]:
    teacher = ScriptedTeacher(plan)
    seen: list[tuple[str, bool]] = []

    def before(split: str, harness_hash: str, item: Item) -> None:
        # whether every build's selection was recorded when this item was scored
        with sqlite3.connect(out / "run.sqlite") as db:
            frozen = db.execute("SELECT COUNT(*) FROM events WHERE kind = 'selected'"
                                ).fetchone()[0]
        seen.append((split, frozen == 2))

    result = Compiler(toy_config(out, protocol="AB", **fields),
                      teacher=ScriptedModel(teacher.script),
                      student=ScriptedModel(ScriptedStudent({}).script),
                      before_item=before).run()
    return result, teacher, seen


def test_protocols_a_and_b_start_from_one_h0_asked_for_once(tmp_path: Path) -> None:
    result, teacher, seen = _compile_ab(
        tmp_path, {"0": ["unparseable", "v1"], "1": "v2", "default": "noop"})
    # the teacher wrote round 0 once (a restart included), for both builds
    assert len([p for p in teacher.prompts if ROUND0.search(p)]) == 2
    a, b = recorded(tmp_path, 0), recorded(tmp_path, 1)
    assert [c["key"] for c in a.teacher_calls if c["key"].startswith("r00-")] == [
        "r00-s0", "r00-s1"]
    assert not [c for c in b.teacher_calls if c["key"].startswith("r00-")]
    # the same round 0, the same H0, the same first incumbent
    assert a.selected is not None and b.selected is not None
    assert a.selected["protocol"] == "A" and b.selected["protocol"] == "B"
    assert a.selected["shared_h0"] == b.selected["shared_h0"] == {"written_by": "0",
                                                                  "read_by": "1"}
    h0 = a.selected["h0"]["hash"]
    assert h0 is not None and b.selected["h0"]["hash"] == h0
    round0 = [[(r["restart"], r["decision"], r["hash"], r["incumbent"]) for r in s.rounds
               if r["round"] == 0] for s in (a, b)]
    assert round0[0] == round0[1] and round0[0][-1][2] == h0 == round0[0][-1][3]
    # each protocol revised on its own after H0: B's reflection prompts name it
    b_prompts = [c["prompt"] for c in b.teacher_calls if c["key"].startswith("r01")]
    assert b_prompts and all("## The incumbent (hash" in p for p in b_prompts)
    # H0 scored once: one trial per probe and validation item of its harness
    h0_trials = [t for t in a.trials if t.extra["key"] == h0 and not t.extra.get("scope")
                 and t.extra["split"] in ("probe", "validation")]
    assert len(h0_trials) == 6 + 6
    # the freeze holds for both builds: no test item before both selections
    assert [frozen for split, frozen in seen if split == "test"]
    assert all(frozen for split, frozen in seen if split == "test")
    assert not any(frozen for split, frozen in seen if split != "test")
    # the result and the report keep the protocols apart and say they share H0
    assert [x["protocol"] for x in result["builds"]] == ["A", "B"]
    assert set(result["by_protocol"]) == {"A", "B"}
    pairs = hc_numbers(tmp_path)["across"]["pairs"]
    assert pairs["rows"][0]["builds"] == [0, 1] and pairs["rows"][0]["same_h0"]
    assert pairs["rows"][0]["h0_hash"] == h0


def test_the_b_build_charges_the_shared_round0_to_its_budget(tmp_path: Path) -> None:
    run = toy_run(tmp_path)
    try:
        written, reading = run.build(0), run.build(1)
        model = ScriptedModel(ScriptedTeacher({"0": "v1"}).script)
        first = TeacherClient(model, written, seed=0, temperature=0.0, max_tokens=64)
        reply = first.call("r00-s0", "# Harness compilation: round 0, attempt 1\n")
        second = TeacherClient(model, reading, seed=0, temperature=0.0, max_tokens=64,
                               round0_from=written)
        assert second.tokens_used() == reply.input_tokens + reply.output_tokens > 0
        again = second.call("r00-s0", "# Harness compilation: round 0, attempt 1\n")
        assert again.text == reply.text and reading.teacher_calls() == []
        # a round-0 prompt the writing build never sent is no second H0
        with pytest.raises(TetherError, match="shared H0"):
            second.call("r00-s1", "another prompt")
    finally:
        run.close()


def test_protocol_ab_resumes_without_asking_for_h0_again(tmp_path: Path) -> None:
    _compile_ab(tmp_path, {"0": ["v1"], "1": "v2", "default": "noop"})
    teacher = ScriptedTeacher({"0": ["v1"], "1": "v2", "default": "noop"})
    with CompileRun.read(tmp_path) as run:
        before = run.result()
    again = Compiler.resume(tmp_path, teacher=ScriptedModel(teacher.script),
                            student=ScriptedModel(ScriptedStudent({}).script)).run()
    assert teacher.prompts == [] and again == before
