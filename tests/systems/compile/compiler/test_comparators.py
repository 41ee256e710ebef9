"""The test arms beside bare and the selection: student_routed and cot_vote scored in
the build after the freeze, `comparators` choosing the arms, a killed baseline resumed
item by item, and interventions decided n/a per item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.systems.compile.compiler.conftest import compile_toy, recorded, toy_config
from tether.systems.compile.baselines import CotVote, StudentRouted
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.trial import Scoring
from tether.systems.compile.report import hc_numbers, write_hc_report
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher


def test_baselines_are_scored_on_the_test_items_after_the_freeze(tmp_path: Path) -> None:
    seen: list[tuple[str, str, str, bool]] = []
    compilers: list[Compiler] = []

    def before(split: str, key: str, item: Any) -> None:
        frozen = compilers[0].store.build(0).selected() is not None
        seen.append((split, key, item.item_id, frozen))

    teacher = ScriptedTeacher({"0": "v1", "1": "v2"})
    compilers.append(Compiler(toy_config(tmp_path), teacher=ScriptedModel(teacher.script),
                              student=ScriptedModel(ScriptedStudent({}).script),
                              before_item=before))
    result = compilers[0].run()
    test = recorded(tmp_path).test
    assert test is not None
    for baseline in (StudentRouted(), CotVote()):
        row = test["arms"][baseline.name]
        assert row["hash"] is None and row["key"] == baseline.key and row["n"] == 8
        calls = [(split, frozen) for split, key, _, frozen in seen if key == baseline.key]
        assert calls == [("test", True)] * 8  # test items only, all after the freeze
        assert result[baseline.name]["test"] == pytest.approx(row["mean"])
        assert result[baseline.name]["tokens_per_item"] > 0
    votes = recorded(tmp_path).scores[("test", CotVote().key)]
    assert votes is not None and all(len(o["votes"]) == 5 for o in votes.outcomes.values())
    arms = [a["arm"] for a in hc_numbers(tmp_path)["builds"][0]["arms"]]
    assert arms == ["bare", "h0", "selected", "oneshot", "human_recipe", "student_routed",
                    "cot_vote", "constant"]  # toy is pass/fail: the constant-answer row
    rows = {a["arm"]: a for a in hc_numbers(tmp_path)["builds"][0]["arms"]}
    assert rows["cot_vote"]["vs_bare"]["n"] == 8  # paired with bare on the same items
    assert rows["cot_vote"]["vs_bare"]["test"] == "mcnemar"
    html = write_hc_report(tmp_path)[0].read_text()
    assert "<td>cot_vote</td><td>(no harness)</td>" in html


def test_comparators_choose_the_arms_and_the_one_shot_call(tmp_path: Path) -> None:
    none, _ = compile_toy(tmp_path / "none", {"0": "v1"}, rounds=0, comparators=[])
    store = recorded(tmp_path / "none")
    assert store.test is not None and set(store.test["arms"]) == {"bare", "selected"}
    assert store.oneshot is None
    assert [c["key"] for c in store.teacher_calls] == ["r00-s0"]  # no one-shot call
    assert none["cot_vote"]["test"] is None and none["oneshot"]["test"] is None
    one, _ = compile_toy(tmp_path / "one", {"0": "v1"}, rounds=0, comparators="cot_vote")
    assert set((recorded(tmp_path / "one").test or {})["arms"]) == {"bare", "selected",
                                                                    "cot_vote"}
    assert one["cot_vote"]["test"] is not None


class _Killed(BaseException):
    """Stands in for a kill: not an error the scorer may catch."""


def test_a_killed_baseline_resumes_without_rescoring_an_item(tmp_path: Path) -> None:
    student = ScriptedStudent({})
    samples: list[int] = []

    def dies_on_the_third_item(messages: list[dict[str, Any]], info: Any) -> str:
        samples.append(info.sample_index)
        if len(samples) > 10:  # 5 samples per item: items 1 and 2 are scored
            raise _Killed
        return student.script(messages, info)

    config = toy_config(tmp_path, comparators=[])
    first = Compiler(config, teacher=ScriptedModel(["unused"]),
                     student=ScriptedModel(dies_on_the_third_item))
    items = first.splits["probe"]
    with pytest.raises(_Killed):
        first.scorer.score_baseline(CotVote(), "probe", items)
    assert len(first.store.scored(Scoring.of_baseline("cot_vote", CotVote().key,
                                                      "probe"))) == 2
    first.store.close()  # what the end of a killed process does
    counted = ScriptedModel(student.script)
    again = Compiler.resume(tmp_path, teacher=ScriptedModel(["unused"]), student=counted)
    result = again.scorer.score_baseline(CotVote(), "probe", items)
    assert counted.calls == 5 * (len(items) - 2)
    assert set(result.outcomes) == {i.item_id for i in items}


def test_an_intervention_is_na_on_the_items_it_does_not_apply_to(tmp_path: Path) -> None:
    # v2 enables toy's signals, which only sum items have: integrate and decide apply to
    # those and are n/a on the capitals, the first test item (cap-norway) among them.
    compile_toy(tmp_path, {"0": "v2"}, rounds=0, interventions=True, comparators=[])
    build = recorded(tmp_path)
    test = build.test
    assert test is not None
    items = test["items"]
    capitals = {i for i in items if i.startswith("cap-")}
    assert items[0] in capitals and 0 < len(capitals) < len(items)
    for name in ("integrate", "decide"):
        row = test["interventions"][name]
        assert set(row["na_items"]) == capitals
        assert row["n"] == len(items) - len(capitals)
        scores = build.scores[("test", row["key"])]
        assert set(scores.scores) == set(items) - capitals
    assert test["interventions"]["persist"]["n"] == len(items)
    assert test["interventions"]["persist"]["na_items"] == {}
    assert "na" in test["interventions"]["select"]  # applies to no item: n/a as a whole
    rows = {r["intervention"]: r for r in hc_numbers(tmp_path)["builds"][0]["interventions"]}
    assert rows["integrate"]["na_items"] == len(capitals)
    assert rows["integrate"]["n"] == len(items) - len(capitals)
    assert rows["select"]["na"]
    html = write_hc_report(tmp_path)[0].read_text()
    assert f"(n/a on {len(capitals)})" in html


def test_a_finished_build_resumed_with_more_comparators_scores_only_the_new_arms(
        tmp_path: Path) -> None:
    compile_toy(tmp_path, {"0": "v1"}, rounds=0, comparators="h0")
    before = recorded(tmp_path).test
    assert before is not None and set(before["arms"]) == {"bare", "selected", "h0"}
    _widen(tmp_path, ["h0", "student_routed"])
    student = ScriptedModel(ScriptedStudent({}).script)
    result = Compiler.resume(tmp_path, teacher=ScriptedModel(["unused"]), student=student).run()
    after = recorded(tmp_path).test
    assert after is not None and set(after["arms"]) == {"bare", "selected", "h0", "student_routed"}
    assert {k: after["arms"][k] for k in before["arms"]} == before["arms"]
    # the new arm's calls (a menu and a read per item), nothing else
    assert student.calls == 2 * len(after["items"])
    routed = after["arms"]["student_routed"]
    assert routed["n"] == len(after["items"])
    assert result["student_routed"]["test"] == pytest.approx(routed["mean"])
    # resumed again with nothing new: nothing is scored
    again = ScriptedModel(ScriptedStudent({}).script)
    Compiler.resume(tmp_path, teacher=ScriptedModel(["unused"]), student=again).run()
    assert again.calls == 0


def _widen(out: Path, comparators: list[str]) -> None:
    """The compile's recorded config with more comparators (a config widened by hand)."""
    with CompileRun.reopen(out) as run:
        row = run.compile_row()
        assert row is not None
        run.record("compile", "", {**row, "config": {**row["config"],
                                                     "comparators": comparators}})
