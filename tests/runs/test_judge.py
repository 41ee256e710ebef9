"""`tether judge`: rubric flags from a forced tool call and from JSON, unusable answers as
judge errors, rubric-file validation, idempotent reruns, the token cap, and what the
judge is (never) shown. Judges are scripted test doubles (tests/runs/judge_doubles.py)."""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.runs import judge_doubles as jd
from tests.runs.agent_runs import SECRET, agent_run
from tether.cli.hub import main
from tether.errors import ConfigError
from tether.runs.judge import (
    judge_ledger,
    judge_run as judge_run_paper_default,
    load_rubrics,
    read_judgements,
    reward_hacking_job,
    rubric_jobs,
)
from tether.runs.judge.rubrics import parse_rubric_file
from tether.runs.store import RunStore
from tether.testing.scripted_models import ScriptedModel

RUBRICS = load_rubrics("terminal-behaviour")
#: these tests count one judgement per attempt unless they ask for repeats themselves
judge_run = partial(judge_run_paper_default, repeats=1)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agent_run(tmp_path_factory.mktemp("judge") / "run")


@pytest.fixture
def run_dir(pristine: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(pristine, tmp_path / "run"))


def test_bundled_rubrics_are_the_papers_28_in_two_sets():
    assert [s.id for s in RUBRICS.sets] == ["prior", "new"]
    assert [len(s.rubrics) for s in RUBRICS.sets] == [13, 15]
    names = {r.name for r in RUBRICS.rubrics}
    assert {"Looping", "Tests cannot fail", "Lost completed work", "Scope creep"} <= names
    assert all(len(r.definition) > len(r.short) for r in RUBRICS.rubrics)
    assert RUBRICS.version == "2"


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.pop("sets"), "'sets' must be a non-empty list"),
    (lambda d: d["sets"][0]["rubrics"][0].pop("definition"), "'definition' must be"),
    (lambda d: d["sets"][1]["rubrics"][0].update(id="looping"), "appears twice"),
    (lambda d: d["sets"][0]["rubrics"][0].update(id="Bad Id"), "lowercase snake_case"),
    (lambda d: d["sets"][0]["rubrics"][0].update(weight=2), "unknown key 'weight'"),
    (lambda d: d.update(version=""), "'version' must be"),
])
def test_a_bad_rubric_file_is_refused_with_where_and_what(mutate, message):
    data = json.loads(json.dumps(_file_data()))
    mutate(data)
    with pytest.raises(ConfigError, match=message):
        parse_rubric_file(data, "mine.json")


def _file_data() -> dict:
    return {"name": "mine", "version": "2", "sets": [
        {"id": s.id, "title": s.title,
         "rubrics": [{"id": r.id, "name": r.name, "short": r.short,
                      "definition": r.definition, "example": r.example}
                     for r in s.rubrics]} for s in RUBRICS.sets]}


def test_a_user_rubric_file_loads_and_a_missing_one_is_a_config_error(tmp_path: Path):
    path = tmp_path / "mine.json"
    data = _file_data()
    data["sets"] = data["sets"][:1]
    path.write_text(json.dumps(data))
    mine = load_rubrics(str(path))
    assert (mine.name, mine.version, [s.key for s in mine.sets]) == ("mine", "2",
                                                                     ["mine/prior"])
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_rubrics(str(tmp_path / "broken.json"))
    with pytest.raises(ConfigError, match="neither a bundled rubric set nor a file"):
        load_rubrics(str(tmp_path / "absent.json"))


def _by_trial(run_dir: Path) -> dict:
    with RunStore.open(run_dir, readonly=True) as store:
        return {r.trial_id: r for r in store.trials()}


@pytest.mark.parametrize("judge", ["tool", "json"])
def test_flags_parsed_and_stored_with_the_recorded_calls(run_dir: Path, judge: str):
    model = (ScriptedModel(jd.tool_judge, model_id="judge-double", supports_tools=True)
             if judge == "tool" else ScriptedModel(jd.json_judge, model_id="judge-double"))
    (prior, new) = judge_run(run_dir, rubric_jobs(RUBRICS), model)
    assert (prior.eligible, prior.ok, prior.errors) == (8, 8, 0)
    assert (new.eligible, new.ok, new.errors) == (8, 8, 0)
    assert model.calls == 16  # two judge calls per attempt, one per rubric set
    rows = read_judgements(run_dir, "terminal-behaviour/")
    assert len(rows) == 16 and {r.version for r in rows} == {"2"}
    records = _by_trial(run_dir)
    for row in rows:
        record = records[row.trial_id]
        bad = record.spec.strategy == "agent" and record.spec.seed == 1
        flagged = {k for k, v in row.result["flags"].items() if v}
        want = {"improper_tool_use"} if row.judged.endswith("prior") else \
            {"overclaimed_results"}
        assert flagged == (want if bad else set())
        assert set(row.result["evidence"]) == flagged
        (call,) = row.calls
        assert call["role"] == "judge" and call["model_id"] == "judge-double"
        if judge == "tool":
            assert call["tool_calls"][0]["function"]["name"] == "report_behaviours"


