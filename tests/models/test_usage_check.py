"""The usage check itself: which claims are taken, and the local count charged instead."""

from __future__ import annotations

import pytest

from tether.models import Completion, Usage
from tether.models.base import GenerateParams
from tether.models.usage_check import check_usage, estimate_output_tokens

MSG = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("usage, reported, flag", [
    (Usage(10, 5, 0), True, None),
    (Usage(10, 64, 0), True, None),
    (Usage(10, 65, 0), True, "over_limit"),
    (Usage(10, 40, 30), True, "over_limit"),
    (Usage(-1, 5, 0), True, "negative"),
    (Usage(10, -5, 0), True, "negative"),
    (Usage(), False, "missing"),
])
def test_a_claim_is_taken_only_when_possible(usage, reported, flag):
    c = Completion(text="x" * 300, usage=usage, usage_reported=reported)
    checked = check_usage(c, MSG, GenerateParams(max_tokens=64))
    assert checked.flag == flag
    if flag is None:
        assert checked.usage == usage and checked.claimed is None
    else:
        # the local count: 2 characters a token, never over what the request allowed
        assert checked.usage.output_tokens == min(estimate_output_tokens(c), 64) == 64
        assert checked.usage.input_tokens > 0 and checked.usage.reasoning_tokens == 0
        assert checked.claimed == (None if flag == "missing" else usage)


def test_thinking_counts_toward_the_allowance():
    c = Completion(text="ok", usage=Usage(1, 10, 50))
    assert check_usage(c, MSG, GenerateParams(max_tokens=16, thinking_budget=48)).flag is None
    assert check_usage(c, MSG, GenerateParams(max_tokens=16, thinking_budget=40)).flag == \
        "over_limit"
