import random

import pytest

from tether.models.errors import RateLimited, ServerError
from tether.models.retry import Retryable, RetryPolicy, call_with_retries, parse_retry_after


def flaky(failures):
    state = {"calls": 0}

    def attempt():
        state["calls"] += 1
        if state["calls"] <= len(failures):
            raise failures[state["calls"] - 1]
        return "ok"

    return attempt, state


def test_retry_after_is_honoured_and_backoff_is_capped():
    waits = []
    attempt, state = flaky([Retryable(RateLimited("429"), 2.5), Retryable(ServerError("500"))])
    policy = RetryPolicy(max_attempts=5, base_delay_s=1, max_delay_s=4)
    assert call_with_retries(attempt, policy, sleep=waits.append) == "ok"
    assert state["calls"] == 3
    assert waits[0] == 2.5
    assert 0 <= waits[1] <= 2  # full jitter within base * 2**1


def test_gives_up_after_cap_with_the_final_error():
    waits = []
    attempt, state = flaky([Retryable(ServerError("boom"))] * 10)
    with pytest.raises(ServerError, match="boom"):
        call_with_retries(attempt, RetryPolicy(max_attempts=3), sleep=waits.append)
    assert state["calls"] == 3 and len(waits) == 2


def test_retry_after_beyond_limit_is_not_waited_for():
    attempt, state = flaky([Retryable(RateLimited("slow down"), 3600)])
    with pytest.raises(RateLimited):
        call_with_retries(attempt, RetryPolicy(max_retry_after_s=60), sleep=lambda s: None)
    assert state["calls"] == 1


def test_non_retryable_errors_pass_straight_through():
    attempt, state = flaky([ValueError("bad")])
    with pytest.raises(ValueError):
        call_with_retries(attempt, RetryPolicy(), sleep=lambda s: None)
    assert state["calls"] == 1


def test_delay_bounds():
    rng = random.Random(0)
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=3)
    assert all(0 <= policy.delay(a, None, rng) <= 3 for a in range(10))
    assert parse_retry_after("1.5") == 1.5 and parse_retry_after("Wed, 21 Oct") is None
