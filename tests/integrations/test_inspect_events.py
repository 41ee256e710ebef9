"""Inspect logs that read well: a reviewed trial's calls as model events in role spans,
its recorded times, its messages per role, role usage and per-iteration scores; a run
recorded before start times were kept gets no invented time."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log, resolve_sample_attachments  # noqa: E402

from tests.runs.agent_runs import commit  # noqa: E402
from tests.strategies.trial_helpers import (  # noqa: E402
    RoleScript,
    code_task,
    program,
    run as run_trial,  # noqa: E402
)
from tether.integrations.inspect_log import arm_log, export_inspect_logs  # noqa: E402
from tether.runs.store import RunStore  # noqa: E402


def _reviewed() -> tuple:
    """A proposer-reviewer trial: a draft scoring 0.5, one review, a revision that passes."""
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")],
                        reviewer=["Defect: the word beta is missing."])
    return run_trial("proposer_reviewer", {"max_iterations": 2, "feedback": "scripted_partial"},
                     script, task=code_task(), roles=("proposer", "reviewer"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory):
    record, arts = _reviewed()
    run_dir = commit(tmp_path_factory.mktemp("inspect") / "run", [(record, arts)])
    [path] = export_inspect_logs(RunStore.open(run_dir, readonly=True),
                                 tmp_path_factory.mktemp("logs"))
    log = read_eval_log(str(path))
    log.samples = [resolve_sample_attachments(s) for s in log.samples or []]
    return record, log


def _at(ts: float) -> datetime:
    return datetime.fromtimestamp(ts).astimezone()


def test_every_call_is_a_model_event_at_its_recorded_time(exported):
    record, log = exported
    [sample] = log.samples
    assert [c.role for c in record.calls] == ["proposer", "reviewer", "proposer"]
    models = [e for e in sample.events if e.event == "model"]
    assert len(models) == len(record.calls)
    for event, call in zip(models, record.calls, strict=True):
        assert event.role == call.role and event.model == call.model_id
        assert event.timestamp == _at(call.started_at)
        assert (event.completed - event.timestamp).total_seconds() == \
            pytest.approx(call.latency_s, abs=1e-3)
        assert event.output.completion == call.output
        assert event.output.usage.output_tokens == call.usage.output_tokens
        assert [m.text for m in event.input] == [m["content"] for m in call.messages]
        assert event.working_start == pytest.approx(call.started_at - record.started_at)
    # the roles' turns are spans named by the role, in order
    spans = [e.name for e in sample.events if e.event == "span_begin"]
    assert spans == ["proposer", "reviewer", "proposer"]
    times = [e.timestamp for e in sample.events]
    assert times == sorted(times)


def test_the_sample_has_the_trials_real_duration(exported):
    record, log = exported
    [sample] = log.samples
    start, end = datetime.fromisoformat(sample.started_at), \
        datetime.fromisoformat(sample.completed_at)
    assert start == _at(record.started_at)
    assert (end - start).total_seconds() == pytest.approx(record.wall_s, abs=1e-3)
    assert sample.total_time == record.wall_s > 0
    assert log.stats.started_at == sample.started_at
    assert log.stats.completed_at == sample.completed_at


def test_messages_are_one_roles_and_usage_is_per_role(exported):
    record, log = exported
    [sample] = log.samples
    assert sample.metadata["messages_of_role"] == "proposer"
    assert sample.metadata["calls_per_role"] == {"proposer": 2, "reviewer": 1}
    replies = [m for m in sample.messages if m.role == "assistant"]
    assert [m.text for m in replies] == [c.output for c in record.calls if c.role == "proposer"]
    # the reviewer's prompt is not in the proposer's conversation
    reviewer_sent = {m["content"] for c in record.calls if c.role == "reviewer"
                     for m in c.messages}
    assert not reviewer_sent & {m.text for m in sample.messages}
    for role in ("proposer", "reviewer"):
        mine = [c for c in record.calls if c.role == role]
        assert sample.role_usage[role].output_tokens == sum(c.usage.output_tokens for c in mine)
        assert sample.role_usage[role].input_tokens == sum(c.usage.input_tokens for c in mine)
    assert log.stats.role_usage["reviewer"].output_tokens == \
        sample.role_usage["reviewer"].output_tokens


def test_each_iteration_score_then_the_final_score(exported):
    record, log = exported
    [sample] = log.samples
    assert record.extra["iteration_scores"] == [0.5, 1.0]
    scores = [e for e in sample.events if e.event == "score"]
    assert [(e.score.value, e.intermediate) for e in scores] == \
        [(0.5, True), (1.0, True), (1.0, False)]
    assert [e.score.metadata["iteration"] for e in scores[:2]] == [0, 1]
    assert sample.scores["tether"].metadata["iteration_scores"] == [0.5, 1.0]
    # each iteration's score when the loop scored it: the draft's after the draft's call
    # and before the review; the final score as the trial ends
    kinds = [e.event for e in sample.events if e.event in ("model", "score")]
    assert kinds == ["model", "score", "model", "model", "score", "score"]
    scored = [s["scored_at"] for s in record.extra["iteration_history"]]
    assert [e.timestamp for e in scores[:2]] == [_at(t) for t in scored]
    assert scores[2].timestamp == _at(record.started_at + record.wall_s)


def test_a_run_recorded_before_start_times_gets_no_invented_time(tmp_path: Path):
    record, arts = _reviewed()
    history = [{k: v for k, v in step.items() if k != "scored_at"}
               for step in record.extra["iteration_history"]]
    old = record.model_copy(update={
        "started_at": None,
        "calls": [dataclasses.replace(c, started_at=None) for c in record.calls],
        "extra": {**record.extra, "iteration_history": history}})
    run_dir = commit(tmp_path / "run", [(old, arts)])
    with RunStore.open(run_dir, readonly=True) as store:
        log = arm_log(store, "proposer_reviewer", store.trials())
    [sample] = log.samples
    assert sample.events == []
    assert sample.started_at is None and sample.completed_at is None
    assert sample.total_time == record.wall_s  # the recorded wall time still stands
    assert log.stats.started_at == "" and log.stats.completed_at == ""
    # messages, scores and usage do not depend on times
    assert sample.scores["tether"].value == 1.0
    assert sample.role_usage["reviewer"].output_tokens > 0
