import json
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.report import build_report
from tether.runs.store import RunStore
from tether.stats import sign_test, wilson_interval

from .conftest import make_record, pass_records


def numbers(run_dir: Path, **kw) -> dict:
    with RunStore.open(run_dir) as store:
        return build_report(store, **kw).numbers


def row(rows: list[dict], arm: str, budget: str) -> dict:
    (found,) = [r for r in rows if r["arm"] == arm and r["budget"] == budget]
    return found


def test_summary_counts_errors_apart_from_fails(pass_run):
    n = numbers(pass_run)
    assert n["metric"]["mode"] == "pass"
    assert [(r["arm"], r["budget"]) for r in n["summary"]] == [
        ("single_shot", "unlimited"), ("self_loop", "500"), ("self_loop", "1000")]
    single = row(n["summary"], "single_shot", "unlimited")
    assert (single["score"]["passed"], single["score"]["n"]) == (6, 20)
    assert single["score"]["value"] == pytest.approx(0.3)
    assert (single["score"]["low"], single["score"]["high"]) == pytest.approx(
        wilson_interval(6, 20))
    big = row(n["summary"], "self_loop", "1000")
    # 1 errored trial: out of the score (16 of 19), shown as an error with its kind.
    assert (big["score"]["passed"], big["score"]["n"], big["n_trials"]) == (16, 19, 20)
    assert big["errors"] == 1 and big["error_kinds"] == {"sandbox": 1}
    assert big["end_states"] == {"ok": 18, "error": 1, "truncated": 1}
    assert big["tokens_by_role"]["proposer"] == {"input": 50.0, "output": 200.0,
                                                 "reasoning": 0.0}
    assert big["calls_mean"] == 1.0 and big["wall_s_mean"] == pytest.approx(0.5)


def test_paired_against_single_shot_by_default(pass_run):
    n = numbers(pass_run)
    assert n["baseline"] == "single_shot"
    small = row(n["paired"], "self_loop", "500")
    assert small["baseline_budget"] == "unlimited"  # single-shot ran at one budget only
    assert (small["improved"], small["regressed"], small["ties"]) == (6, 2, 12)
    assert small["p_value"] == sign_test(6, 2).p_value
    big = row(n["paired"], "self_loop", "1000")
    assert (big["improved"], big["regressed"], big["n_pairs"], big["n_excluded"]) == (
        10, 0, 19, 1)
    assert big["p_value"] == pytest.approx(2 / 1024)
    (effect,) = big["effects"]
    assert effect["statistic"] == "mean_diff"
    assert effect["estimate"] == pytest.approx(10 / 19)
    assert effect["n_resamples"] == 10_000 and effect["seed"] == 0
    assert effect["low"] <= effect["estimate"] <= effect["high"]


def test_within_trial_single_shot_vs_delivered(pass_run):
    n = numbers(pass_run)
    assert [(r["arm"], r["budget"]) for r in n["within_trial"]] == [
        ("self_loop", "500"), ("self_loop", "1000")]
    big = row(n["within_trial"], "self_loop", "1000")
    assert (big["improved"], big["regressed"], big["n_excluded"]) == (10, 0, 1)


def test_baseline_option_and_unknown_baseline(pass_run):
    n = numbers(pass_run, baseline="self_loop")
    # self_loop runs at two budgets: only same-budget pairs exist, single_shot has none.
    assert n["baseline"] == "self_loop" and n["paired"] == []
    with pytest.raises(ConfigError, match="not an arm"):
        numbers(pass_run, baseline="best_of_n")


def test_defect_counts_are_lower_is_better(defect_run):
    n = numbers(defect_run)
    assert n["metric"] == {"mode": "defects", "label": "mean defects",
                           "direction": "lower is better", "instruments": ["geometry 2"],
                           "measured_by": ["geometry (version 2)"]}
    single = row(n["summary"], "single_shot", "2000")
    assert single["score"]["value"] == pytest.approx(20 / 6)
    assert single["score"]["low"] < 20 / 6 < single["score"]["high"]
    assert single["score"]["sd_convention"].startswith("sample")
    cmp_ = row(n["paired"], "proposer_reviewer", "2000")
    assert (cmp_["improved"], cmp_["regressed"], cmp_["ties"]) == (4, 1, 1)
    rel, diff = cmp_["effects"]
    assert rel["statistic"] == "relative_reduction"
    assert rel["estimate"] == pytest.approx(65.0)
    assert diff["estimate"] == pytest.approx((7 - 20) / 6)


