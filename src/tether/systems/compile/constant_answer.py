"""The constant-answer baseline: one answer given to every test item, no model at all.

    answer = constant_answer(setting, [*splits["probe"], *splits["validation"]])
    row = constant_row(setting, answer, splits["test"])   # {"answer", "scores", "mean", "n"}

The answer is the majority class of the probe and validation gold: each item's first
accepted answer, counted with case and spacing folded, ties to the one met first in
probe-then-validation order. Only gold the compile may read before its freeze chooses
it; it is then scored on the test items by the setting's own metric, beside bare and
the selection, so a harness's gain over a weak bare student is never read without
what always answering the commonest answer scores. (On a 3-class task where one class
is 46% of the items, a harness at 21% is no gain, whatever its paired test against a
bare student at 0% says.)

It is computed for settings scored pass/fail (exact, choice, numeric and the bundled
pass/fail settings); a graded metric (ANLS, F1) gives partial credit to near answers,
where one constant string says little, so none is computed there (`applies`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tether.systems.compile.setting import Item, Setting

__all__ = ["applies", "constant_answer", "constant_row"]


def applies(setting: Setting) -> bool:
    """Whether the setting is scored pass/fail (see the module docstring)."""
    return getattr(setting, "aggregation", "") != "mean_score"


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def constant_answer(setting: Setting, items: Sequence[Item]) -> str | None:
    """The majority class of the items' gold (None when no item has gold)."""
    firsts = [gold[0] for item in items if (gold := setting.gold(item))]
    if not firsts:
        return None
    counts = Counter(_fold(a) for a in firsts)
    best = max(counts.values())
    return next(a for a in firsts if counts[_fold(a)] == best)


def constant_row(setting: Setting, answer: str, items: Sequence[Item]) -> dict[str, Any]:
    """`answer` scored on every item by the setting's metric."""
    scores = {item.item_id: float(setting.score(answer, item)) for item in items}
    return {"answer": answer, "source": "majority class of probe + validation gold",
            "scores": scores, "n": len(scores),
            "mean": sum(scores.values()) / len(scores) if scores else None}
