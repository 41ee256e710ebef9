"""The OpenAI-compatible backend against a real llama.cpp server (llama-cpp-python's).

The server runs the embedded SmolLM2-135M GGUF on 127.0.0.1 with n_ctx=2048, so
every number checked here comes from a real tokenizer and a real model.
"""

from __future__ import annotations

import pytest

import tether.models.openai_backend as ob
from tests.models.llama_server import llama_server
from tether.models import ContextLengthExceeded, parse_model
from tether.models.base import GenerateParams
from tether.models.retry import call_with_retries

pytestmark = pytest.mark.llama

pytest.importorskip("llama_cpp.server.app")  # needs llama-cpp-python[server]

N_CTX = 2048
PROMPT = [{"role": "user", "content": "Name one colour."}]


@pytest.fixture(scope="module")
def server():
    with llama_server(N_CTX) as base:
        yield base


@pytest.fixture(scope="module")
def model(server):
    return parse_model(f"openai-compatible/smollm2@{server};timeout_s=60")


def test_real_generation_with_real_usage(model, server):
    (c,) = model.generate(PROMPT, GenerateParams.of(max_tokens=16, seed=1))
    assert c.text.strip()
    assert c.model_id == f"openai-compatible/smollm2@{server}"
    assert c.usage.input_tokens > 5
    assert 0 < c.usage.output_tokens <= 16
    assert c.finish_reason in ("stop", "length")
    assert c.latency_s > 0


def test_temperature_zero_same_seed_is_reproducible(model):
    a = model.generate(PROMPT, GenerateParams.of(max_tokens=24, temperature=0.0, seed=7))[0]
    b = model.generate(PROMPT, GenerateParams.of(max_tokens=24, temperature=0.0, seed=7))[0]
    assert a.text == b.text
    assert a.usage == b.usage


def test_n_two_gives_two_completions(model):
    out = model.generate(PROMPT, GenerateParams.of(max_tokens=12, temperature=0.8, seed=3), n=2)
    assert [c.sample_index for c in out] == [0, 1]
    assert all(c.text.strip() and c.usage.output_tokens > 0 for c in out)


def test_prompt_longer_than_context_is_context_length_exceeded(model, monkeypatch):
    retries: list[int] = []

    def counted(fn, policy, **kw):
        return call_with_retries(fn, policy, on_retry=lambda n, exc, wait: retries.append(n),
                                 **kw)

    monkeypatch.setattr(ob, "call_with_retries", counted)
    long_prompt = [{"role": "user", "content": "apple banana cherry " * 1200}]  # > 2048 tokens
    with pytest.raises(ContextLengthExceeded, match="context"):
        model.generate(long_prompt, GenerateParams.of(max_tokens=8))
    assert retries == []  # not retried: repeating it cannot help


def test_unknown_route_is_unknown_model(server):
    from tether.models import UnknownModelError

    bad = parse_model(f"openai-compatible/smollm2@{server}/nope;timeout_s=10")
    with pytest.raises(UnknownModelError):
        bad.generate(PROMPT, GenerateParams.of(max_tokens=4))
