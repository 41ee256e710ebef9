"""The report's first screen: the model, the headline comparison with its interval, cost per
arm; and the per-task paired view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tether.report import build_report, write_report
from tether.report.headline import per_task_rows
from tether.runs.store import RunStore

from .conftest import _commit, make_record


def numbers(run_dir: Path) -> dict:
    with RunStore.open(run_dir) as store:
        return build_report(store).numbers


def test_the_headline_is_the_first_arm_against_the_baseline(pass_run):
    n = numbers(pass_run)
    h = n["headline"]
    assert h["models"] == [{"spec": "scripted:[]", "roles": ["proposer"]}]
    c = h["comparison"]
    # self_loop @ 500 against single_shot: tasks 3-5 better on both seeds, task 2 worse
    assert (c["arm"], c["budget"], c["baseline"]) == ("self_loop", "500", "single_shot")
    assert (c["improved"], c["regressed"], c["ties"], c["n_pairs"]) == (6, 2, 12, 20)
    assert c["score"]["value"] == pytest.approx(0.5)
    assert c["baseline_score"]["value"] == pytest.approx(0.3)
    assert c["effects"][0]["estimate"] == pytest.approx(0.2)
    assert [(a["arm"], a["budget"]) for a in h["arms"]] == [
        ("single_shot", "unlimited"), ("self_loop", "500"), ("self_loop", "1000")]
    assert h["arms"][0]["vs_baseline"] is None
    assert h["arms"][2]["vs_baseline"]["improved"] == 10 and h["arms"][2]["errors"] == 1
    # output tokens per trial: budget // 5 in the fixture; no prices: unknown cost
    assert [a["output_tokens_mean"] for a in h["arms"]] == [100, 100, 200]
    assert all(a["cost_usd"] is None for a in h["arms"]) and h["priced"] is False
    assert h["lead"] is None  # no section says what this run was for: the comparison leads


def test_per_task_rows_say_which_way_each_pair_moved():
    pairs = {"pairs": [{"task": "a", "seed": 0, "a": 0.0, "b": 1.0},
                       {"task": "b", "seed": 0, "a": 1.0, "b": 0.0},
                       {"task": "c", "seed": 0, "a": 2.0, "b": 2.0}]}
    assert [r["change"] for r in per_task_rows(pairs, True)] == ["improved", "regressed", "same"]
    # defect counts: fewer is better
    assert [r["change"] for r in per_task_rows(pairs, False)] == ["regressed", "improved",
                                                                   "same"]


def test_the_first_screen_shows_model_answer_and_cost_before_any_table(pass_report):
    html = pass_report.read_text()
    head = html[:html.index('<h2 id="summary-h">')]
    assert "scored by\n  scripted_check (version 2)" in head and " from " not in head
    assert "<code>scripted:[]</code> (proposer)" in head
    answer = re.sub(r"\s+", " ", head[head.index('class="answer"'):])
    assert ("<b>self_loop</b> @ 500 against <b>single_shot</b>: pass rate "
            "50.0% [29.9, 70.1] against 30.0% [14.5, 51.9]; +20.0 pp") in answer
    assert "6 tasks better, 2 worse, 12 the same of 20 pairs (sign test p = 0.29)" in answer
    assert head.count("<th>cost</th>") == 1 and "no prices were" in head


def test_a_priced_run_shows_its_dollars_on_the_first_screen(tmp_path):
    records = [make_record(i, f"t{i}", 0, "single_shot", 500, passed=i == 0) for i in range(2)]
    # the price table the run was started with; trial 0's call was a cache hit (free)
    run = _commit(tmp_path / "run", records,
                  meta={"prices": {"scripted": {"price_in": 1000, "price_out": 1000}}})
    with RunStore.open(run) as store:
        report = build_report(store)
        html = write_report(report, store, tmp_path / "r.html").read_text()
    (arm,) = report.numbers["headline"]["arms"]
    assert arm["cost_usd"] == pytest.approx((50 + 100) * 1000 / 1e6)
    head = html[:html.index('<h2 id="summary-h">')]
    assert "$0.1500" in head and "$0.0750" in head and "nothing to compare with" in head


def test_no_plot_is_drawn_for_a_single_point(tmp_path):
    records = [make_record(i, f"t{i}", 0, "single_shot", 500, passed=i < 2) for i in range(4)]
    run = _commit(tmp_path / "run", records)
    with RunStore.open(run) as store:
        out = write_report(build_report(store), store, tmp_path / "r.html")
    html = out.read_text()
    assert 'id="plots"' not in html and "<img" not in html
    assert not list((tmp_path / "r_assets").glob("plots/*.png"))
