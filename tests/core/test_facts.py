"""Typed trial facts: written by strategies, stored as plain JSON, read back by kind."""

from __future__ import annotations

from tether.core.end_state import AgentEndState, EndState
from tether.core.facts import (
    AgentFacts,
    ArmFacts,
    DraftFacts,
    LoopFacts,
    SelectionFacts,
    TurnFacts,
    WidthFacts,
    facts_of,
)
from tether.core.observation import Observation


def test_facts_round_trip_through_the_stored_extra_and_keep_unknown_keys():
    loop = LoopFacts(single_shot_score=0.5, single_shot_passed=False, iterations=2,
                     iteration_scores=[0.5, None, 1.0], stop_reason="passed", review_misses=1)
    stored = loop.to_extra()
    assert stored["review_misses"] == 1 and "final_score" not in stored  # only what was set
    back = facts_of(stored, LoopFacts)
    assert back == loop and back.iteration_scores == [0.5, None, 1.0]
    assert facts_of(stored, AgentFacts) is None and facts_of(stored, SelectionFacts) is None
    assert facts_of(stored, DraftFacts).single_shot_score == 0.5


def test_each_kind_is_told_apart_by_what_it_carries():
    agent = {"end_state": "time_limit", "turns": 4, "n": 4, "selector": "llm",
             "tokens": {"generator_output": 120}}
    facts = facts_of(agent, AgentFacts)
    assert facts is not None and facts.end_state is AgentEndState.TIME_LIMIT
    assert facts.end_state.trial_status is EndState.TIMEOUT
    assert facts_of(agent, SelectionFacts) is None  # a turn-level selector is not best-of-N
    selection = {"n": 4, "selector": "oracle", "selected_index": 2, "single_shot_score": 0.0}
    assert facts_of(selection, SelectionFacts).selected_index == 2
    assert facts_of({"arm": "x"}, DraftFacts) is None


def test_stored_geometry_observations_without_a_declared_aggregation_count_defects():
    old = Observation.model_validate({"instrument": "geometry", "version": "1", "grounded": True,
                                      "score": 3.0, "passed": False})
    assert old.aggregate_as == "defect_count"
    judged = Observation(instrument="judge", version="1", grounded=False, score=0.75)
    assert judged.aggregate_as == "mean_score"
    verdict = Observation(instrument="execution", version="1", grounded=True, score=0.5,
                          passed=False)
    assert verdict.aggregate_as == "pass_rate"
    declared = Observation(instrument="anything", version="1", grounded=True, score=2.0,
                           aggregation="defect_count")
    assert declared.aggregate_as == "defect_count"


def test_the_reports_lesser_facts_read_old_and_partial_extras():
    # an interrupted agent trial: turns so far, no end state yet
    partial = {"turn_records": [{"command": "ls"}], "turns": 1}
    assert facts_of(partial, AgentFacts) is None
    taken = facts_of(partial, TurnFacts)
    assert taken is not None and taken.turn_records == [{"command": "ls"}]
    # a record that stored its arm label itself, and one that did not
    assert facts_of({"arm": "bon-4"}, ArmFacts).arm == "bon-4"
    assert facts_of({}, ArmFacts).arm is None
    # width: the plain agent records none or 1; turn-level best-of-N its N
    assert facts_of({}, WidthFacts).n == 1
    assert facts_of({"n": 4, "end_state": "pass"}, WidthFacts).n == 4
