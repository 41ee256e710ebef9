"""The reviewer's JSON defect list: prompt and tolerant parsing."""

from __future__ import annotations

from tether.strategies.review import parse_review, reviewer_messages


def test_parses_plain_fenced_and_wrapped_json():
    plain = '{"issues": [{"location": "f", "cause": "off by one", "change": "use <="}]}'
    for text in (plain, f"Sure!\n```json\n{plain}\n```\nDone.", f"Review: {plain} end"):
        review = parse_review(text)
        assert review.parsed and len(review.issues) == 1
        assert review.issues[0].change == "use <="
    assert "1. [f] off by one -> change: use <=" in parse_review(plain).for_proposer()


def test_accepts_a_bare_list_and_string_items_and_skips_empty_ones():
    review = parse_review('[{"cause": "x"}, "also y", {"location": "z"}, 3]')
    assert review.parsed and [i.cause for i in review.issues] == ["x", "also y"]


def test_unparseable_reply_keeps_its_text_for_the_proposer():
    review = parse_review("The loop never ends because i is not incremented.")
    assert not review.parsed and review.issues == []
    assert "never ends" in review.for_proposer()
    assert parse_review('{"issues": "none"}').parsed is False


def test_issues_object_wins_over_an_earlier_array_and_trailing_braces():
    text = 'Looked at lines [3, 4]. {"issues": [{"cause": "x"}]} (schema: {...})'
    review = parse_review(text)
    assert review.parsed and [i.cause for i in review.issues] == ["x"]


def test_empty_issue_list_is_parsed():
    review = parse_review('{"issues": []}')
    assert review.parsed and review.for_proposer() == "The reviewer named no specific issue."


def test_reviewer_messages_are_a_fresh_context():
    messages = reviewer_messages("Do X.", "```python\nx\n```", "")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "Evidence" not in messages[1]["content"]
    assert "Evidence:\nboom" in reviewer_messages("Do X.", "p", "boom")[1]["content"]
