"""The GEPA comparator: GEPA's search runs on probe and validation under the build's
teacher budget, with the compile's teacher as its reflection model; its best harness is
scored on the test items beside the selection, in `--json` and in the report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import (
    TEACHER_SPEC,
    forget_events,
    recorded,
    toy_config,
)
from tether.cli.hub import main
from tether.errors import TetherError
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.build_records import BuildRecords
from tether.systems.compile.compiler.gepa_arm import (
    GepaMatch,
    HarnessAdapter,
    matched_budget,
    run_gepa,
)
from tether.systems.compile.compiler.scoring import ScoringEnv
from tether.systems.compile.compiler.teacher import TeacherClient
from tether.systems.compile.report import hc_numbers, write_hc_report
from tether.systems.compile.settings.toy import ToySetting
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_teacher import ScriptedTeacher

_GOLD = {item.question: str(item.data["answer"]) for item in ToySetting()._items()}
CONTRACT = "Answer with one word."


def contract_student(messages: list[dict[str, Any]], info: Any) -> str:
    """TEST DOUBLE: a student that answers a toy question right only under the answer
    contract the scripted teacher's GEPA reflection adds, and rambles otherwise."""
    prompt = str(messages[-1]["content"])
    question = next((q for q in _GOLD if q in prompt), None)
    if question is None:
        return "I am not sure."
    return _GOLD[question] if CONTRACT in prompt else f"I think it is {_GOLD[question]}."


STUDENT_SPEC = "scripted:tests.systems.compile.compiler.test_gepa_arm:contract_student"


def _compile(out: Path, before: Any = None, **fields: Any) -> tuple[Compiler, dict[str, Any]]:
    config = toy_config(out, student=STUDENT_SPEC, rounds=1, comparators="gepa", **fields)
    compiler = Compiler(config, teacher=ScriptedModel(ScriptedTeacher({"0": "v1"}).script),
                        student=ScriptedModel(contract_student), before_item=before)
    return compiler, compiler.run()


def _reopened(out: Path, student: ScriptedModel | None = None) -> Compiler:
    """The finished compile opened again (to score more with its scorer)."""
    return Compiler.resume(out, teacher=ScriptedModel(["unused"]),
                           student=student or ScriptedModel(contract_student))


def _env(compiler: Compiler) -> ScoringEnv:
    return ScoringEnv(compiler.setting, compiler.splits, compiler.scorer, 0,
                      compiler.config.sizes)


def test_gepa_searches_probe_and_validation_and_is_scored_on_test(tmp_path: Path) -> None:
    seen: list[tuple[str, str, bool, bool]] = []
    compilers: list[Compiler] = []

    def before(split: str, key: str, item: Any) -> None:
        build = compilers[0].store.build(0)
        seen.append((split, item.item_id, build.selected() is not None,
                     build.gepa() is not None))

    config = toy_config(tmp_path, student=STUDENT_SPEC, rounds=1, comparators="gepa")
    compilers.append(Compiler(config, student=ScriptedModel(contract_student),
                              teacher=ScriptedModel(ScriptedTeacher({"0": "v1"}).script),
                              before_item=before))
    compiler, result = compilers[0], compilers[0].run()
    store = recorded(tmp_path)
    row = recorded_gepa(tmp_path)
    assert row is not None and row["admissible"] and not row["is_seed"]
    assert CONTRACT in row["document"]["prompts"]["answer"]
    assert "{question}" in row["document"]["prompts"]["answer"]
    assert row["validation"] == 1.0 and row["seed_validation"] == 0.0
    # the search (after the build's freeze, before its record) scored probe and validation
    # items only; the test items came after it
    search = [split for split, _, frozen, done in seen if frozen and not done]
    assert set(search) == {"probe", "validation"}
    test_ids = {i.item_id for i in compiler.splits["test"]}
    assert all(done for split, item, _, done in seen if item in test_ids)
    # its best harness on the same 8 test items as every arm
    test = store.test
    assert test is not None and test["arms"]["gepa"]["hash"] == row["hash"]
    assert test["arms"]["gepa"]["n"] == 8
    assert result["gepa"]["test"] == pytest.approx(test["arms"]["gepa"]["mean"]) == 1.0
    assert result["bare"]["test"] == 0.0
    # reflection went through the teacher, recorded apart from the build's own calls
    calls = store.gepa_teacher_calls
    assert calls and all(c["key"].startswith("gepa-") for c in calls)
    assert not any(c["key"].startswith("gepa-") for c in store.teacher_calls)
    assert result["gepa"]["teacher_tokens"] == sum(c["input_tokens"] + c["output_tokens"]
                                                   for c in calls)
    assert result["teacher_tokens"] == sum(c["input_tokens"] + c["output_tokens"]
                                           for c in store.teacher_calls)
    # its candidates' scores are trials of their own search (gepa0), apart from the build's
    search_trials = [t for t in store.trials if t.extra["scope"] == "gepa0"]
    assert search_trials and all(t.spec.strategy_params["search"] == "gepa0"
                                 and t.spec.label.startswith("gepa0 ") for t in search_trials)


