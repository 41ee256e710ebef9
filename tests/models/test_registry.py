import json

import pytest

from tether.models import AuthenticationError, UnknownModelError, parse_model
from tether.models.openai_backend import OpenAICompatibleModel
from tether.testing import ScriptedModel


@pytest.mark.parametrize(
    "spec",
    ["nonsense", "local/", "local/llama-70b", "foo/bar", "openai-compatible/m@notaurl",
     "openai-compatible/noat", "openai/x;bogus=1", "openai/x;concurrency=many",
     "scripted:[not json", "scripted:nomodule_xyz:fn", "local/smollm2-135m;flag"],
)
def test_bad_specs_raise_unknown_model_with_message(spec, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(UnknownModelError) as info:
        parse_model(spec)
    assert str(info.value)


def test_openai_compatible_spec_parses_url_and_options():
    m = parse_model("openai-compatible/qwen3@http://127.0.0.1:9/v1;concurrency=2;timeout_s=3")
    assert isinstance(m, OpenAICompatibleModel)
    assert m.model == "qwen3" and m.base_url == "http://127.0.0.1:9/v1"
    assert m.model_id == "openai-compatible/qwen3@http://127.0.0.1:9/v1"


def test_openai_without_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY"):
        parse_model("openai/gpt-4o-mini")


def test_key_env_option_names_the_variable(monkeypatch):
    monkeypatch.setenv("MY_VLLM_KEY", "secret")
    m = parse_model("openai-compatible/m@http://127.0.0.1:9/v1;key_env=MY_VLLM_KEY")
    assert m._client.api_key == "secret"


@pytest.mark.parametrize("value", [None, ""])
def test_an_unset_key_variable_is_named_not_replaced(monkeypatch, value):
    # unset, the key used to become "not-needed" and the server's bare 401 named nothing
    if value is None:
        monkeypatch.delenv("MY_VLLM_KEY", raising=False)
    else:
        monkeypatch.setenv("MY_VLLM_KEY", value)
    spec = "openai-compatible/m@http://127.0.0.1:9/v1;price_in=1;price_out=2;key_env=MY_VLLM_KEY"
    with pytest.raises(AuthenticationError) as info:
        parse_model(spec)
    assert str(info.value) == ("no API key for openai-compatible/m@http://127.0.0.1:9/v1: "
                               "set MY_VLLM_KEY")
    # a local server named without a key variable takes none, as before
    assert parse_model("openai-compatible/m@http://127.0.0.1:9/v1")._client.api_key \
        == "not-needed"


def test_anthropic_without_key_is_a_clear_error(monkeypatch):
    pytest.importorskip("anthropic")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY"):
        parse_model("anthropic/claude-sonnet-4-5")


def test_scripted_forms(tmp_path):
    m = parse_model('scripted:["one", "two"]')
    assert isinstance(m, ScriptedModel)
    assert [c.text for c in m.generate([], n=2)] == ["one", "two"]
    f = tmp_path / "answers.json"
    f.write_text(json.dumps(["from file"]))
    assert parse_model(f"scripted:{f}").generate([])[0].text == "from file"
    fn = parse_model("scripted:tests.models.scripted_fixtures:echo_last")
    assert fn.generate([{"role": "user", "content": "ping"}])[0].text == "echo: ping"


@pytest.mark.parametrize(("spec", "needle"), [
    ("openai-compatible/m@http://127.0.0.1:9/v1;concurrency=0", "concurrency"),
    ("openai-compatible/m@http://127.0.0.1:9/v1;concurrency=-1", ">= 1"),
    ("openai-compatible/m@http://127.0.0.1:9/v1;timeout_s=-1", "timeout_s"),
    ("openai-compatible/m@http://127.0.0.1:9/v1;timeout_s=0", "> 0"),
    ("openai-compatible/m@http://127.0.0.1:9/v1;concurrency=2.5", "an integer"),
    ("local/smollm2-135m;n_threads=0", "n_threads"),
    ("local/smollm2-135m;n_ctx=-5", "n_ctx"),
])
def test_numeric_options_out_of_range_are_one_line_errors(spec, needle):
    from tether.models.errors import UnknownModelError
    from tether.models.registry import parse_model
    with pytest.raises(UnknownModelError, match=needle) as err:
        parse_model(spec)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("spec", "expected"), [
    ("openai-compatible/qwen3@http://127.0.0.1:9/v1;concurrency=2", True),
    ("openai/gpt-4o;price_in=2.5;price_out=10", True),
    ("anthropic/claude-x", True),
    ("local/smollm2-135m", False),
    ("scripted:[\"a\"]", None),  # a double says it per instance
    ("replay:calls.jsonl", None),  # a replay, from its recording
    ("nonsense", None),
    ("openai/x;concurrency=many", None),  # a bad spec: parse_model says why
])
def test_what_a_spec_will_accept_is_known_before_the_model_is_built(spec, expected):
    from tether.models import accepts_images, spec_accepts_images

    assert spec_accepts_images(spec) is expected
    if spec.startswith("openai-compatible"):  # builds without a key or a download
        assert accepts_images(parse_model(spec)) is expected  # what the built one says
