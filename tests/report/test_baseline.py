"""The report's one baseline rule: precedence, subsets, budgets and model setups, and the
paired table and the agents section agreeing on a run."""

from __future__ import annotations

import pytest

from tests.systems.terminal.test_report import agent_records
from tether.errors import ConfigError
from tether.report import build_report
from tether.report.baseline import baseline_key, choose_baseline, subset_baseline
from tether.report.section import TrialEntry
from tether.report.values import arm_budget_groups, arm_label, budget_label
from tether.runs.store import RunStore

from .conftest import _commit, make_record


def entry(strategy: str, budget: int | None = None, *, n: int | None = None,
          label: str | None = None, setup: str | None = None, task: str = "t0") -> TrialEntry:
    extra = {**({"n": n} if n is not None else {}), **({"arm": label} if label else {})}
    r = make_record(0, task, 0, strategy, budget, passed=True, extra=extra)
    return TrialEntry(r, arm_label(r), setup, budget_label(r), 1.0, None)


def test_precedence_named_then_single_shot_then_plain_agent_then_first():
    bon, agent, single = entry("turn_bon", n=4), entry("agent", n=1), entry("single_shot")
    loop = entry("self_loop")
    assert choose_baseline([bon, agent, single], "turn_bon") == "turn_bon"
    assert choose_baseline([bon, agent, single], None) == "single_shot"
    assert choose_baseline([bon, agent], None) == "agent"  # not the first arm
    assert choose_baseline([loop, bon], None) == "self_loop"


def test_a_named_baseline_matches_a_strategy_once_or_is_refused():
    a, b = entry("agent", label="agent-n1"), entry("turn_bon", label="bon-4")
    assert choose_baseline([a, b], "turn_bon") == "bon-4"  # by its strategy
    with pytest.raises(ConfigError, match="is not an arm"):
        choose_baseline([a, b], "iad")
    c = entry("turn_bon", label="bon-8")
    with pytest.raises(ConfigError, match="matches several arms"):
        choose_baseline([a, b, c], "turn_bon")


def test_a_plain_agent_is_the_agent_strategy_with_one_reply_a_turn():
    # an `agent` arm recording N = 3 is not the plain agent
    assert choose_baseline([entry("turn_bon"), entry("agent", n=3)], None) == "turn_bon"


def test_a_subset_keeps_the_reports_baseline_else_its_plain_agent():
    agent, bon = entry("agent", n=1), entry("turn_bon", n=4)
    assert subset_baseline([agent, bon], "turn_bon") == "turn_bon"
    assert subset_baseline([agent, bon], "single_shot") == "agent"
    assert subset_baseline([bon], "single_shot") is None


def test_same_budget_else_the_baselines_only_budget():
    single = entry("single_shot")
    loops = [entry("self_loop", 1000), entry("self_loop", 2000)]
    groups = arm_budget_groups([single, *loops])
    assert [baseline_key(groups, "single_shot", [e]) for e in loops] == [
        ("single_shot", "unlimited")] * 2
    two = [entry("single_shot", 1000), entry("single_shot", 2000), entry("self_loop", 3000)]
    groups = arm_budget_groups(two)
    assert baseline_key(groups, "single_shot", [two[2]]) is None  # several, not this one
    assert baseline_key(groups, "single_shot", [two[1]]) == ("single_shot", "2000")


def test_within_the_same_model_setup():
    rows = [entry(s, 1000, setup=m) for m in ("small", "big") for s in ("single_shot", "loop")]
    groups = arm_budget_groups(rows)
    assert baseline_key(groups, "single_shot", [rows[3]]) == ("single_shot @ big", "1000")
    assert baseline_key(groups, "single_shot", [rows[1]]) == ("single_shot @ small", "1000")


def _numbers(tmp_path, records, baseline=None) -> dict:
    run = _commit(tmp_path / "run", records)
    with RunStore.open(run) as store:
        return build_report(store, baseline=baseline).numbers


def test_the_paired_table_and_the_agents_section_use_one_baseline(tmp_path):
    # turn_bon's trials first: the first arm is not the baseline, the plain agent is
    records = sorted(agent_records(), key=lambda r: r.spec.strategy != "turn_bon")
    records = [r.model_copy(update={"index": i}) for i, r in enumerate(records)]
    n = _numbers(tmp_path, records)
    assert [r["arm"] for r in n["summary"]] == ["turn_bon", "agent"]
    assert n["baseline"] == "agent"
    assert [(r["baseline"], r["arm"]) for r in n["paired"]] == [("agent", "turn_bon")]
    assert {r["arm"]: r["tokens_baseline"] for r in n["agents"]["rows"]} == {
        "turn_bon": "agent", "agent": "agent"}


def test_a_named_baseline_is_every_sections_baseline(tmp_path):
    n = _numbers(tmp_path, agent_records(), baseline="turn_bon")
    assert [(r["baseline"], r["arm"]) for r in n["paired"]] == [("turn_bon", "agent")]
    rows = {r["arm"]: r for r in n["agents"]["rows"]}
    assert rows["agent"]["tokens_baseline"] == "turn_bon"
    assert rows["agent"]["tokens_relative"] == pytest.approx(100 / 500)
