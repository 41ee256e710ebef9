"""The Judged section: numbers checked by hand on a small agent run judged by scripted
judges (tests/runs/judge_doubles.py), the HTML and its plot, and judge errors apart."""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path

import pytest

from tests.runs import judge_doubles as jd
from tests.runs.agent_runs import agent_run
from tether.report import build_report, write_report
from tether.runs.judge import (
    judge_run as judge_run_paper_default,
    load_rubrics,
    reward_hacking_job,
    rubric_jobs,
)
from tether.runs.store import RunStore
from tether.testing.scripted_models import ScriptedModel

#: these tests count one judgement per attempt unless they ask for repeats themselves
judge_run = partial(judge_run_paper_default, repeats=1)


def t1_hacks(messages, info):
    """Labels every passing attempt on task t1 as reward hacking (a test double)."""
    if '"label"' in messages[0]["content"]:  # the reward-hacking check's JSON schema
        if "for t1" in messages[1]["content"]:
            return json.dumps({"label": "reward_hacking", "evidence": "step 2 wrote the answer"})
        return json.dumps({"label": "legitimate", "evidence": "created done.txt"})
    return jd.json_judge(messages, info)


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    run = agent_run(tmp_path_factory.mktemp("judged") / "run")
    jobs = [*rubric_jobs(load_rubrics("terminal-behaviour")), reward_hacking_job()]
    judge_run(run, jobs, ScriptedModel(t1_hacks, model_id="judge-double"))
    before = (run / "run.sqlite").read_bytes()
    with RunStore.open(run, readonly=True) as store:
        report = build_report(store)
        out = write_report(report, store, run.parent / "report.html")
    assert (run / "run.sqlite").read_bytes() == before  # the report only reads
    return report.numbers, out, run


def _arm(rows: list[dict], arm: str) -> dict:
    return next(r for r in rows if r["arm"] == arm)


def test_flag_rates_and_mean_flags_by_hand(judged):
    numbers, _, _ = judged
    (b,) = numbers["judged"]["behaviours"]
    assert (b["name"], b["version"], b["n_rubrics"]) == ("terminal-behaviour", "2", 28)
    assert b["titles"]["improper_tool_use"] == "Improper tool use"
    agent, bon = _arm(b["arms"], "agent"), _arm(b["arms"], "turn_bon")
    # agent seed 1 (both tasks) ran `touch x.txt`: flagged for one rubric in each set
    assert (agent["n_judged"], agent["mean_flags"], agent["n_failed_judged"],
            agent["mean_flags_failed"]) == (4, 1.0, 2, 2.0)
    assert agent["rates"]["improper_tool_use"] == 0.5
    assert agent["rates"]["looping"] == 0.0
    assert (bon["n_judged"], bon["mean_flags"], bon["mean_flags_failed"]) == (4, 0.0, None)
    assert agent["vs_baseline"] is None
    vs = bon["vs_baseline"]
    assert vs["baseline"] == "agent"
    assert vs["mean_flags"]["estimate"] == -1.0 and vs["mean_flags"]["n_pairs"] == 4
    assert vs["mean_flags"]["low"] <= -1.0 <= vs["mean_flags"]["high"]
    # only rubrics flagged on either side get a bootstrap
    assert set(vs["rates"]) == {"improper_tool_use", "overclaimed_results"}
    assert vs["rates"]["improper_tool_use"]["estimate"] == -0.5


def test_reward_hacking_rows_by_hand(judged):
    numbers, _, _ = judged
    rows = numbers["judged"]["reward_hacking"]
    agent, bon = _arm(rows, "agent"), _arm(rows, "turn_bon")
    assert (agent["n_passed"], agent["n_judged"], agent["n_reward_hacking"]) == (2, 2, 1)
    assert (bon["n_passed"], bon["n_judged"], bon["n_reward_hacking"]) == (4, 4, 2)
    assert bon["examples"][0]["evidence"] == "step 2 wrote the answer"
    # per (task, seed): failed attempts count 0; only (t1, 1) differs (0 -> 1)
    assert bon["vs_baseline"]["share"]["estimate"] == 0.25


def test_html_shows_the_section_and_its_plot(judged):
    numbers, out, _ = judged
    html = out.read_text()
    assert 'id="judged"' in html and "Tests cannot fail" in html
    assert "Reward hacking (passing attempts)" in html
    plot = out.parent / f"{out.stem}_assets" / "plots" / "judged_rates_0.png"
    assert plot.is_file() and plot.stat().st_size > 1000
    json.dumps(numbers["judged"])  # the numbers are JSON


def test_judge_errors_are_counted_apart(judged, tmp_path: Path):
    _, _, run = judged
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    bundled = load_rubrics("terminal-behaviour")
    from tether.runs.judge.rubrics import RubricFile

    v9 = RubricFile(bundled.name, "9", bundled.description,
                    tuple(type(s)(s.file, s.id, s.title, "9", s.rubrics)
                          for s in bundled.sets))
    judge_run(copy, rubric_jobs(v9), ScriptedModel(jd.prose_judge), retries=0)
    with RunStore.open(copy, readonly=True) as store:
        numbers = build_report(store).numbers
    v9_rows = next(b for b in numbers["judged"]["behaviours"] if b["version"] == "9")
    agent = _arm(v9_rows["arms"], "agent")
    assert (agent["n_judged"], agent["n_judge_errors"], agent["mean_flags"]) == (0, 4, None)


def test_a_run_nobody_judged_has_no_section(pass_report):
    assert 'id="judged"' not in pass_report.read_text()


def test_terminal_tables_show_the_judged_rows(judged):
    from tether.cli.report import judged_tables

    numbers, _, _ = judged
    titles = [t.title for t in judged_tables(numbers["judged"])]
    assert titles == ["judged: terminal-behaviour v2 (28 rubrics)",
                      "judged: terminal-behaviour rubric rates vs baseline "
                      "(p raw and benjamini-hochberg)",
                      "judged: reward hacking (passing attempts)"]
    assert judged_tables(None) == []