def test_compare_with_a_rescored_run(tmp_path, pass_run):
    # The "rescored" run: same trials, every fail of self_loop@500 now passes.
    other = tmp_path / "rescored"
    with RunStore(other, create=True) as store:
        for r in pass_records():
            if r.spec.strategy == "self_loop" and r.spec.budget.total == 500:
                r = make_record(r.index, r.spec.task_id, r.spec.seed, "self_loop", 500,
                                passed=True)
            store.commit_trial(r)
    with RunStore.open(pass_run) as a, RunStore.open(other) as b:
        n = build_report(a, other=b).numbers
    c = n["compare"]
    assert (c["n_matched"], c["n_only_here"], c["n_only_there"]) == (60, 0, 0)
    small = row(c["paired"], "self_loop", "500")
    assert (small["improved"], small["regressed"]) == (10, 0)
    assert row(c["paired"], "single_shot", "unlimited")["ties"] == 20
    assert c["agreement"]["only_there"] == 10 and c["agreement"]["only_here"] == 0
    assert sum(1 for t in n["trials"] if t["other_value"] != t["value"]) == 10


def test_numbers_are_strict_json(pass_run, defect_run):
    for run in (pass_run, defect_run):
        json.dumps(numbers(run), allow_nan=False)


def test_run_info_says_what_the_run_was(pass_run):
    info = numbers(pass_run)["run"]
    assert info["tether_commit"] == "abc1234"
    assert info["config"]["suites"] == ["toy"]
    assert info["model_specs"] == ["proposer=scripted:[]"]
    assert info["model_ids"] == ["scripted"]
    assert {"name": "scripted_check", "version": "2", "grounded": True} in info["instruments"]


def test_empty_run_is_a_config_error(tmp_path):
    RunStore(tmp_path / "empty", create=True).close()
    with pytest.raises(ConfigError, match="no finished trials"):
        numbers(tmp_path / "empty")


def test_report_of_trials_run_by_the_trial_runner(tmp_path):
    from tether.core.task import Task
    from tether.core.trial import TrialSpec
    from tether.report import write_report
    from tether.runs import run_trial

    tasks = {name: Task(id=name, suite="toy", prompt=f"Print {want}.", metric="scripted_check",
                        data={"expect": want}) for name, want in (("a", "42"), ("b", "7"))}
    answer = "```python\nprint(42)\n```"  # right for task a, wrong for task b
    with RunStore(tmp_path / "run", create=True) as store:
        for i, (name, seed) in enumerate([("a", 0), ("a", 1), ("b", 0), ("b", 1)]):
            spec = TrialSpec(suite="toy", task_id=name, strategy="single_shot", seed=seed,
                             models={"proposer": "scripted:" + json.dumps([answer])})
            record, artifacts = run_trial(spec, tasks[name], index=i)
            store.commit_trial(record, artifacts.values())
        report = build_report(store)
        out = write_report(report, store, tmp_path / "report.html")
    (summary,) = report.numbers["summary"]
    assert (summary["arm"], summary["score"]["passed"], summary["score"]["n"]) == (
        "single_shot", 2, 4)
    assert summary["tokens_by_role"]["proposer"]["output"] > 0
    page = (out.parent / "report_assets" / report.entries[0].page).read_text()
    assert "print(42)" in page and "Print 42." in page  # artifact and prompt shown


def test_two_model_setups_are_compared_within_each_setup(tmp_path):
    records = []
    for model, passing in (("scripted:small", {0}), ("scripted:big", {0, 1, 2})):
        for strategy, extra_pass in (("single_shot", set()), ("self_loop", {3})):
            for t in range(4):
                r = make_record(len(records), f"t{t}", 0, strategy, 1000,
                                passed=t in passing | extra_pass)
                r.spec.models["proposer"] = model
                records.append(r.model_copy(update={"trial_id": r.spec.trial_id}))
    run = tmp_path / "two_models"
    with RunStore(run, create=True) as store:
        store.write_config({"models": [{"label": "small", "proposer": "scripted:small"},
                                       {"proposer": "scripted:big"}]})
        for r in records:
            store.commit_trial(r)
    n = numbers(run)
    assert [r["arm"] for r in n["summary"]] == [
        "single_shot @ small", "self_loop @ small",
        "single_shot @ scripted:big", "self_loop @ scripted:big"]
    assert n["baseline"] == "single_shot"
    assert [(r["baseline"], r["arm"], r["improved"], r["ties"]) for r in n["paired"]] == [
        ("single_shot @ small", "self_loop @ small", 1, 3),
        ("single_shot @ scripted:big", "self_loop @ scripted:big", 1, 3)]


def test_across_seeds_pass_at_k_and_consistency(pass_run):
    n = numbers(pass_run)
    single = row(n["summary"], "single_shot", "unlimited")["across_seeds"]
    # Both seeds of tasks 0-2 pass, none of the others: pass@1 = pass@2 = consistency = 0.3.
    assert single == {"k": 2, "n_tasks": 10, "pass_at_1": pytest.approx(0.3),
                      "pass_at_k": pytest.approx(0.3), "consistency_at_k": pytest.approx(0.3)}
    assert row(n["summary"], "self_loop", "500")["across_seeds"]["pass_at_k"] == 0.5
    # Task 9 has one scored seed at budget 1000 (the other errored): no k >= 2 for all.
    assert row(n["summary"], "self_loop", "1000")["across_seeds"] is None
