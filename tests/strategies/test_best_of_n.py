"""best_of_n (S): sampling under the budget and the four selectors."""

from __future__ import annotations

import pytest

from tests.strategies.trial_helpers import (
    RoleScript,
    calls,
    charged,
    code_task,
    delivered,
    program,
    run,
)
from tether.core.budget import BudgetSpec
from tether.errors import ConfigError
from tether.strategies import build_strategy
from tether.strategies.best_of_n import normalize
from tether.strategies.selection import SelectionParseError, parse_selection

S = "best_of_n"
SAMPLES = [program("zero"), program("alpha"), program("alpha beta"), program("beta")]


def test_oracle_picks_a_passing_sample_and_records_all_scores():
    record, arts = run(S, {"n": 4, "selector": "oracle"}, RoleScript(proposer=list(SAMPLES)))
    assert record.passed and record.extra["selected_index"] == 2
    assert record.extra["sample_scores"] == [0.0, 0.5, 1.0, 0.5]
    assert record.extra["single_shot_score"] == 0.0
    assert record.calls[0].messages[-1]["content"].startswith("Write f()")
    assert [c.sample_index for c in record.calls] == [0, 1, 2, 3]


def test_oracle_without_a_pass_takes_the_highest_partial_score_first_on_ties():
    samples = [program("zero"), program("beta"), program("alpha"), program("none")]
    record, _ = run(S, {"n": 4}, RoleScript(proposer=samples))
    assert record.extra["selected_index"] == 1


def test_verifier_selects_by_visible_checks_not_the_metric():
    # Visible checks want "beta" only; the hidden metric wants alpha and beta.
    task = code_task(visible=["beta"])
    record, _ = run(S, {"n": 4, "selector": "verifier", "verifier": "scripted_partial;key=visible",
                        "tie_break": "first"}, RoleScript(proposer=list(SAMPLES)), task=task)
    assert record.extra["verifier_scores"] == [0.0, 0.0, 1.0, 1.0]
    assert record.extra["verifier_tied"] == [2, 3] and record.extra["selected_index"] == 2
    selection = [o for o in record.observations if o.purpose == "selection"]
    assert len(selection) == 4


def test_verifier_ties_are_broken_by_the_trial_rng_reproducibly():
    task = code_task(visible=["beta"])
    params = {"n": 4, "selector": "verifier", "verifier": "scripted_partial;key=visible"}
    picks = {seed: run(S, params, RoleScript(proposer=list(SAMPLES)), task=task, seed=seed)[0]
             .extra["selected_index"] for seed in range(8)}
    assert set(picks.values()) == {2, 3}  # both tied samples get chosen for some seed
    again = run(S, params, RoleScript(proposer=list(SAMPLES)), task=task, seed=5)[0]
    assert again.extra["selected_index"] == picks[5]


def test_llm_selector_picks_the_index_it_names():
    script = RoleScript(proposer=list(SAMPLES), selector=['{"selected_index": 3}'])
    record, arts = run(S, {"n": 4, "selector": "llm"}, script, roles=("proposer", "selector"))
    assert record.extra["selected_index"] == 3 and record.extra["selector_parsed"] is True
    assert delivered(record, arts) == "beta\n"
    (sel,) = calls(record, "selector")
    assert all(f"Candidate {k}" in sel.messages[1]["content"] for k in range(4))


@pytest.mark.parametrize("reply", ["the third one", '{"selected_index": 9}',
                                   '{"selected_index": "2"}'])
def test_llm_selector_falls_back_to_sample_0(reply):
    script = RoleScript(proposer=list(SAMPLES), selector=[reply] * 4)
    record, arts = run(S, {"n": 4, "selector": "llm"}, script, roles=("proposer", "selector"))
    assert record.extra["selected_index"] == 0 and record.extra["selector_parsed"] is False
    # turn-BoN's rules: the answer is sent back with its error 3 times, then sample 0
    sel = calls(record, "selector")
    assert len(sel) == 4 and record.extra["selection"]["failed"] is True
    assert len(record.extra["selection"]["errors"]) == 4
    assert "could not be used" in sel[1].messages[-1]["content"]
    assert record.status == "ok"


def test_llm_selector_without_retries_makes_one_call():
    script = RoleScript(proposer=list(SAMPLES), selector=["the third one"])
    record, _ = run(S, {"n": 4, "selector": "llm", "selector_retries": 0}, script,
                    roles=("proposer", "selector"))
    assert record.extra["selected_index"] == 0 and record.extra["selector_parsed"] is False
    assert len(calls(record, "selector")) == 1


def test_llm_selector_retry_uses_the_corrected_answer():
    script = RoleScript(proposer=list(SAMPLES),
                        selector=['{"selected_index": 9}', '{"selected_index": 2}'])
    record, arts = run(S, {"n": 4, "selector": "llm"}, script, roles=("proposer", "selector"))
    assert record.extra["selected_index"] == 2 and record.extra["selector_parsed"] is True
    retry = calls(record, "selector")[1].messages
    assert retry[-2] == {"role": "assistant", "content": '{"selected_index": 9}'}
    assert "out of range 0..3" in retry[-1]["content"]
    assert '{"selected_index": <integer from 0 to 3>}' in retry[-1]["content"]


def test_llm_selector_keeps_room_for_its_call_within_the_budget():
    script = RoleScript(proposer=lambda m, i: program("alpha beta gamma delta epsilon"),
                        selector=['{"selected_index": 1}'])
    record, _ = run(S, {"n": 4, "selector": "llm", "selector_max_tokens": 8}, script,
                    budget=BudgetSpec(total=48), roles=("proposer", "selector"))
    assert len(calls(record, "selector")) == 1 and charged(record) <= 48