def test_reflection_shows_probe_items_only(tmp_path: Path) -> None:
    _compile(tmp_path)
    compiler = _reopened(tmp_path)
    prompts = [c["prompt"] for c in recorded(tmp_path).gepa_teacher_calls]
    held_out = [*compiler.splits["validation"], *compiler.splits["test"]]
    probe = compiler.splits["probe"]
    assert any(i.question in p for i in probe for p in prompts)
    for item in held_out:  # a question is what ties a feedback line to its item
        assert not any(item.question in p for p in prompts), item.item_id
    adapter = HarnessAdapter(_env(compiler), compiler.store.build(0).gepa_store())
    batch = adapter.evaluate(compiler.splits["validation"][:2], {"answer": "{question}"},
                             capture_traces=True)
    with pytest.raises(TetherError, match="reflect on a validation item"):
        adapter.make_reflective_dataset({"answer": "{question}"}, batch, ["answer"])
    with pytest.raises(TetherError, match="probe or validation items only"):
        adapter.evaluate(compiler.splits["test"][:1], {"answer": "{question}"})


def test_an_inadmissible_candidate_scores_zero_with_its_violations(tmp_path: Path) -> None:
    _compile(tmp_path)
    compiler = _reopened(tmp_path)
    adapter = HarnessAdapter(_env(compiler), compiler.store.build(0).gepa_store())
    leaky = {"answer": "{question} (Paris, perhaps?)"}  # an inventory answer in the prompt
    batch = adapter.evaluate(compiler.splits["probe"][:3], leaky, capture_traces=True)
    assert batch.scores == [0.0, 0.0, 0.0]
    records = adapter.make_reflective_dataset(leaky, batch, ["answer"])["answer"]
    assert all("inadmissible" in r["Feedback"] and "hardcoded" in r["Feedback"]
               for r in records)


def test_a_budget_refusal_ends_the_search_with_its_best_so_far(tmp_path: Path) -> None:
    _compile(tmp_path)
    compiler = _reopened(tmp_path)
    arm_store = BuildRecords(compiler.store, "7/gepa")  # a search of its own
    cap = 2500
    teacher = TeacherClient(ScriptedModel(ScriptedTeacher({"gepa": "unchanged"}).script),
                            arm_store, seed=0, temperature=0.7, max_tokens=2048,
                            token_budget=cap)
    row = run_gepa(_env(compiler), arm_store, teacher,
                   GepaMatch(teacher_tokens=cap, metric_calls=10_000), seed=0)
    calls = arm_store.teacher_calls()
    spent = sum(c["input_tokens"] + c["output_tokens"] for c in calls)
    assert row["stopped"].startswith(f"teacher token budget of {cap} reached")
    assert spent == row["teacher_tokens"] <= cap
    assert calls[-1].get("refused") and sum(1 for c in calls if c.get("refused")) == 1
    assert len(calls) >= 2  # some reflections were made before the refusal
    assert row["metric_calls"] < 10_000  # the budget, not the metric calls, stopped it
    assert row["is_seed"] and row["admissible"]  # nothing beat the seed: it is the result


def test_the_matched_budget_is_the_builds_own_spend(tmp_path: Path) -> None:
    _compile(tmp_path)
    compiler = _reopened(tmp_path)
    store = compiler.store.build(0)
    loop_calls = [c for c in store.teacher_calls() if c["key"] != "oneshot"]
    spent = sum(c["input_tokens"] + c["output_tokens"] for c in loop_calls)
    sizes = {"probe": 6, "validation": 6, "test": 8}
    match = matched_budget(None, store, sizes)
    scored = sum(1 for r in store.rounds() if r["validation"] is not None)
    own = 12 * (1 + scored)
    assert match == GepaMatch(teacher_tokens=spent, metric_calls=own, build_metric_calls=own)
    assert matched_budget(5000, store, sizes).teacher_tokens == 5000
    assert (store.gepa() or {})["budget"] == {"teacher_tokens": spent, "metric_calls": own,
                                              "metric_calls_source": "matched",
                                              "build_metric_calls": own}


