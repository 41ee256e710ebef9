"""The one `name;key=value` parser and its typing rule, as instruments and models use it."""

import pytest

from tether.errors import ConfigError
from tether.instruments.base import parse_spec as instrument_spec
from tether.models.errors import UnknownModelError
from tether.models.registry import _split_options
from tether.specs import parse_spec, parse_value


def test_values_are_json_when_they_parse_else_text():
    name, options = parse_spec(' execution ; checks=visible;n=4;t=2.5;on=true;w=[1,2];'
                               'url=http://h:1/v1?a=b; key =x ;z="1"')
    assert name == "execution"
    assert options == {"checks": "visible", "n": 4, "t": 2.5, "on": True, "w": [1, 2],
                       "url": "http://h:1/v1?a=b", "key": "x ", "z": "1"}
    assert parse_value("null") is None and parse_value("04") == "04"


@pytest.mark.parametrize("spec", ["x;flag", "x;=1", "x; =1"])
def test_an_option_without_key_or_value_names_itself_and_the_spec(spec):
    with pytest.raises(ConfigError, match="bad option") as err:
        parse_spec(spec, what="instrument spec")
    assert "instrument spec" in str(err.value) and "name;key=value" in err.value.hint


def test_instruments_read_the_shared_typing_rule():
    assert instrument_spec("critique;model=local/smollm2-135m;max_tokens=64") == (
        "critique", {"model": "local/smollm2-135m", "max_tokens": 64})


def test_models_type_each_option_from_the_shared_parse():
    head, options = _split_options("openai/m;concurrency=4;timeout_s=3;reasoning=yes;"
                                   "key_env=MY_KEY;n_ctx=0512")
    assert head == "openai/m"
    assert options == {"concurrency": 4, "timeout_s": 3.0, "reasoning": True,
                       "key_env": "MY_KEY", "n_ctx": 512}
    assert isinstance(options["timeout_s"], float)
    assert _split_options("x/y;reasoning=false;key_env=123")[1] == {
        "reasoning": False, "key_env": "123"}
    assert _split_options("x/y;reasoning=1")[1] == {"reasoning": True}


@pytest.mark.parametrize("spec", ["x/y;concurrency=many", "x/y;concurrency=2.5",
                                  "x/y;timeout_s=true", "x/y;flag"])
def test_models_refuse_badly_typed_options_as_unknown_model(spec):
    with pytest.raises(UnknownModelError):
        _split_options(spec)