def test_the_judge_never_sees_the_verifier(run_dir: Path):
    seen: list[str] = []

    def spy(messages, info):
        seen.append(json.dumps(messages))
        return jd.json_judge(messages, info)

    judge_run(run_dir, [*rubric_jobs(RUBRICS), reward_hacking_job()], ScriptedModel(spy))
    assert seen
    for text in seen:
        assert SECRET not in text
        assert "wrong_submission" not in text and '"end_state"' not in text
    # it does see the task, the commands and their outputs, and the final message
    assert "Create done.txt for t0" in seen[0] and "$ touch done.txt" in "".join(seen)
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in seen[0]


def test_an_unusable_answer_is_a_judge_error_never_no_behaviour(run_dir: Path):
    model = ScriptedModel(jd.prose_judge)
    (prior,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model, retries=2)
    assert (prior.ok, prior.errors) == (0, 8)
    assert model.calls == 8 * 3  # the first ask and two re-asks per attempt
    rows = read_judgements(run_dir)
    assert all(r.status == "judge_error" and r.result is None for r in rows)
    assert "unusable answer after 3 tries: no JSON object" in rows[0].error
    assert len(rows[0].calls) == 3


def test_a_flag_without_evidence_is_sent_back(run_dir: Path):
    model = ScriptedModel(jd.no_evidence_then_json)
    (prior,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model, retries=1)
    assert (prior.ok, prior.errors) == (8, 0) and model.calls == 16
    rows = read_judgements(run_dir)
    assert all(len(r.calls) == 2 for r in rows)
    assert sum(any(r.result["flags"].values()) for r in rows) == 2


def test_a_tool_call_with_broken_arguments_is_retried_through_a_tool_message(run_dir: Path):
    from tether.models.base import Completion, ToolCall

    def broken_then_good(messages, info):
        if messages[-1]["role"] == "tool":
            return jd.tool_judge(messages[:2], info)
        return Completion(text="", tool_calls=(ToolCall("c0", "report_behaviours", "{oops"),))

    model = ScriptedModel(broken_then_good, supports_tools=True)
    (prior,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model)
    assert (prior.ok, prior.errors) == (8, 0) and model.calls == 16


def test_a_model_error_is_a_judge_error(run_dir: Path):
    model = ScriptedModel([])  # exhausted at once: raises ModelError
    (prior,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model)
    assert prior.errors == 8
    assert read_judgements(run_dir)[0].error.startswith("model error: ModelError")


def test_reruns_judge_nothing_twice_and_retry_judge_errors(run_dir: Path):
    judge_run(run_dir, rubric_jobs(RUBRICS), ScriptedModel(jd.json_judge))

    def must_not_be_called(messages, info):
        raise AssertionError("an attempt was judged twice")

    again = judge_run(run_dir, rubric_jobs(RUBRICS), ScriptedModel(must_not_be_called))
    assert [(s.already, s.ok, s.errors) for s in again] == [(8, 0, 0), (8, 0, 0)]
    # a new rubric version is judged anew; judge errors are asked again on a rerun
    data = _file_data()
    data["name"] = "terminal-behaviour"
    v3 = parse_rubric_file({**data, "version": "3"}, "v3")
    (first, _) = judge_run(run_dir, rubric_jobs(v3), ScriptedModel(jd.prose_judge),
                           retries=0)
    assert first.errors == 8
    (redo, _) = judge_run(run_dir, rubric_jobs(v3), ScriptedModel(jd.json_judge))
    assert (redo.already, redo.ok) == (0, 8)
    assert len(read_judgements(run_dir)) == 32


def test_the_token_cap_is_a_ledger_that_is_never_exceeded(run_dir: Path):
    model = ScriptedModel(jd.tool_judge, supports_tools=True)  # 20 output tokens a call
    ledger = judge_ledger(50)
    (prior,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model, cap=ledger)
    # two answers (40 tokens), a third cut off at the 10 left; its re-ask finds the cap
    # spent: a judge error holding the call made; the five attempts the ledger refused
    # are judge errors too, with no call (a rerun with a larger cap asks them)
    assert ledger.charged() == 50 and ledger.charged() <= ledger.spec.total
    assert (prior.ok, prior.errors, prior.not_asked) == (2, 6, 5)
    rows = read_judgements(run_dir)
    spent = sum(c["usage"]["output_tokens"] for r in rows for c in r.calls)
    assert spent == 50  # what the records say was spent
    errors = [r for r in rows if r.status == "judge_error"]
    assert len(errors) == 6 and all("token cap" in r.error for r in errors)
    assert sorted(len(r.calls) for r in errors) == [0, 0, 0, 0, 0, 1]
    (again,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model)
    assert (again.already, again.ok) == (2, 6)


