"""Iteration 0 of every loop is the single-shot draft (invariant 3)."""

from __future__ import annotations

import pytest

from tests.strategies.trial_helpers import RoleScript, calls, program, run
from tether.core.budget import BudgetSpec


def seed_dependent(messages, info):
    # A reply that differs for every seed, temperature and token limit: equal artifacts
    # mean an equal request.
    return program(f"v_{info.params.seed}_{info.params.temperature}_{info.params.max_tokens}")


@pytest.mark.parametrize("strategy", ["self_loop", "proposer_reviewer", "iad"])
@pytest.mark.parametrize("seed", [0, 7])
def test_draft_equals_single_shot_artifact_for_the_same_seed(strategy, seed):
    budget = BudgetSpec(total=5000)
    single, _ = run("single_shot", {}, seed_dependent, seed=seed, budget=budget)
    script = RoleScript(proposer=seed_dependent, reviewer=lambda m, i: '{"issues": []}')
    loop, _ = run(strategy, {"max_iterations": 1, "feedback": "none"}, script, seed=seed,
                  budget=budget, roles=("proposer", "reviewer"))
    draft = calls(loop, "proposer")[0]
    assert draft.messages == calls(single, "proposer")[0].messages
    assert loop.extra["iteration_history"][0]["artifact"] == single.artifact
    assert loop.extra["single_shot_score"] == single.score


def test_different_seeds_give_different_drafts():
    a, _ = run("self_loop", {"max_iterations": 0}, seed_dependent, seed=1)
    b, _ = run("self_loop", {"max_iterations": 0}, seed_dependent, seed=2)
    assert a.artifact != b.artifact
