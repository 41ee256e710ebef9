"""The hard-coded-answer audit (admissibility check 3; after a freeze, on test gold).

Every string literal of the hooks (f-string parts included), the value of every
constant expression in them (constant_fold.py: `"siraP"[::-1]`, joins,
`'R-' + str(23550 + 1)`) and every prompt text is searched for the setting's
inventory entity names and the gold answers of the given items. Matching is
case-folded on whole words, except for short upper-case codes (ISO alpha-2 and
alpha-3, like `IN`, `NO`, `CAN`): those count only as standalone
upper-case tokens, so ordinary prose ("can", "no", "in") passes. The setting's public
vocabulary (answer options the task itself names) is exempt.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from tether.compile.constant_fold import folded_values
from tether.compile.harness import Harness
from tether.compile.setting import Item, Setting

__all__ = ["audit_answers", "audit_texts"]

_CODE = re.compile(r"[A-Z]{1,3}")


def audit_answers(harness: Harness, setting: Setting, items: Iterable[Item]) -> list[str]:
    """One line per (place, term) found; `items` are those whose gold may not appear."""
    terms: dict[str, str] = {}
    for name in setting.inventory():
        terms.setdefault(name, "inventory entity")
    for item in items:
        for answer in setting.gold(item):
            terms.setdefault(answer, f"gold answer of {item.item_id}")
    texts = [(f"prompts.{name}", text) for name, text in sorted(harness.prompts.items())]
    for hook, source in sorted(harness.hooks.present().items()):
        texts += [(f"hooks.{hook} line {line}", text) for line, text in _literals(source)]
    return audit_texts(texts, terms, setting.public_vocabulary())


def audit_texts(texts: list[tuple[str, str]], terms: dict[str, str],
                exempt: Iterable[str]) -> list[str]:
    """Search each (place, text) for the terms (term -> why it is forbidden)."""
    free = {e.casefold() for e in exempt}
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
    found: list[str] = []
    for place, text in texts:
        seen: set[str] = set()
        for pattern, fold in patterns:
            for match in pattern.finditer(fold(text)):
                term = match.group(1)
                if term not in seen:
                    seen.add(term)
                    reason = terms.get(term) or why.get(term.casefold(), "forbidden term")
                    found.append(f"{place}: contains {term!r} ({reason})")
    return found


def _literals(source: str) -> list[tuple[int, str]]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # reported by the hook whitelist
    literals = [(node.lineno, node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return list(dict.fromkeys([*literals, *folded_values(source)]))