@pytest.mark.parametrize("cap", [1, 7, 19, 33])
def test_a_capped_cli_run_records_spend_within_the_cap(run_dir: Path, cap: int):
    result = CliRunner().invoke(main, ["judge", str(run_dir), "--rubrics",
                                       "terminal-behaviour", "--max-output-tokens", str(cap),
                                       "--model", "scripted:tests.runs.judge_doubles:json_judge"])
    assert result.exit_code == 0, result.output
    rows = read_judgements(run_dir)
    assert len(rows) == 2 * 16  # every question (two repeats each) has a row: answered or refused
    assert sum(c["usage"]["output_tokens"] for r in rows for c in r.calls) <= cap


def test_repeats_ask_each_question_k_times_and_reruns_fill_in(run_dir: Path):
    temperatures: set[float] = set()

    def spy(messages, info):
        temperatures.add(info.params.temperature)
        return jd.json_judge(messages, info)

    model = ScriptedModel(spy)
    (prior,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], model, repeats=2,
                         temperature=0.7)
    assert (prior.eligible, prior.ok) == (16, 16) and model.calls == 16
    rows = read_judgements(run_dir)
    assert sorted({r.repeat for r in rows}) == [0, 1] and temperatures == {0.7}
    (third,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], ScriptedModel(jd.json_judge),
                         repeats=3)
    assert (third.already, third.ok) == (16, 8)


def test_a_table_from_before_repeats_reads_and_migrates(run_dir: Path):
    import sqlite3

    judge_run(run_dir, rubric_jobs(RUBRICS)[:1], ScriptedModel(jd.json_judge))
    db = sqlite3.connect(run_dir / "run.sqlite")
    db.executescript("""
        CREATE TABLE old AS SELECT trial_id, judged, version, status, result, error,
          judge_model, calls, input_tokens, output_tokens FROM judgements;
        DROP TABLE judgements; ALTER TABLE old RENAME TO judgements;""")
    db.close()
    before = read_judgements(run_dir)
    assert len(before) == 8 and {r.repeat for r in before} == {0}
    (again,) = judge_run(run_dir, rubric_jobs(RUBRICS)[:1], ScriptedModel(jd.json_judge),
                         repeats=2)
    assert (again.already, again.ok) == (8, 8) and len(read_judgements(run_dir)) == 16


def test_reward_hacking_labels_passing_attempts_only(run_dir: Path):
    (rh,) = judge_run(run_dir, [reward_hacking_job()], ScriptedModel(jd.json_judge))
    # passing: agent seed 0 of both tasks, all four turn_bon attempts
    assert (rh.eligible, rh.ok, rh.excluded) == (6, 6, {"not passed": 2})
    rows = read_judgements(run_dir, "reward-hacking")
    assert {r.result["label"] for r in rows} == {"legitimate"}
    # the agent strategies record what each attempt changed under /app: the judge sees it
    assert all("<changed_files under /app>" in r.calls[0]["messages"][1]["content"]
               and "Not recorded for this run" not in r.calls[0]["messages"][1]["content"]
               for r in rows)


def test_cli_judges_and_reports_counts(run_dir: Path):
    spec = "scripted:tests.runs.judge_doubles:json_judge"
    runner = CliRunner()
    result = runner.invoke(main, ["judge", str(run_dir), "--rubrics", "terminal-behaviour",
                                  "--check", "reward-hacking", "--model", spec])
    assert result.exit_code == 0, result.output
    assert "terminal-behaviour/prior" in result.output and "reward-hacking" in result.output
    # the paper's two judgements of every attempt, at a temperature above 0
    rows = read_judgements(run_dir)
    assert len(rows) == 2 * (8 + 8 + 6) and {r.repeat for r in rows} == {0, 1}
    greedy = runner.invoke(main, ["judge", str(run_dir), "--rubrics", "terminal-behaviour",
                                  "--temperature", "0", "--model", spec])
    assert greedy.exit_code == 2 and "one greedy judgement asked again" in greedy.output
    none = runner.invoke(main, ["judge", str(run_dir), "--model", spec])
    assert none.exit_code == 2 and "nothing to judge" in none.output
    bad = runner.invoke(main, ["judge", str(run_dir), "--rubrics", "nope", "--model", spec])
    assert bad.exit_code == 2 and "neither a bundled rubric set" in bad.output


def test_a_run_never_judged_reads_as_empty_and_is_left_unchanged(pristine: Path):
    before = (pristine / "run.sqlite").read_bytes()
    assert read_judgements(pristine) == []
    assert (pristine / "run.sqlite").read_bytes() == before
