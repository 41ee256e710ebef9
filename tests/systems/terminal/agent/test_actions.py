"""Parsing replies into one bash action, observations, the finish marker."""

from __future__ import annotations

import json

import pytest

from tether.systems.terminal.agent.actions import (
    FINISH_MARKER,
    FormatError,
    elide,
    is_submission,
    observation_json,
    parse_action,
    strip_private_reasoning,
)


def test_one_fenced_bash_block_is_the_action():
    action = parse_action("I will list files.\n```bash\nls -la /app\n```\n")
    assert action.command == "ls -la /app"
    assert action.form == "fenced"


def test_other_languages_do_not_count_as_actions():
    text = "```python\nprint(1)\n```\n```bash\ncat a.txt\n```"
    assert parse_action(text).command == "cat a.txt"


@pytest.mark.parametrize("text, fragment", [
    ("no block at all", "no ```bash block"),
    ("```bash\nls\n```\nthen\n```bash\npwd\n```", "2 ```bash blocks"),
    ("```bash\n\n```", "empty"),
])
def test_format_errors_say_what_is_wrong(text, fragment):
    with pytest.raises(FormatError) as exc:
        parse_action(text)
    assert fragment in str(exc.value)


def test_a_block_inside_private_reasoning_is_not_an_action():
    with pytest.raises(FormatError):
        parse_action("<think>maybe\n```bash\nrm -rf /app\n```\n</think>I am not sure.")
    assert parse_action("<think>```bash\nx\n```</think>\n```bash\nls\n```").command == "ls"


def test_an_unclosed_think_block_hides_the_rest():
    assert strip_private_reasoning("answer <think>never closed ```bash\nls\n```") == "answer"


def test_a_reply_cut_off_by_the_token_limit_says_so():
    with pytest.raises(FormatError, match="cut off"):
        parse_action("Let me look\n```bash\nls -", finish_reason="length")


def test_tool_call_written_as_text():
    call = json.dumps({"name": "bash", "arguments": {"command": "make test"}})
    action = parse_action(f"<tool_call>{call}</tool_call>")
    assert (action.command, action.form) == ("make test", "tool_call")
    twice = json.dumps({"name": "bash", "arguments": json.dumps({"command": "ls"})})
    assert parse_action(f"<tool_call>{twice}</tool_call>").command == "ls"


@pytest.mark.parametrize("body", ['{"name": "python", "arguments": {"command": "x"}}',
                                  '{"name": "bash", "arguments": {}}', "{not json"])
def test_bad_tool_calls_are_format_errors(body):
    with pytest.raises(FormatError):
        parse_action(f"<tool_call>{body}</tool_call>")


def test_short_output_is_shown_whole():
    row = json.loads(observation_json(0, "hello\n"))
    assert row == {"returncode": 0, "output": "hello\n"}


def test_long_output_is_head_and_tail_with_the_elided_count():
    output = "H" * 6000 + "M" * 5000 + "T" * 6000
    row = json.loads(observation_json(1, output, limit=10_000))
    assert row["returncode"] == 1
    assert row["elided_chars"] == 7000
    assert row["output"].startswith("H" * 5000)
    assert row["output"].endswith("T" * 5000)
    assert "[... 7000 characters elided ...]" in row["output"]
    assert "M" not in row["output"]


def test_output_the_environment_already_cut_is_not_cut_again():
    capped = "a" * 5000 + "\n... [900 characters elided] ...\n" + "b" * 5000
    row = json.loads(observation_json(0, capped, limit=10_000, already_elided=900,
                                      timed_out=True))
    assert row["output"] == capped
    assert row["elided_chars"] == 900
    assert row["timed_out"] is True


def test_elide_keeps_exactly_limit_characters_of_the_output():
    text, n = elide("x" * 10_001, 10_000)
    assert n == 1 and text.count("x") == 10_000


def test_finish_marker_must_be_the_first_line_alone():
    assert is_submission(f"{FINISH_MARKER}\n")
    assert is_submission(f"\n  {FINISH_MARKER}  \nmore")
    assert not is_submission(f"done {FINISH_MARKER}")
    assert not is_submission(f"building...\n{FINISH_MARKER}")
    assert not is_submission("")


def test_text_tool_call_with_a_raw_newline_in_the_command():
    from tether.systems.terminal.agent.actions import parse_action

    text = '<tool_call>{"name": "bash", "arguments": {"command": "ls\npwd"}}</tool_call>'
    assert parse_action(text).command == "ls\npwd"
