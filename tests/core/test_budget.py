"""`Ledger.room`: the one remaining-budget rule that reserve and the planners share."""

import threading
import time

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


def test_a_whole_reservation_is_never_cut_it_is_refused():
    ledger = Ledger(BudgetSpec(total=100))
    ledger.settle("student", 0, Usage(output_tokens=50))
    assert ledger.reserve("student", MESSAGES, 40, whole=True) == 40
    ledger.settle("student", 40, Usage(output_tokens=40))
    assert ledger.reserve("student", MESSAGES, 40) == 10  # a plain call is cut to fit
    ledger.settle("student", 10, Usage())
    with pytest.raises(BudgetExhausted):  # 10 left: a whole call of 40 is not made
        ledger.reserve("student", MESSAGES, 40, whole=True)
    with pytest.raises(BudgetExhausted):  # nor 2 samples of 6
        ledger.reserve("student", MESSAGES, 6, n=2, whole=True)
    assert ledger.reserve("student", MESSAGES, 5, n=2, whole=True) == 5  # these fit


def test_a_whole_reservation_waits_for_calls_in_flight_and_never_overshoots():
    """8 threads at once, each call spending all it reserved: the cap holds, and a call is
    refused only once what was spent leaves no room (never for what others reserved)."""
    ledger = Ledger(BudgetSpec(total=5 * 64 + 32))
    barrier = threading.Barrier(8)
    made, refused = [], []

    def call() -> None:
        barrier.wait()  # all 8 reserve together
        try:
            tokens = ledger.reserve("student", MESSAGES, 64, whole=True)
        except BudgetExhausted:
            refused.append(1)
            return
        time.sleep(0.01)
        made.append(tokens)
        ledger.settle("student", tokens, Usage(output_tokens=tokens))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [64] * 5 and len(refused) == 3
    assert ledger.charged() == 320 <= 5 * 64 + 32
    # had the calls spent less than they reserved, the waiting ones would have fitted
    cheap = Ledger(BudgetSpec(total=5 * 64 + 32))
    held = [cheap.reserve("student", MESSAGES, 64, whole=True) for _ in range(5)]

    def settle_later() -> None:
        time.sleep(0.05)
        for tokens in held:
            cheap.settle("student", tokens, Usage(output_tokens=1))

    later = threading.Thread(target=settle_later)
    later.start()
    assert cheap.reserve("student", MESSAGES, 64, whole=True) == 64  # waited, then fitted
    assert cheap.charged() >= 1  # it returned only after a call in flight settled
    later.join()
