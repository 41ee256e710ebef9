"""Listwise selector: parse the first JSON object, retry with the error, fall back to 0."""

from __future__ import annotations

import pytest

from tether.context import TrialContext
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.strategies.selection import (
    SelectionParseError,
    first_json_object,
    parse_selection,
    select,
)
from tether.testing.scripted_models import ScriptedModel


def scripted_context(selector_script) -> TrialContext:
    spec = TrialSpec(suite="t", task_id="x", strategy="turn_bon",
                     models={"proposer": "scripted:[]", "selector": "scripted:[]"})
    task = Task(id="x", suite="t", prompt="p", metric="scripted_check")
    return TrialContext(spec, task, {"proposer": ScriptedModel([]),
                                     "selector": ScriptedModel(selector_script)})


def test_first_json_object_ignores_prose_and_fences():
    text = 'I think {not json} so:\n```json\n{"rationale": "r", "selected_index": 2}\n```'
    assert first_json_object(text) == {"rationale": "r", "selected_index": 2}
    assert first_json_object('[1, 2] {"a": {"b": 1}} {"c": 2}') == {"a": {"b": 1}}


def test_the_first_object_is_the_answer_even_if_a_later_one_differs():
    assert parse_selection('{"rationale": "a", "selected_index": 1} {"selected_index": 0}',
                           3) == (1, "a")


@pytest.mark.parametrize("text, fragment", [
    ("no json here", "no JSON object"),
    ('{"rationale": "x"}', "must be an integer"),
    ('{"selected_index": "1"}', "must be an integer"),
    ('{"selected_index": true}', "must be an integer"),
    ('{"selected_index": 5}', "out of range 0..2"),
    ('{"selected_index": -1}', "out of range"),
])
def test_unusable_answers_say_why(text, fragment):
    with pytest.raises(SelectionParseError, match=fragment):
        parse_selection(text, 3)


def test_private_reasoning_is_not_parsed():
    text = '<think>{"selected_index": 0}</think>{"rationale": "b", "selected_index": 2}'
    assert parse_selection(text, 3) == (2, "b")


def test_a_valid_first_answer_needs_one_call():
    ctx = scripted_context(['{"rationale": "runs the tests", "selected_index": 1}'])
    sel = select(ctx, "sys", "user", 3)
    assert (sel.index, sel.rationale, sel.failed) == (1, "runs the tests", False)
    assert len(ctx.calls) == 1 and ctx.calls[0].role == "selector"


def test_retry_shows_the_parse_error_and_then_succeeds():
    seen: list[list[dict]] = []

    def script(messages, info):
        seen.append(messages)
        return "I pick 1" if info.call_number == 0 else '{"rationale": "ok", "selected_index": 2}'

    ctx = scripted_context(script)
    sel = select(ctx, "sys", "user", 3)
    assert (sel.index, sel.failed) == (2, False)
    assert sel.errors == ["no JSON object found in the answer"]
    retry = seen[1]
    assert retry[-2] == {"role": "assistant", "content": "I pick 1"}
    assert "no JSON object found" in retry[-1]["content"]
    assert "0 to 2" in retry[-1]["content"]


def test_four_bad_answers_fall_back_to_candidate_zero_and_flag_it():
    ctx = scripted_context(['{"selected_index": 9}'] * 4 + ['{"selected_index": 1}'])
    sel = select(ctx, "sys", "user", 3)
    assert (sel.index, sel.failed) == (0, True)
    assert len(sel.replies) == 4 and len(ctx.calls) == 4  # one try plus three retries
    assert all("out of range" in e for e in sel.errors)


def test_a_selector_prompt_over_its_context_is_a_failed_selection_not_an_agent_error():
    from tether.models.errors import ContextLengthExceeded

    def script(messages, info):
        raise ContextLengthExceeded("selector prompt too long")

    ctx = scripted_context(script)
    sel = select(ctx, "sys", "user", 3)
    assert (sel.index, sel.failed, len(ctx.calls)) == (0, True, 1)
    # the rejected request is recorded (it was sent), with no usage and its error
    assert "ContextLengthExceeded" in (ctx.calls[0].error or "")
    assert "context length exceeded" in sel.errors[0]


def test_oracle_ranks_by_the_metric_first_on_ties():
    from tether.core.observation import Observation
    from tether.strategies.selection import by_oracle

    def obs(passed, score, error=None):
        return Observation(instrument="m", version="1", grounded=True, passed=passed,
                           score=score, error=error)

    metric = {0: obs(False, 0.5), 1: obs(True, 0.2), 2: obs(True, 0.9), 3: obs(True, 0.9)}
    assert by_oracle([0, 1, 2, 3], metric) == 2
    assert by_oracle([0, 1], {0: obs(None, None, "sandbox down"), 1: obs(False, 0.0)}) == 1
    assert by_oracle([4, 5], {}) == 4  # nothing scored: the first candidate


def test_majority_takes_the_largest_group_of_normalized_texts():
    from tether.strategies.selection import by_majority

    texts = {0: "y = 2", 1: "x=1", 2: "x = 1  # same", 3: "y=2", 5: "x = (1)"}
    assert by_majority("program", texts, [0, 1, 2, 3, 5]) == (1, {"majority_groups": [3, 2]})
    assert by_majority("text", {0: "a b", 1: "c", 2: " a  b"}, [1, 0, 2])[0] == 0
