"""A model call has a deadline for the whole call (connect and every byte), apart from the
per-read timeout: a reply that trickles or never ends is a timeout error of the call,
not retried. Against the local scripted server (tests/models/conftest.py)."""

from __future__ import annotations

import pytest

from tether.models import EndpointUnreachable, UnknownModelError, parse_model
from tether.models.base import GenerateParams
from tether.models.openai_backend import OpenAICompatibleModel
from tether.models.retry import RetryPolicy

MSG = [{"role": "user", "content": "hi"}]
RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02)


def model(server, **kw) -> OpenAICompatibleModel:
    # each read may wait 5 s: a byte every 0.1 s never trips it; the call's deadline does
    return OpenAICompatibleModel("fake", base_url=server.base_url, key_env=None,
                                 timeout_s=5.0, retry=RETRY, **kw)


@pytest.mark.parametrize("step", [{"trickle": 0.1}, {"endless": True}])
def test_a_reply_that_never_ends_is_a_timeout_of_the_call(fault_server, step):
    fault_server.script = [step]
    with pytest.raises(EndpointUnreachable) as info:
        model(fault_server, deadline_s=1.0).generate(MSG, GenerateParams(max_tokens=16))
    assert "no complete reply within the call's deadline of 1s" in str(info.value)
    assert len(fault_server.requests) == 1  # not retried: the next try would trickle too


def test_a_prompt_reply_is_untouched_by_the_deadline(fault_server):
    fault_server.script = [{"text": "fine"}]
    (c,) = model(fault_server, deadline_s=5.0).generate(MSG, GenerateParams(max_tokens=16))
    assert c.text == "fine"


def test_the_default_deadline_scales_with_what_a_call_may_generate():
    m = OpenAICompatibleModel("fake", base_url="http://127.0.0.1:9/v1", key_env=None,
                              timeout_s=120.0)
    short = m.call_deadline_s(GenerateParams(max_tokens=64))
    reasoning = m.call_deadline_s(GenerateParams(max_tokens=1024, thinking_budget=15360))
    assert short >= 120 and reasoning >= 120 + 16384 / 20  # 20 tokens a second fit
    assert OpenAICompatibleModel("fake", base_url="http://127.0.0.1:9/v1", key_env=None,
                                 deadline_s=30).call_deadline_s(GenerateParams()) == 30


def test_the_spec_sets_the_deadline_and_refuses_a_bad_one():
    m = parse_model("openai-compatible/x@http://127.0.0.1:9/v1;deadline_s=45")
    assert isinstance(m, OpenAICompatibleModel) and m.deadline_s == 45
    for bad in ("0", "-1", "inf", "soon"):
        with pytest.raises(UnknownModelError, match="deadline_s"):
            parse_model(f"openai-compatible/x@http://127.0.0.1:9/v1;deadline_s={bad}")
