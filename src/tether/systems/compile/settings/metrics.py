"""The settings' metrics: ANLS (DocVQA), exact match (SlideVQA), relaxed exact match
(InfoSeek) and accuracy (BLINK). Each takes one answer and the gold list and returns the
best score over the gold list, in [0, 1]."""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence

_PUNCT = re.compile(f"[{re.escape(string.punctuation)}]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def anls_normalize(text: str) -> str:
    """DocVQA's normalization: case-folded, whitespace collapsed and stripped."""
    return " ".join(str(text).casefold().split())


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute all cost 1), two-row dynamic program."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def anls(answer: str, golds: Sequence[str], threshold: float = 0.5) -> float:
    """Average Normalized Levenshtein Similarity for one item: max over gold answers of
    1 - NL when NL < threshold, else 0 (NL exactly at the threshold scores 0). Two empty
    strings are identical (NL 0, score 1); an empty answer to a non-empty gold scores 0."""
    pred = anls_normalize(answer)
    best = 0.0
    for gold in golds:
        ref = anls_normalize(gold)
        longest = max(len(pred), len(ref))
        nl = 0.0 if longest == 0 else levenshtein(pred, ref) / longest
        if nl < threshold:
            best = max(best, 1.0 - nl)
    return best


def normalize_answer(text: str) -> str:
    """SQuAD-style normalization: accents folded, case-folded, punctuation and articles
    dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = _PUNCT.sub(" ", text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(answer: str, golds: Sequence[str]) -> float:
    """1.0 when the normalized answer equals a normalized gold answer."""
    pred = normalize_answer(answer)
    return float(any(pred == normalize_answer(g) for g in golds))


def accuracy(answer: str, golds: Sequence[str]) -> float:
    """Accuracy on closed answer sets (BLINK-like): normalized exact match."""
    return exact_match(answer, golds)


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").strip()
    try:
        return float(cleaned)
    except ValueError:
        return None


def relaxed_exact_match(answer: str, golds: Sequence[str]) -> float:
    """InfoSeek-style relaxed match: normalized exact match against any gold alias, and
    numeric answers compared as numbers (so the ISO numeric code "004" matches "4")."""
    if exact_match(answer, golds):
        return 1.0
    pred = _number(answer)
    if pred is None:
        return 0.0
    return float(any(_number(g) == pred for g in golds))