def test_the_metric_call_budget_can_be_set_and_is_recorded_beside_the_builds_own(
        tmp_path: Path) -> None:
    out = tmp_path / "build"
    cli = CliRunner().invoke(main, ["compile", "--setting", "toy", "--teacher", TEACHER_SPEC,
                                    "--student", STUDENT_SPEC, "--probe", "6",
                                    "--validation", "6", "--test", "8", "--rounds", "1",
                                    "--comparators", "gepa", "--out", str(out), "--json"])
    assert cli.exit_code == 0, cli.output
    config = tmp_path / "c.toml"
    config.write_text(f'setting = "toy"\nteacher = "{TEACHER_SPEC}"\n'
                      f'student = "{STUDENT_SPEC}"\nprobe = 6\nvalidation = 6\ntest = 8\n'
                      f'rounds = 1\ncomparators = ["gepa"]\ngepa_metric_calls = 7\n'
                      f'out = "{tmp_path / "set"}"\n')
    cli = CliRunner().invoke(main, ["compile", str(config), "--json"])
    assert cli.exit_code == 0, cli.output
    gepa = json.loads(cli.stdout)["gepa"]
    matched = json.loads(CliRunner().invoke(main, ["compile", "--resume", str(out),
                                                   "--json"]).stdout)["gepa"]
    assert matched["metric_call_budget_source"] == "matched"
    assert matched["metric_call_budget"] == matched["build_metric_calls"] > 7
    assert gepa["metric_call_budget"] == 7 and gepa["metric_call_budget_source"] == "set"
    assert gepa["build_metric_calls"] == matched["build_metric_calls"]
    assert 7 <= gepa["metric_calls"] < matched["metric_calls"]  # it stops past 7, not at 30
    html = write_hc_report(tmp_path / "set")[0].read_text()
    assert f"of 7 metric calls (set by gepa_metric_calls; the build's own loop made " \
           f"{gepa['build_metric_calls']})" in html


def test_json_and_the_report_carry_the_gepa_arm(tmp_path: Path) -> None:
    out = tmp_path / "build"
    cli = CliRunner().invoke(main, ["compile", "--setting", "toy", "--teacher", TEACHER_SPEC,
                                    "--student", STUDENT_SPEC, "--probe", "6",
                                    "--validation", "6", "--test", "8", "--rounds", "1",
                                    "--comparators", "gepa", "--out", str(out), "--json"])
    assert cli.exit_code == 0, cli.output
    gepa = json.loads(cli.stdout)["gepa"]
    assert gepa["test"] == 1.0 and gepa["validation"] == 1.0 and gepa["admissible"]
    assert 0 < gepa["teacher_tokens"] <= gepa["teacher_budget"]
    rows = {a["arm"]: a for a in hc_numbers(out)["builds"][0]["arms"]}
    assert set(rows) == {"bare", "selected", "gepa", "constant"}  # toy is pass/fail
    assert rows["gepa"]["vs_bare"]["n"] == 8 and rows["gepa"]["vs_bare"]["delta"] == 100.0
    numbers = hc_numbers(out)["builds"][0]["gepa"]
    assert numbers["selected_vs_gepa"]["n"] == 8
    assert numbers["selected_vs_gepa"]["delta"] == pytest.approx(
        100 * (rows["selected"]["mean"] - 1.0))
    html = write_hc_report(out)[0].read_text()
    assert "GEPA (prompt variant): the matched search" in html and "selected − GEPA" in html
    summary = CliRunner().invoke(main, ["compile", "--resume", str(out)])
    assert summary.exit_code == 0 and "build 0 gepa (prompt variant):" in summary.output


def test_without_the_gepa_package_the_comparator_is_one_line_naming_the_extra(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gepa", None)  # `import gepa` raises ImportError
    out = tmp_path / "build"
    result = CliRunner().invoke(main, ["compile", "--setting", "toy", "--teacher",
                                       TEACHER_SPEC, "--student", STUDENT_SPEC,
                                       "--comparators", "h0,gepa", "--out", str(out)])
    assert result.exit_code == 2
    assert "tether[gepa]" in result.output and "Traceback" not in result.output
    assert not out.exists()  # refused before anything was written


def test_a_search_cut_short_resumes_from_its_recorded_calls_and_scores(tmp_path: Path) -> None:
    _, first = _compile(tmp_path)
    row = recorded_gepa(tmp_path)
    forget_events(tmp_path, {"gepa", "test", "result"})  # as if killed before they were
    teacher = ScriptedModel(ScriptedTeacher({}).script)
    student = ScriptedModel(contract_student)
    again = Compiler.resume(tmp_path, teacher=teacher, student=student).run()
    assert teacher.calls == 0  # every reflection replayed from its recorded call
    assert student.calls == 0  # every item's score read back from its trial
    replayed = recorded_gepa(tmp_path)
    assert {k: replayed[k] for k in ("hash", "validation", "teacher_tokens", "metric_calls")} \
        == {k: row[k] for k in ("hash", "validation", "teacher_tokens", "metric_calls")}
    assert again["gepa"]["test"] == first["gepa"]["test"]


def test_a_repeated_item_in_a_minibatch_is_scored_once(tmp_path: Path) -> None:
    _compile(tmp_path)
    student = ScriptedModel(contract_student)
    again = _reopened(tmp_path, student)
    adapter = HarnessAdapter(_env(again), BuildRecords(again.store, "5/gepa"))
    first, second = again.splits["probe"][:2]
    batch = adapter.evaluate([first, second, first], {"answer": f"{{question}}\n{CONTRACT}"})
    assert batch.scores == [1.0, 1.0, 1.0] and student.calls == 2


def recorded_gepa(out: Path) -> dict[str, Any]:
    from tether.systems.compile.compiler.run import CompileRun

    with CompileRun.read(out) as run:
        row = run.build(0).gepa()
    assert row is not None
    return row