def test_majority_votes_over_normalized_programs():
    samples = [program("x = 1"), program("x=1  # same"), program("y = 2"),
               program("# c\nx = (1)")]
    record, arts = run(S, {"n": 4, "selector": "majority"}, RoleScript(proposer=samples),
                       task=code_task(("x",)))
    assert record.extra["selected_index"] == 0
    assert record.extra["majority_groups"] == [3, 1]


def test_budget_caps_per_sample_tokens_and_truncated_samples_are_not_candidates():
    samples = [program("alpha beta"), "```python\n" + "word " * 30, program("alpha"),
               program("beta")]
    record, _ = run(S, {"n": 4}, RoleScript(proposer=samples), budget=BudgetSpec(total=40))
    assert charged(record) <= 40
    assert record.extra["sample_status"][1] == "truncated"
    assert record.extra["selected_index"] == 0 and record.passed


def test_n_auto_fills_the_budget_with_full_samples():
    record, _ = run(S, {"n": "auto", "max_tokens": 10},
                    RoleScript(proposer=lambda m, i: program("alpha")),
                    budget=BudgetSpec(total=45))
    assert record.extra["n"] == 4 and charged(record) <= 45


@pytest.mark.parametrize("total, expected", [(1000, 1), (5000, 3), (20000, 10)])
def test_n_auto_reproduces_the_studys_sample_counts(total, expected):
    record, _ = run(S, {"n": "auto", "sample_tokens": 1500, "max_n": 10},
                    RoleScript(proposer=lambda m, i: program("alpha")),
                    budget=BudgetSpec(total=total))
    assert record.extra["n"] == expected == len(record.calls)


def test_all_samples_truncated_is_the_truncated_outcome():
    record, _ = run(S, {"n": 2}, RoleScript(proposer=["```python\nx", "```python\ny"]))
    assert record.status == "truncated" and record.artifact is None


def test_normalize_and_parse_selection():
    assert normalize("program", "x=1 # c\n\n") == normalize("program", "x = 1")
    assert normalize("program", "def (:  # broken\n") == "def (:"
    assert normalize("text", " a \n b ") == "a b"
    assert parse_selection('sure: {"selected_index": 1}', 2) == (1, None)
    with pytest.raises(SelectionParseError):
        parse_selection('{"selected_index": true}', 2)


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError):
        build_strategy(S, {"selector": "vibes"})
    with pytest.raises(ConfigError):
        build_strategy(S, {"n": 0})


def test_default_verifier_runs_the_visible_checks_with_the_real_execution_instrument():
    from tether.core.task import Task

    task = Task(id="sq", suite="scripted", prompt="Write sq(x) = x * x.", metric="execution",
                data={"checks": "assert sq(3) == 9\nassert sq(-2) == 4\n",
                      "visible_checks": "assert sq(3) == 9\n", "entry_point": "sq"})
    samples = [program("def sq(x):\n    return x + x"),      # fails the visible check
               program("def sq(x):\n    return 9"),          # passes visible, fails hidden
               program("def sq(x):\n    return x * x")]      # passes both
    record, _ = run(S, {"n": 3, "selector": "verifier", "tie_break": "first"},
                    RoleScript(proposer=samples), task=task)
    assert record.extra["verifier_scores"] == [0.0, 1.0, 1.0]
    assert record.extra["selected_index"] == 1       # grounded on visible checks only
    assert record.passed is False                    # the metric runs the hidden checks
    assert record.extra["sample_passed"] == [False, False, True]


def test_draft_temperature_makes_sample_0_the_single_shot_draft():
    # the draft is its own call, the single-shot request at draft_temperature; the
    # other samples come from one call at temperature
    task = code_task(visible=["alpha"])
    params = {"n": 3, "temperature": 0.7, "draft_temperature": 0.0, "selector": "verifier",
              "verifier": "scripted_partial;key=visible", "tie_break": "first"}
    record, arts = run(S, params, RoleScript(proposer=[program("alpha"), program("alpha"),
                                                       program("beta")]), task=task)
    draft, *rest = record.calls
    assert (draft.params["temperature"], draft.sample_index) == (0.0, 0)
    assert [(c.params["temperature"], c.sample_index) for c in rest] == [(0.7, 0), (0.7, 1)]
    single, _ = run("single_shot", {"max_tokens": 1024},
                    RoleScript(proposer=[program("alpha")]), task=task)
    assert draft.request_hash == single.calls[0].request_hash  # the same request
    # the draft passes the visible check; a later sample that only ties does not replace it
    assert record.extra["verifier_scores"] == [1.0, 1.0, 0.0]
    assert record.extra["selected_index"] == 0 and record.extra["draft_temperature"] == 0.0
    assert record.extra["single_shot_passed"] is False  # the hidden metric wants beta too


def test_a_refused_second_call_keeps_the_draft_as_the_only_sample():
    # prompts count too: after the draft's prompt and reply, the samples' call (its
    # prompt and 2 x 10 tokens) no longer fits, and the draft is delivered
    budget = BudgetSpec(total=30, count="input+output")
    record, arts = run(S, {"n": 3, "draft_temperature": 0.0, "max_tokens": 10},
                       RoleScript(proposer=[program("alpha beta")]), budget=budget)
    assert len(record.calls) == 1 and record.extra["sample_status"] == ["ok", "refused",
                                                                        "refused"]
    assert record.status == "budget_exhausted" and record.extra["selected_index"] == 0
    assert record.passed and charged(record) <= 30
