"""Compile configs: every numeric field range-checked, one line naming it."""

from __future__ import annotations

import pytest

from tether.errors import ConfigError
from tether.systems.compile.compiler.config import config_from_fields

BASE = {"setting": "toy", "teacher": "scripted:[]", "student": "scripted:[]", "out": "o"}


@pytest.mark.parametrize(("field", "value", "says"), [
    ("teacher_temperature", float("inf"), "finite number"),
    ("teacher_temperature", float("nan"), "finite number"),
    ("teacher_temperature", -1.0, "greater than or equal to 0"),
    ("probe", 0, "greater than or equal to 1"),
    ("teacher_max_tokens", 0, "greater than or equal to 1"),
    ("builds", -1, "greater than or equal to 1"),
    ("rounds", -1, "greater than or equal to 0"),
])
def test_numeric_fields_out_of_range_are_one_line_errors(field, value, says):
    with pytest.raises(ConfigError) as info:
        config_from_fields(**BASE, **{field: value})
    assert f"tether compile: {field}: " in str(info.value) and says in str(info.value)
    assert "\n" not in str(info.value)
