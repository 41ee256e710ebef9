"""The settings' metrics, ANLS edge cases included."""

from __future__ import annotations

import pytest

from tether.systems.compile.settings.metrics import (
    accuracy,
    anls,
    exact_match,
    levenshtein,
    relaxed_exact_match,
)


def test_levenshtein_counts_edits() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("abc", "abc") == 0


def test_anls_exact_partial_and_best_gold() -> None:
    assert anls("$1,234.50", ["$1,234.50"]) == 1.0
    # one edit in ten characters: NL 0.1 -> 0.9
    assert anls("1,234.5O", ["1,234.50"]) == pytest.approx(1 - 1 / 8)
    assert anls("1234.50", ["$1,234.50", "1234.50"]) == 1.0


def test_anls_case_and_whitespace_are_normalized() -> None:
    assert anls("  NORTHWIND   traders ", ["Northwind Traders"]) == 1.0


def test_anls_empty_strings() -> None:
    assert anls("", [""]) == 1.0
    assert anls("", ["12.50"]) == 0.0
    assert anls("12.50", [""]) == 0.0
    assert anls("anything", []) == 0.0


def test_anls_threshold_boundary() -> None:
    # "abcd" vs "abxy": NL = 2/4 = 0.5 exactly -> scored 0 (strictly below the threshold)
    assert anls("abcd", ["abxy"]) == 0.0
    # "abcd" vs "abcy": NL = 0.25 -> 0.75
    assert anls("abcd", ["abcy"]) == pytest.approx(0.75)
    # just under the threshold: 4 edits in 9 chars, NL 0.444 -> 0.556
    assert anls("abcdefghi", ["abcdewxyz"]) == pytest.approx(1 - 4 / 9)
    assert anls("abcd", ["abxy"], threshold=0.6) == pytest.approx(0.5)


def test_exact_match_normalizes_punctuation_articles_accents() -> None:
    assert exact_match("The Circle.", ["circle"]) == 1.0
    assert exact_match("São Tomé", ["Sao Tome"]) == 1.0
    assert exact_match("circles", ["circle"]) == 0.0
    assert accuracy("Yes", ["yes"]) == 1.0
    assert accuracy("no", ["yes"]) == 0.0


def test_relaxed_match_compares_numbers_as_numbers() -> None:
    assert relaxed_exact_match("4", ["004"]) == 1.0
    assert relaxed_exact_match("1,000", ["1000"]) == 1.0
    assert relaxed_exact_match("5", ["004"]) == 0.0
    assert relaxed_exact_match("italian republic", ["Italian Republic", "Italy"]) == 1.0
    assert relaxed_exact_match("Italia", ["Italian Republic"]) == 0.0
