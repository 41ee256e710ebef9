"""The turn-level best-of-N paper's judge analysis: its 36-task-style sample (tasks the
baseline failed, one seeded trajectory per task and arm) and its statistics (arms pooled
over selector setups, paired bootstrap over tasks, unadjusted), checked by hand."""

from __future__ import annotations

from pathlib import Path

from tests.report.conftest import _commit, make_record
from tether.core.trial import TrialRecord, TrialSpec
from tether.report.data import entries_of
from tether.report.judged import judged_numbers
from tether.report.judged_paper import paper_sample
from tether.report.values import MetricMode
from tether.runs.judge.table import OK, Judgement, JudgeTable

SETUPS = {"kimi": {"proposer": "gen", "selector": "kimi"},
          "deepseek": {"proposer": "gen", "selector": "deepseek"}}
TASKS = [f"t{i}" for i in range(6)]


def agent(index: int, task: str, seed: int, arm: str, setup: str, passed: bool) -> TrialRecord:
    rec = make_record(index, task, seed, "agent" if arm == "base" else "turn_bon", None,
                      passed=passed, extra={"end_state": "pass" if passed else
                                            "wrong_submission", "n": 1 if arm == "base" else 4})
    spec = TrialSpec(**{**rec.spec.model_dump(), "label": arm, "models": SETUPS[setup]})
    return rec.model_copy(update={"spec": spec, "trial_id": spec.trial_id})


def run(tmp_path: Path) -> tuple[Path, list]:
    records, i = [], 0
    for task in TASKS:
        for seed in range(2):
            for setup in SETUPS:
                # the baseline fails t0..t3 once; t4, t5 it always passes
                base_pass = not (seed == 0 and task in TASKS[:4])
                records.append(agent(i, task, seed, "base", setup, base_pass))
                records.append(agent(i + 1, task, seed, "bon", setup, True))
                i += 2
    config = {"models": [{"label": k, **v} for k, v in SETUPS.items()],
              "report": {"judge_statistics": "paper", "judge_sample": "baseline-failed"}}
    run_dir = _commit(tmp_path / "run", records, meta={"config": config})
    with JudgeTable(run_dir, readonly=False) as table:
        for r in records:
            looping = r.spec.label == "base"  # the baseline loops, turn-BoN never does
            for repeat in range(2):
                table.put(Judgement(r.trial_id, "terminal-behaviour/prior", "1", OK,
                                    {"flags": {"looping": looping}, "evidence": {}},
                                    None, "judge", [], repeat=repeat))
    return run_dir, records


def test_the_papers_sample_and_pooled_statistics(tmp_path):
    run_dir, records = run(tmp_path)
    entries = entries_of(records, MetricMode("pass", True),
                         {"models": [{"label": k, **v} for k, v in SETUPS.items()]})
    sample = paper_sample(entries, "base")
    assert sorted({e.key[0] for e in sample}) == ["toy/t0", "toy/t1", "toy/t2", "toy/t3"]
    # one baseline trajectory per task, one turn-BoN trajectory per task and selector
    per_task = {}
    for e in sample:
        per_task.setdefault(e.key[0], []).append((e.strategy_arm, e.setup))
    assert all(sorted(a for a, _ in v) == ["base", "bon", "bon"] for v in per_task.values())
    assert all({s for a, s in v if a == "bon"} == set(SETUPS) for v in per_task.values())
    assert paper_sample(entries, "base") == sample  # seeded: the same sample every time

    numbers = judged_numbers(str(run_dir), entries, "base", ("paper", "baseline-failed"))
    assert numbers is not None and numbers["analysis"]["pooled_over_setups"]
    (behaviours,) = numbers["behaviours"]
    assert behaviours["p_adjustment"] is None
    arms = {a["arm"]: a for a in behaviours["arms"]}
    assert set(arms) == {"base", "bon"}  # pooled: no "@ setup" in the arm names
    assert (arms["base"]["n_judged"], arms["bon"]["n_judged"]) == (4, 8)
    looping = arms["bon"]["vs_baseline"]["rates"]["looping"]
    assert looping["estimate"] == -1.0 and looping["n_pairs"] == 4  # pairs are tasks
    assert looping["p_adjusted"] is None and looping["significant"] is True
    assert looping["p_value"] < 0.05


def test_tethers_default_keeps_pairs_within_each_setup(tmp_path):
    run_dir, records = run(tmp_path)
    entries = entries_of(records, MetricMode("pass", True),
                         {"models": [{"label": k, **v} for k, v in SETUPS.items()]})
    numbers = judged_numbers(str(run_dir), entries, "base")
    assert numbers is not None and numbers["analysis"]["statistics"] == "tether"
    (behaviours,) = numbers["behaviours"]
    assert behaviours["p_adjustment"] == "benjamini-hochberg"
    arms = {a["arm"] for a in behaviours["arms"]}
    assert arms == {"base @ kimi", "base @ deepseek", "bon @ kimi", "bon @ deepseek"}
