"""The embedded default model generates real text with llama.cpp."""

import pytest

from tether.errors import ConfigError
from tether.models import ContextLengthExceeded, parse_model
from tether.models.base import GenerateParams

pytestmark = pytest.mark.llama

pytest.importorskip("llama_cpp")

PROMPT = [{"role": "user", "content": "Name one colour."}]


@pytest.fixture(scope="module")
def model():
    return parse_model("local/smollm2-135m")


def test_generates_real_text_with_provider_usage(model):
    (c,) = model.generate(PROMPT, GenerateParams.of(max_tokens=16, seed=1), role="proposer")
    assert c.text.strip()
    assert c.model_id == "local/smollm2-135m"
    assert c.usage.input_tokens > 5 and 0 < c.usage.output_tokens <= 16
    assert c.finish_reason in ("stop", "length")
    assert c.latency_s > 0


def test_same_seed_temperature_zero_is_reproducible(model):
    a = model.generate(PROMPT, GenerateParams.of(max_tokens=24, seed=7))[0].text
    b = model.generate(PROMPT, GenerateParams.of(max_tokens=24, seed=7))[0].text
    assert a == b


def test_n_samples_have_distinct_indices_and_seeds(model):
    out = model.generate(PROMPT, GenerateParams.of(max_tokens=12, temperature=1.0, seed=3), n=3)
    assert [c.sample_index for c in out] == [0, 1, 2]
    # Sample i is seeded with seed + i: asking for it alone reproduces it.
    (again,) = model.generate(PROMPT, GenerateParams.of(max_tokens=12, temperature=1.0, seed=4))
    assert again.text == out[1].text


def test_max_tokens_truncates(model):
    (c,) = model.generate([{"role": "user", "content": "Write a long story."}],
                          GenerateParams.of(max_tokens=4))
    assert c.usage.output_tokens <= 4
    assert c.finish_reason == "length"


def test_context_overflow_is_its_own_error():
    small = parse_model("local/smollm2-135m;n_ctx=256")
    with pytest.raises(ContextLengthExceeded):
        small.generate([{"role": "user", "content": "word " * 600}],
                       GenerateParams.of(max_tokens=8))


def test_image_parts_are_refused_clearly(model):
    msg = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]}]
    with pytest.raises(ConfigError, match="text model"):
        model.generate(msg, GenerateParams.of(max_tokens=4))


def test_missing_gguf_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        parse_model(f"local/{tmp_path}/nope.gguf")


def test_same_request_gives_same_reply_whatever_ran_before(model):
    # llama.cpp's prompt-prefix cache must not leak one request's state into the next:
    # a loop's draft has to equal the single-shot reply for the same request and seed.
    msgs = [{"role": "user", "content": "Write a Python function is_even(n)."}]
    other = [{"role": "user", "content": "Write a Python function is_odd(n)."}]
    (a,) = model.generate(msgs, GenerateParams.of(max_tokens=24, seed=3))
    model.generate(other, GenerateParams.of(max_tokens=24, seed=5))
    (b,) = model.generate(msgs, GenerateParams.of(max_tokens=24, seed=3))
    (c,) = model.generate(msgs, GenerateParams.of(max_tokens=24, seed=3))
    assert a.text == b.text == c.text
