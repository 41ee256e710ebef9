"""`Ledger.room`: the one remaining-budget rule that reserve and the planners share."""

import pytest

from tether.core.budget import BudgetExhausted, BudgetSpec, Ledger, estimate_input_tokens
from tether.models.base import Usage

MESSAGES = [{"role": "user", "content": "x" * 200}]


def test_no_total_means_no_cap():
    assert Ledger(BudgetSpec()).room("proposer", MESSAGES) is None


def test_room_is_the_total_less_what_was_charged_and_reserved():
    ledger = Ledger(BudgetSpec(total=1000))
    ledger.settle("reviewer", 0, Usage(output_tokens=300))
    assert ledger.room("proposer") == 700
    assert ledger.reserve("proposer", MESSAGES, 200) == 200  # in flight, not settled yet
    assert ledger.room("proposer") == 500


def test_a_share_caps_the_role_less_what_it_already_spent():
    ledger = Ledger(BudgetSpec(total=1000, shares={"proposer": 0.4}))
    ledger.settle("proposer", 0, Usage(output_tokens=100))
    assert ledger.room("proposer") == 300  # 400 share - 100 spent, below 900 overall
    assert ledger.room("reviewer") == 900  # no share: the total alone


def test_input_output_mode_takes_the_prompt_estimate_off_once_per_sample():
    estimate = estimate_input_tokens(MESSAGES)
    ledger = Ledger(BudgetSpec(total=1000, count="input+output", shares={"proposer": 0.5}))
    assert ledger.room("proposer") == 500
    assert ledger.room("proposer", MESSAGES) == 500 - estimate
    assert ledger.room("proposer", MESSAGES, n=3) == 500 - 3 * estimate
    # reserve hands out exactly that room, split over the samples
    assert ledger.reserve("proposer", MESSAGES, 10_000, n=3) == (500 - 3 * estimate) // 3


def test_output_mode_ignores_the_prompt():
    assert Ledger(BudgetSpec(total=1000)).room("proposer", MESSAGES) == 1000


def test_reserve_refuses_when_no_room_is_left():
    ledger = Ledger(BudgetSpec(total=100))
    ledger.settle("proposer", 0, Usage(output_tokens=100))
    assert ledger.room("proposer") == 0
    with pytest.raises(BudgetExhausted):
        ledger.reserve("proposer", MESSAGES, 10)
    assert ledger.exhausted
