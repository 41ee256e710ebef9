"""Builds around the loop: the freeze before test, what teachers never see, the test
gold audit, several builds."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path

import pytest

from tests.systems.compile.compiler.conftest import compile_toy, recorded, toy_config
from tether.systems.compile.baselines import CotVote
from tether.systems.compile.compiler import Compiler, FreezeError
from tether.systems.compile.compiler.summary import teacher_failure
from tether.systems.compile.compiler.trial import Scoring
from tether.systems.compile.harness import bare_harness
from tether.systems.compile.settings.toy import ToySetting
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import VARIANTS, ScriptedTeacher


def _compiler(out: Path, plan: dict, variants: dict | None = None, **fields) -> Compiler:
    teacher = ScriptedTeacher(plan, variants)
    return Compiler(toy_config(out, **fields), teacher=ScriptedModel(teacher.script),
                    student=ScriptedModel(ScriptedStudent({}).script),
                    before_item=fields.pop("before_item", None))


def _selection_recorded(out: Path) -> bool:
    """Whether the store holds build 0's `selected` event (read as another process
    would: from the file, with the log and the store both checked)."""
    log = out / "events.jsonl"
    in_log = log.is_file() and any(json.loads(line)["kind"] == "selected"
                                   for line in log.read_text().splitlines())
    with sqlite3.connect(out / "run.sqlite") as db:
        in_store = db.execute("SELECT COUNT(*) FROM events WHERE kind = 'selected'"
                              ).fetchone()[0] > 0
    assert in_log == in_store
    return in_store


def test_the_selection_is_recorded_before_the_first_test_item(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []

    def before(split: str, harness_hash: str, item) -> None:
        seen.append((split, _selection_recorded(tmp_path)))

    teacher = ScriptedTeacher({"0": "v1", "1": "v2"})
    Compiler(toy_config(tmp_path), teacher=ScriptedModel(teacher.script),
             student=ScriptedModel(ScriptedStudent({}).script), before_item=before).run()
    test_calls = [frozen for split, frozen in seen if split == "test"]
    assert len(test_calls) >= 8 and all(test_calls)
    assert not any(frozen for split, frozen in seen if split != "test")
    frozen = recorded(tmp_path).selected
    assert frozen is not None and frozen["is_bare"] is False and frozen["rounds"] == 3
    # and the test items' trials came after it: the trials of test items have the
    # highest indices of the build's own scorings
    trials = recorded(tmp_path).trials
    last_other = max(t.index for t in trials if t.extra["split"] != "test")
    assert min(t.index for t in trials if t.extra["split"] == "test") > last_other


def test_no_test_item_is_scored_before_a_freeze(tmp_path: Path) -> None:
    compiler = _compiler(tmp_path, {"0": "v1"})
    with pytest.raises(FreezeError):
        compiler.scorer.score(bare_harness("toy"), "test", compiler.splits["test"])
    with pytest.raises(FreezeError):  # the baselines go through the same guard
        compiler.scorer.score_baseline(CotVote(), "test", compiler.splits["test"])
    refused = Scoring.of_baseline("cot_vote", CotVote().key, "test")
    assert compiler.store.scored(refused) == {}  # nothing recorded for a refused item
    compiler.store.close()
    assert recorded(tmp_path).trials == []


def test_teacher_prompts_hold_no_validation_or_test_item_or_score(tmp_path: Path) -> None:
    for protocol in ("A", "B"):
        out = tmp_path / protocol
        result, teacher = compile_toy(out, {"0": ["crash", "v1"], "1": "trace>v2",
                                            "2": "v1", "3": "noop"}, protocol=protocol,
                                      rounds=3, restarts=1)
        splits = ToySetting().splits(0, {"probe": 6, "validation": 6, "test": 8})
        hidden = [text for split in ("validation", "test") for item in splits[split]
                  for text in (item.item_id, item.question)]
        probe_means = {r["probe"] for r in result["rounds"] if r["probe"] is not None}
        scores = {v for r in result["rounds"] if (v := r["validation"]) is not None}
        scores.add(result["bare"]["validation"])
        # 0 and 1 stand in any JSON (temperature 0.0); a mean the probe shares is no leak
        secret = scores - probe_means - {0.0, 1.0}
        assert secret  # the check has something to look for
        shown = [repr(v) for v in secret] + [f"{v:.3f}" for v in secret]
        prompts = [c["prompt"] for c in recorded(out).teacher_calls]
        assert len(prompts) >= 5 and sorted(prompts) == sorted(teacher.prompts)
        for prompt in prompts:
            assert not [t for t in hidden if t in prompt]
            assert not [s for s in shown if s in prompt]


def test_test_gold_in_the_selection_is_flagged_after_the_freeze(tmp_path: Path,
                                                               monkeypatch) -> None:
    # toy's only test gold outside the inventory are sums of two digits: count them
    monkeypatch.setattr("tether.systems.compile.answer_audit.MIN_NUMBER_DIGITS", 1)
    splits = ToySetting().splits(0, {"probe": 6, "validation": 6, "test": 8})
    known = {g for s in ("probe", "validation") for i in splits[s]
             for g in ToySetting().gold(i)}
    leaked = next(g for i in splits["test"] for g in ToySetting().gold(i)
                  if g not in known and g.isdigit())
    leak = copy.deepcopy(VARIANTS["toy"]["v2"])
    leak["prompts"]["fact"] += f" (e.g. {leaked})"
    result = _compiler(tmp_path, {"0": "leak"}, {"toy": {"leak": leak}}, rounds=0).run()
    assert result["rounds"][0]["decision"] == "accept"  # admissible: test gold is unread
    assert result["test_audit"]["flagged"] is True
    assert leaked in result["test_audit"]["findings"][0]
    clean, _ = compile_toy(tmp_path / "clean", {"0": "v2"}, rounds=0)
    assert clean["test_audit"] == {"flagged": False, "findings": []}


def test_several_builds_report_their_mean(tmp_path: Path) -> None:
    result, _ = compile_toy(tmp_path, {"0": "v1", "1": "v2"}, rounds=1, builds=2)
    assert len(result["builds"]) == 2 and len(result["selected_hash"]) == 2
    mean = sum(b["selected"]["test"] for b in result["builds"]) / 2
    assert result["selected"]["test"] == pytest.approx(mean)
    assert recorded(tmp_path, 1).selected is not None
    seeds = {c["seed"] for k in (0, 1) for c in recorded(tmp_path, k).teacher_calls
             if c["key"] == "r00-s0"}
    assert len(seeds) == 2  # independent builds: different teacher seeds


def test_an_existing_directory_needs_resume(tmp_path: Path) -> None:
    compile_toy(tmp_path, {"0": "v1"}, rounds=0)
    from tether.errors import ConfigError
    with pytest.raises(ConfigError, match="already holds"):
        compile_toy(tmp_path, {"0": "v1"}, rounds=0)


def test_cached_scores_count_only_for_the_same_items(tmp_path: Path) -> None:
    compiler = _compiler(tmp_path, {"0": "v1"})
    bare = bare_harness("toy")
    probe = compiler.splits["probe"]
    first = compiler.scorer.score(bare, "probe", probe[:3])
    assert set(first.outcomes) == {i.item_id for i in probe[:3]}
    again = compiler.scorer.score(bare, "probe", probe)
    assert set(again.outcomes) == {i.item_id for i in probe}


@pytest.mark.parametrize(("cap", "where"), [(100, "floor"), (130, "round"), (400, "test")])
def test_the_student_budget_holds_and_the_compile_says_why_it_stopped(
        tmp_path: Path, cap: int, where: str) -> None:
    # the scripted specs a user gets from the CLI: the bare floor's items run out of
    # budget at 100, a round's at 130, only cot_vote's 5 x 256-token calls at 400
    result = Compiler(toy_config(tmp_path / "o", student_token_budget=cap)).run()
    build = recorded(tmp_path / "o")
    calls = build.student_calls
    spent = sum(c["usage"]["output_tokens"] + c["usage"]["reasoning_tokens"] for c in calls)
    assert spent == result["student_tokens"] <= cap and result["student_token_budget"] == cap
    assert {c["role"] for c in calls} == {"student"}
    why = result["student_stopped"]
    assert why.startswith(f"student token budget of {cap} reached")
    assert teacher_failure(result) is None  # the teacher answered: no "teacher failed"
    selected = build.selected
    assert selected is not None and selected["student_stopped"] == (
        None if where == "test" else why)
    test = build.test
    assert test is not None and test["student_stopped"] is not None
    if where == "floor":  # no floor to gate against: bare kept, the teacher never asked
        assert result["rounds"] == []
        assert [c["key"] for c in build.teacher_calls] == ["oneshot"]
        assert selected["is_bare"] and selected["stopped"] == why
        assert selected["validation"] is None
    elif where == "round":  # the round whose split ran out is the budget's error
        assert [r["decision"] for r in result["rounds"]] == ["accept", "error"]
        assert result["rounds"][-1]["error"] == why == result["stopped"]
        assert result["rounds"][-1]["validation"] is None
        # a resumed compile starts from the recorded spend: the cap still holds
        again = Compiler.resume(tmp_path / "o").run()
        assert again["student_tokens"] <= cap and again["student_stopped"] == why
    else:  # the loop finished; the arm that did not fit has no mean, the others do
        assert result["stopped"] == "rounds"
        assert result["cot_vote"]["test"] is None and result["selected"]["test"] == 0.625
        assert test["arms"]["cot_vote"]["budget_stopped"] == 8
        assert "budget_stopped" not in test["arms"]["selected"]
