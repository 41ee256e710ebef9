"""The scripted teachers' docs variants (test doubles) are admissible harnesses, and v3's
parser reads a sentence reply as its author meant."""

from __future__ import annotations

from tether.systems.compile.admissibility import check_harness
from tether.systems.compile.setting import get_setting
from tether.testing.scripted_teacher import (
    _DOCS_ROUTE,
    _DOCS_SENTENCE_PARSE,
    VARIANTS,
)

OCR = "ACME Supplies\nReceipt R-23551\nDate 2021-11-15\nSubtotal $40.00\nTotal $43.20\n"


def _parse(reply: str, question: str) -> str:
    # the hook sources share one module (runtime manual); the sandbox is not the point here
    module: dict = {}
    exec(_DOCS_ROUTE + "\n" + _DOCS_SENTENCE_PARSE, module)  # noqa: S102 - our own source
    return module["parse"](reply, {"question": question, "ocr": OCR})


def test_v3_returns_the_fact_a_sentence_repeats() -> None:
    assert _parse("The total amount is $43.20, as shown.", "What is the total?") == "$43.20"
    assert _parse("Answer: The receipt number is R-23551.",
                  "What is the receipt number?") == "R-23551"


def test_v3_falls_back_to_the_sentence_predicate() -> None:
    # no fact for this question: the predicate of the first sentence, not the sentence
    assert _parse("The company name is ACME Supplies. It sells paper.",
                  "Who issued the receipt?") == "ACME Supplies"
    assert _parse("Blue", "What colour is the logo?") == "Blue"


def test_every_docs_variant_but_the_broken_ones_is_admissible() -> None:
    setting = get_setting("docs")
    for name in ("v1", "v2", "v3", "tied"):
        report = check_harness(VARIANTS["docs"][name], setting, seed=0, sizes={})
        assert report.admissible, (name, report.violations)
