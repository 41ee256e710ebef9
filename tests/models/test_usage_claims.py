"""A provider's usage is a claim: a call is charged at most what its request allowed, an
impossible claim (over the allowance, negative, absent) is charged a local count and
flagged on the call record, its cost unknown; a call that failed after it was sent is
recorded. Against a real local OpenAI-compatible server (tests/models/conftest.py)."""

from __future__ import annotations

import pytest

from tether.context.calls import charged_generate
from tether.core.budget import BudgetExhausted, BudgetSpec, Ledger
from tether.models import CallRecord, PriceBook, ServerError, Usage
from tether.models.base import GenerateParams
from tether.models.openai_backend import OpenAICompatibleModel
from tether.models.retry import RetryPolicy
from tether.runs.costs import call_cost

MSG = [{"role": "user", "content": "hi"}]
FAST = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02)
PRICED = PriceBook(specs=["fake-id;price_in=1;price_out=2"])


def model(server) -> OpenAICompatibleModel:
    return OpenAICompatibleModel("fake", base_url=server.base_url, key_env=None, timeout_s=5.0,
                                 retry=FAST, spec="fake-id")


def test_a_server_claiming_100k_tokens_is_charged_at_most_what_was_asked(fault_server):
    fault_server.script = [{"text": "short answer", "usage": {
        "prompt_tokens": 9, "completion_tokens": 100_000, "total_tokens": 100_009}}]
    ledger = Ledger(BudgetSpec(total=300))
    log: list[CallRecord] = []
    calls = 0
    with pytest.raises(BudgetExhausted):
        for _ in range(50):
            charged_generate(ledger, log, model(fault_server), "proposer", MSG,
                             GenerateParams(max_tokens=64), n=2)
            calls += 1
    assert calls >= 2 and len(log) == 2 * calls
    for rec in log:
        assert rec.usage_flag == "over_limit" and rec.claimed_usage.output_tokens == 100_000
        allowed = rec.params["max_tokens"] + (rec.params["thinking_budget"] or 0)
        assert 0 < rec.usage.output_tokens <= allowed <= 64
        assert call_cost(rec, PRICED) is None  # what the provider bills cannot be known
    assert ledger.charged() <= 300 and ledger.charged() == sum(r.usage.output_tokens
                                                                for r in log)


def test_missing_usage_is_an_unknown_cost_and_reported_usage_a_known_one(fault_server):
    fault_server.script = [{"text": "four words in here", "usage": None}]
    missing: list[CallRecord] = []
    charged_generate(None, missing, model(fault_server), "proposer", MSG,
                     GenerateParams(max_tokens=64))
    (rec,) = missing
    assert rec.usage_flag == "missing" and rec.claimed_usage is None
    assert rec.usage.output_tokens == 9 and rec.usage.input_tokens > 0  # the local count
    assert call_cost(rec, PRICED) is None
    fault_server.script = [{}]  # the default usage: 11 in, 7 out
    reported: list[CallRecord] = []
    charged_generate(None, reported, model(fault_server), "proposer", MSG,
                     GenerateParams(max_tokens=64))
    (ok,) = reported
    assert ok.usage_flag is None and ok.usage == Usage(11, 7, 0)
    assert call_cost(ok, PRICED) == pytest.approx((11 * 1 + 7 * 2) / 1e6)


def test_a_call_that_failed_after_it_was_sent_is_recorded(fault_server):
    fault_server.script = [{"status": 500}]
    ledger = Ledger(BudgetSpec(total=1000))
    log: list[CallRecord] = []
    with pytest.raises(ServerError):
        charged_generate(ledger, log, model(fault_server), "proposer", MSG,
                         GenerateParams(max_tokens=64))
    assert len(fault_server.requests) == FAST.max_attempts
    (rec,) = log
    assert rec.error and "ServerError" in rec.error and rec.usage == Usage()
    assert call_cost(rec, PRICED) is None and ledger.charged() == 0


def test_the_answered_samples_of_a_failed_call_are_recorded_and_charged(fault_server):
    # sample 0 answers, sample 1 (seed + 1) keeps failing
    fault_server.by_seed = {5: {"text": "fine"}, 6: {"status": 500}}
    ledger = Ledger(BudgetSpec(total=1000))
    log: list[CallRecord] = []
    with pytest.raises(ServerError):
        charged_generate(ledger, log, model(fault_server), "proposer", MSG,
                         GenerateParams(max_tokens=64, seed=5), n=2)
    by_index = {r.sample_index: r for r in log}
    assert set(by_index) == {0, 1}
    assert by_index[0].error is None and by_index[0].output == "fine"
    assert by_index[1].error is not None
    assert ledger.charged() == by_index[0].usage.output_tokens == 7
