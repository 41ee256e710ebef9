r"""The hard-coded-answer audit (admissibility check 3; after a freeze, on test gold).

Every string literal of the hooks (f-string parts included), the value of every
constant expression in them (constant_fold.py: `"siraP"[::-1]`, joins,
`'R-' + str(23550 + 1)`) and every prompt text is searched for the setting's
inventory entity names and the gold answers of the given items. Matching is
case-folded on whole words, except for short upper-case codes (ISO alpha-2 and
alpha-3, like `IN`, `NO`, `CAN`): those count only as standalone
upper-case tokens, so ordinary prose ("can", "no", "in") passes. The setting's public
vocabulary (answer options the task itself names) is exempt.

Short numbers are not answers by themselves: a term that is a number (digits with
separators, sign, currency or percent) counts only with at least MIN_NUMBER_DIGITS (3)
digits, so "Answer in 1 to 3 words" or the regex `\d{3}` pass although "3" is a gold
answer, while "23551", "R-23551" or "1,204.50" are still found.

What reaches the teacher is one fixed sentence, `REFUSAL`, whatever was found and
wherever: no term, no item, no place, no count. A refusal that named the place or the
term (even only for probe gold) would read differently depending on which of the
teacher's strings were held-out answers, and so tell it which were; the teacher learns
only that its proposal was refused for this rule, as the protocol shows it every
accept/reject decision. The full findings (`Finding.full`) stay in the build record
for the user.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from tether.systems.compile.constant_fold import folded_values
from tether.systems.compile.harness import Harness
from tether.systems.compile.setting import Item, Setting

__all__ = ["MIN_NUMBER_DIGITS", "REFUSAL", "Finding", "audit_answers", "audit_findings",
           "audit_texts"]

#: all the teacher reads of a hard-coded-answer refusal, the same for every finding
REFUSAL = ("the harness text (a prompt or a hook's string literals and constant "
           "expressions) contains an answer it may not contain: an inventory entity or a "
           "gold answer of a probe or validation item. Answers must come from the "
           "observation, not from the harness text.")

_CODE = re.compile(r"[A-Z]{1,3}")
_NUMBER = re.compile(r"[\s$€£¥+\-.,:/%\d]*\d[\s$€£¥+\-.,:/%\d]*")
MIN_NUMBER_DIGITS = 3


@dataclass(frozen=True)
class Finding:
    """One forbidden term in one place of a harness."""

    place: str  # prompts.NAME | hooks.HOOK line N
    term: str
    reason: str  # inventory entity | gold answer of ITEM

    @property
    def full(self) -> str:
        return f"{self.place}: contains {self.term!r} ({self.reason})"


def _short_number(term: str) -> bool:
    return bool(_NUMBER.fullmatch(term)) and sum(c.isdigit() for c in term) < MIN_NUMBER_DIGITS


def audit_answers(harness: Harness, setting: Setting, items: Iterable[Item]) -> list[str]:
    """One line per (place, term) found; `items` are those whose gold may not appear."""
    return [f.full for f in audit_findings(harness, setting, items)]


def audit_findings(harness: Harness, setting: Setting, items: Iterable[Item]) -> list[Finding]:
    """Every (place, term) of the harness that names an inventory entity or a gold
    answer of `items` (for the user; the teacher reads only REFUSAL)."""
    terms: dict[str, str] = {}
    for name in setting.inventory():
        terms.setdefault(name, "inventory entity")
    for item in items:
        for answer in setting.gold(item):
            terms.setdefault(answer, f"gold answer of {item.item_id}")
    texts = [(f"prompts.{name}", text) for name, text in sorted(harness.prompts.items())]
    for hook, source in sorted(harness.hooks.present().items()):
        texts += [(f"hooks.{hook} line {line}", text) for line, text in _literals(source)]
    return [Finding(place, term, reason)
            for place, term, reason in _search(texts, terms, setting.public_vocabulary())]


def audit_texts(texts: list[tuple[str, str]], terms: dict[str, str],
                exempt: Iterable[str]) -> list[str]:
    """Search each (place, text) for the terms (term -> why it is forbidden)."""
    return [f"{place}: contains {term!r} ({reason})"
            for place, term, reason in _search(texts, terms, exempt)]


def _search(texts: list[tuple[str, str]], terms: dict[str, str],
            exempt: Iterable[str]) -> list[tuple[str, str, str]]:
    free = {e.casefold() for e in exempt}
    terms = {t: why for t, why in terms.items() if not _short_number(t.strip())}
    codes = sorted({t for t in terms if _CODE.fullmatch(t) and t.casefold() not in free})
    words = sorted({t.strip().casefold() for t in terms
                    if t.strip() and not _CODE.fullmatch(t) and t.strip().casefold() not in free},
                   key=lambda w: (-len(w), w))
    why = {t.strip().casefold(): reason for t, reason in terms.items()}
    patterns = []
    if codes:
        patterns.append((re.compile(rf"(?<![A-Za-z0-9])({'|'.join(codes)})(?![A-Za-z0-9])"),
                         lambda s: s))
    if words:
        # whole words: no word character on either side of the match
        patterns.append((re.compile(rf"(?<!\w)({'|'.join(map(re.escape, words))})(?!\w)"),
                         str.casefold))
    found: list[tuple[str, str, str]] = []
    for place, text in texts:
        seen: set[str] = set()
        for pattern, fold in patterns:
            for match in pattern.finditer(fold(text)):
                term = match.group(1)
                if term not in seen:
                    seen.add(term)
                    reason = terms.get(term) or why.get(term.casefold(), "forbidden term")
                    found.append((place, term, reason))
    return found


def _literals(source: str) -> list[tuple[int, str]]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # reported by the hook whitelist
    literals = [(node.lineno, node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return list(dict.fromkeys([*literals, *folded_values(source)]))
