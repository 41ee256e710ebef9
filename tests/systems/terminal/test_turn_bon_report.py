"""The report of a scripted turn-BoN run with all three arms (baseline, turn-level and
trajectory-level best-of-N), judged twice per attempt: the trajectory arm's commands,
the paper's end states and labels, agreement and adjusted p-values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runs import judge_doubles as jd
from tests.runs.agent_runs import agent_run
from tether.core.end_state import AGENT_END_STATES
from tether.report import build_report
from tether.runs.judge import judge_run, load_rubrics, read_judgements, rubric_jobs
from tether.runs.judge.transcript import attempt_view
from tether.runs.store import RunStore
from tether.testing.scripted_models import ScriptedModel


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = agent_run(tmp_path_factory.mktemp("tbon") / "run", with_trajectory=True)
    judge_run(run, rubric_jobs(load_rubrics("terminal-behaviour")),
              ScriptedModel(jd.json_judge, model_id="judge-double"), repeats=2)
    return run


def _row(rows, arm):
    return next(r for r in rows if r["arm"] == arm)


def test_the_trajectory_arm_has_its_delivered_attempts_turns(run: Path):
    with RunStore.open(run, readonly=True) as store:
        numbers = build_report(store).numbers
        records = [r for r in store.trials() if r.spec.strategy == "trajectory_bon"]
    traj = _row(numbers["agents"]["rows"], "trajectory_bon")
    assert traj["actions"]["turns"] == 4 * 3 and traj["actions"]["ran"] == 4 * 3
    assert traj["end_states"]["pass"] == 4 and list(traj["end_states"]) == list(
        AGENT_END_STATES)
    record = records[0]
    assert record.extra["selected_attempt"] == 1
    assert [c["command"] for c in record.extra["turn_records"]] == [
        "ls", "touch done.txt", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    first, delivered = record.extra["attempts"]
    assert len(first["turn_records"]) == 3 and "turn_records" not in delivered
    assert delivered["delivered"] and delivered["calls"] == record.extra["calls"]
    view = attempt_view(record)
    assert "$ touch done.txt" in view.transcript and "touch x.txt" not in view.transcript
    assert "(none)" not in view.transcript and "the agent submitted" in view.transcript


def test_the_papers_labels_for_the_executed_turns(run: Path):
    with RunStore.open(run, readonly=True) as store:
        numbers = build_report(store).numbers
    bon = _row(numbers["agents"]["rows"], "turn_bon")
    labels = {p["label"] for p in bon["preferences"]}
    # turn 1: ls (reads) vs cat done.txt (reads); turn 2: touch (file ops); turn 3: submit
    assert labels == {"reads_only", "file_ops"}


def test_judged_twice_gives_agreement_and_adjusted_p_values(run: Path):
    assert len(read_judgements(run)) == 12 * 2 * 2
    with RunStore.open(run, readonly=True) as store:
        numbers = build_report(store).numbers
    (b,) = numbers["judged"]["behaviours"]
    assert b["agreement"]["k"] == 2 and b["agreement"]["observed"] == 1.0
    assert b["agreement"]["alpha"] == pytest.approx(1.0)
    assert b["p_adjustment"] == "benjamini-hochberg"
    tests = [ci for row in b["arms"] if row["vs_baseline"]
             for ci in row["vs_baseline"]["rates"].values()]
    assert len(tests) == 4  # two flagged rubrics x two arms against the baseline
    for ci in tests:
        assert 0 < ci["p_value"] <= ci["p_adjusted"] <= 1
    traj = _row(b["arms"], "trajectory_bon")
    assert traj["mean_flags"] == 0.0 and traj["n_judged"] == 4


def test_the_html_shows_adjusted_p_values_and_agreement(run: Path):
    from tether.report import write_report

    with RunStore.open(run, readonly=True) as store:
        out = write_report(build_report(store), store, run.parent / "report.html")
    html = out.read_text()
    assert ", adj. " in html and "Krippendorff's alpha" in html


def test_dollar_costs_of_every_arm_and_of_judging_it(run: Path, tmp_path: Path):
    with RunStore.open(run, readonly=True) as store:
        model_ids = {c.model_id for r in store.trials() for c in r.calls} | {"judge-double"}
        table = tmp_path / "prices.toml"
        table.write_text("".join(f'["{m}"]\nprice_in = 1.0\nprice_out = 4.0\n'
                                 for m in sorted(model_ids)))
        numbers = build_report(store, prices=str(table)).numbers
        unpriced = build_report(store).numbers
    spend = numbers["spend"]
    assert {a["arm"] for a in spend["arms"]} == {"agent", "turn_bon", "trajectory_bon"}
    assert all(a["cost_usd"] > 0 for a in spend["arms"])
    judgements = read_judgements(run)
    assert sum(a["judge_cost_usd"] for a in spend["arms"]) == pytest.approx(
        sum(j.input_tokens * 1.0 + j.output_tokens * 4.0 for j in judgements) / 1e6)
    assert all(a["cost_usd"] is None and a["judge_cost_usd"] is None
               for a in unpriced["spend"]["arms"])
    traj = _row(spend["rows"], "trajectory_bon")
    assert traj["tokens_mean"] > 0 and traj["pass_at_k"]


def test_the_terminal_report_lists_raw_and_adjusted_p_per_rubric_and_arm(run: Path):
    from click.testing import CliRunner

    from tether.cli import main

    res = CliRunner().invoke(main, ["report", str(run), "--out",
                                    str(run.parent / "cli.html")], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "rubric rates vs baseline (p raw and benjamini-hochberg)" in res.output
    title = res.output.split("rubric rates vs baseline")[1]
    assert "p adjusted" in title and "turn_bon" in title and "trajectory_bon" in title
