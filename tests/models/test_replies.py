"""The one lenient reader of JSON in model replies, with each former caller's cases."""

import pytest

from tether.models.replies import NoJSONError, first_json, json_values, strip_private_reasoning


def test_object_after_prose_and_fences_is_found():
    text = 'Sure.\n```json\n{"rationale": "r", "selected_index": 2}\n```\nDone.'
    assert first_json(text) == {"rationale": "r", "selected_index": 2}


def test_object_kind_skips_arrays_and_keeps_nesting_whole():
    # the selector's case: an array first, then nested objects
    assert first_json('[1, 2] {"a": {"b": 1}} {"c": 2}') == {"a": {"b": 1}}


def test_text_after_the_value_does_not_spoil_it():
    # a greedy first-{ to last-} match fails here; raw_decode does not
    assert first_json('{"checks": []} and then {"extra": "}"}') == {"checks": []}


def test_invalid_openers_are_skipped():
    assert first_json('use {x} or {"ok": true}') == {"ok": True}


def test_any_kind_takes_the_first_array_or_object():
    # critique's case: a bare list of defects, or an object holding one
    assert first_json('[{"cause": "x"}]', kind="any") == [{"cause": "x"}]
    assert first_json('note: {"defects": []} [1]', kind="any") == {"defects": []}


def test_fenced_blocks_come_before_the_rest_of_the_text():
    text = 'I considered [1, 2].\n```json\n[{"cause": "real"}]\n```'
    assert first_json(text, kind="any") == [1, 2]
    assert first_json(text, kind="any", fenced=True) == [{"cause": "real"}]


def test_array_kind():
    assert first_json('{"a": 1} then [3]', kind="array") == [3]


def test_thinking_is_dropped_when_asked():
    text = '<think>maybe {"selected_index": 0}</think> {"selected_index": 1}'
    assert first_json(text) == {"selected_index": 0}
    assert first_json(text, strip_think=True) == {"selected_index": 1}
    # an unclosed think block runs to the end: cut-off thinking is never the answer
    with pytest.raises(NoJSONError):
        first_json('{"a"<think>{"selected_index": 1}', strip_think=True)


def test_accept_skips_values_of_another_shape():
    # the reviewer's case: the {"issues": [...]} object, at any depth
    text = '{"note": {"x": 1}, "result": {"issues": ["a"]}}'
    assert first_json(text, accept=lambda v: "issues" in v) == {"issues": ["a"]}


def test_no_value_is_a_value_error_naming_the_kind():
    with pytest.raises(ValueError, match="no JSON object"):
        first_json("no json here")
    with pytest.raises(NoJSONError, match="no JSON array"):
        first_json('{"a": 1}', kind="array")
    with pytest.raises(NoJSONError, match="no JSON value"):
        first_json('"just a string" 3', kind="any")


def test_json_values_lists_every_candidate_in_order():
    assert list(json_values('{"a": {"b": 1}} [2]', kind="any")) == [
        {"a": {"b": 1}}, {"b": 1}, [2]]


def test_strip_private_reasoning():
    assert strip_private_reasoning(" a <think>x</think> b ") == "a  b"
    assert strip_private_reasoning("answer <think>never closed") == "answer"
