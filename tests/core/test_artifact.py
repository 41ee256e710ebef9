"""Code extraction from crafted model replies."""

from __future__ import annotations

import pytest

from tether.core.artifact import Truncated, extract_artifact, extract_program, strip_thinking

SNIPPET_THEN_PROGRAM = """The bug is in `x = total / count`: count may be zero.

```python
x = total / count
```

Here is the fixed function:

```python
def mean(values):
    return sum(values) / len(values) if values else 0.0
```
"""


def test_last_complete_block_that_defines_the_entry_point_wins():
    assert extract_program(SNIPPET_THEN_PROGRAM, "mean").startswith("def mean(values):")


def test_a_later_block_without_the_entry_point_does_not_win():
    reply = SNIPPET_THEN_PROGRAM + "\nUsage:\n```python\nprint(mean([1, 2]))\n```\n"
    assert extract_program(reply, "mean").startswith("def mean(values):")
    # Without an entry point the last block that parses wins.
    assert extract_program(reply) == "print(mean([1, 2]))\n"


def test_a_block_that_does_not_parse_loses_to_an_earlier_one_that_does():
    reply = ("```python\ndef f():\n    return 1\n```\n"
             "and the shape:\n```python\ndef f(:\n```\n")
    assert extract_program(reply, "f") == "def f():\n    return 1\n"


def test_non_python_blocks_are_passed_over():
    reply = "```python\ndef f():\n    return 2\n```\nrun it:\n```bash\npython f.py\n```\n"
    assert extract_program(reply) == "def f():\n    return 2\n"


def test_think_blocks_are_dropped():
    reply = ("<think>maybe ```python\ndef f(): return 0\n``` no</think>\n"
             "```python\ndef f():\n    return 1\n```")
    assert extract_program(reply, "f") == "def f():\n    return 1\n"


def test_unclosed_think_is_truncated():
    with pytest.raises(Truncated):
        extract_program("<think>let me consider the edge cases of ```python\ndef f", "f")
    assert strip_thinking("<think>still going") == ("", True)


def test_leading_close_think_without_open_drops_the_reasoning():
    body, open_think = strip_thinking("reasoning here</think>\nanswer")
    assert (body.strip(), open_think) == ("answer", False)


def test_unclosed_fence_without_complete_block_is_truncated():
    with pytest.raises(Truncated):
        extract_program("Here you go:\n```python\ndef f():\n    return", "f")


def test_length_stop_with_no_fitting_block_is_truncated():
    reply = "The fix:\n```python\nx = 1\n```\nNow the full program:\n```python\ndef f():\n"
    with pytest.raises(Truncated):
        extract_program(reply, "f", finish_reason="length")


def test_length_stop_keeps_a_complete_fitting_block():
    reply = "```python\ndef f():\n    return 1\n```\nExplanation: the function retu"
    assert extract_program(reply, "f", finish_reason="length") == "def f():\n    return 1\n"


def test_length_stop_without_any_fence_is_truncated():
    with pytest.raises(Truncated):
        extract_program("def f():\n    return", finish_reason="length")


def test_reply_without_fences_is_taken_whole():
    assert extract_program("def f():\n    return 3\n") == "def f():\n    return 3"


def test_falls_back_to_last_complete_block_when_none_parses():
    reply = "```python\ndef f(:\n```\n```python\ndef g(:\n```"
    assert extract_program(reply, "f") == "def g(:\n"


def test_entry_point_may_be_a_class_assignment_or_import():
    assert extract_program("```python\nclass Stack:\n    pass\n```", "Stack")
    assert extract_program("```\nf = lambda: 1\n```\n", "f") == "f = lambda: 1\n"
    reply = "```python\nfrom math import sqrt as f\n```\n```python\nprint(1)\n```"
    assert extract_program(reply, "f") == "from math import sqrt as f\n"


def test_extract_artifact_keeps_its_signature_and_html_behaviour():
    art = extract_artifact("program", SNIPPET_THEN_PROGRAM, finish_reason="stop")
    assert art.kind == "program" and art.text.startswith("def mean")
    art = extract_artifact("program", SNIPPET_THEN_PROGRAM, entry_point="mean")
    assert art.text.startswith("def mean")
    html = extract_artifact("html", "```html\n<p>a</p>\n```\n```html\n<p>b</p>\n```")
    assert html.text == "<p>b</p>\n"
    with pytest.raises(Truncated):
        extract_artifact("html", "```html\n<p>a", finish_reason="length")
    assert extract_artifact("text", "<think>x</think> hello").text == "hello"
