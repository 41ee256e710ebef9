"""Prices from model spec options and price tables; an unknown price is never a 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.models.errors import UnknownModelError
from tether.models.pricing import (
    Price,
    PriceBook,
    load_price_table,
    model_id_of,
    model_name,
    split_price,
)
from tether.models.registry import parse_model


@pytest.mark.parametrize("spec", [
    "openai/gpt-4o-mini;timeout_s=5;price_in=0.15;price_out=0.6",
    "openai/gpt-4o-mini;price_in=0.15;price_out=0.6;timeout_s=5",
    "openai/gpt-4o-mini;price_out=0.6;timeout_s=5;price_in=0.15",
])
def test_price_options_are_split_off_wherever_they_stand(spec):
    assert split_price(spec) == ("openai/gpt-4o-mini;timeout_s=5", Price(0.15, 0.6))


def test_a_scripted_body_keeps_its_semicolons():
    # a scripted body may hold `;` inside its JSON: only trailing price options are taken
    body = 'scripted:["a;b"]'
    assert split_price(body + ";price_out=2;price_in=1") == (body, Price(1.0, 2.0))
    assert split_price(body) == (body, None)
    assert split_price('scripted:["price_in=1;x"]') == ('scripted:["price_in=1;x"]', None)


@pytest.mark.parametrize(("spec", "model_id"), [
    ("openai-compatible/q@http://h:1/v1;key_env=K;price_in=1;price_out=2",
     "openai-compatible/q@http://h:1/v1"),
    ("openai-compatible/q@http://h:1/v1;price_in=1;price_out=2;timeout_s=20",
     "openai-compatible/q@http://h:1/v1"),
    ("anthropic/claude;base_url=http://proxy;price_in=3;price_out=15", "anthropic/claude"),
    ("local/smollm2-135m;n_ctx=512", "local/smollm2-135m"),
    ('scripted:["hi"];price_in=1;price_out=2', 'scripted:["hi"]'),
    ('scripted:["' + "x" * 80 + '"]', ('scripted:["' + "x" * 80)[:60]),
    ("replay:calls.sqlite;price_in=1;price_out=1", "replay:calls.sqlite"),
])
def test_a_price_attaches_to_the_model_id_its_calls_are_recorded_under(spec, model_id):
    assert model_id_of(spec) == model_id
    if "price_in" in spec:
        assert PriceBook(specs=[spec]).price(model_id) == split_price(spec)[1]


def test_the_model_id_is_the_one_a_backend_records(monkeypatch):
    monkeypatch.setenv("TETHER_TEST_KEY", "sk-test")
    for spec in ("openai-compatible/q@http://127.0.0.1:9/v1;price_in=1;price_out=2;"
                 "key_env=TETHER_TEST_KEY;timeout_s=20",
                 'scripted:["' + "y" * 90 + '"];price_in=1;price_out=2'):
        assert parse_model(spec).model_id == model_id_of(spec)


@pytest.mark.parametrize("spec, needle", [
    ("openai/x;price_in=1", "price_out is missing"),
    ("openai/x;price_in=-1;price_out=1", "price_in must be a number"),
    ("openai/x;price_in=cheap;price_out=1", "price_in must be a number"),
])
def test_a_bad_price_is_one_clear_error(spec, needle):
    with pytest.raises(ConfigError, match=needle):
        split_price(spec)
    with pytest.raises(UnknownModelError, match=needle):
        parse_model(spec)


def test_a_priced_spec_builds_the_same_model_with_the_same_id():
    model = parse_model('scripted:["hi"];price_in=1;price_out=2')
    assert model.model_id == 'scripted:["hi"]'
    assert model.generate([{"role": "user", "content": "x"}])[0].text == "hi"


def test_book_prefers_the_spec_then_the_table_by_id_then_by_bare_name():
    book = PriceBook({"gpt-4o-mini": Price(1, 1), "openai/o3": Price(2, 8)},
                     specs=["openai/gpt-4o-mini;price_in=0.15;price_out=0.6", "openai/o3"])
    assert book.price("openai/gpt-4o-mini") == Price(0.15, 0.6)
    assert book.price("openai/o3") == Price(2, 8)
    assert PriceBook({"qwen": Price(1, 2)}).price("openai-compatible/qwen@http://h:1/v1") \
        == Price(1, 2)
    assert book.price("local/smollm2-135m") is None
    assert model_name("openai-compatible/qwen@http://h:1/v1") == "qwen"
    assert Price(1.0, 4.0).cost(1_000_000, 500_000) == pytest.approx(3.0)


def test_price_tables_in_toml_and_json(tmp_path: Path):
    toml = tmp_path / "p.toml"
    toml.write_text('["openai/gpt-4o-mini"]\nprice_in = 0.15\nprice_out = 0.6\n')
    assert load_price_table(toml) == {"openai/gpt-4o-mini": Price(0.15, 0.6)}
    js = tmp_path / "p.json"
    js.write_text('{"o3": {"price_in": 2, "price_out": 8}}')
    assert load_price_table(js) == {"o3": Price(2.0, 8.0)}
    js.write_text('{"o3": {"price_in": 2, "cents": 8}}')
    with pytest.raises(ConfigError, match="expected only price_in and price_out"):
        load_price_table(js)
    with pytest.raises(ConfigError, match="cannot read"):
        load_price_table(tmp_path / "missing.toml")
