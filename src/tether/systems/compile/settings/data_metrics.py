"""The metrics a data setting (`jsonl:PATH;metric=NAME`) can be scored with.

- `exact`: SQuAD-normalized exact match against any accepted answer (pass/fail);
- `anls`: DocVQA's ANLS (graded);
- `f1`: SQuAD token F1, the best over the accepted answers (graded);
- `numeric`: the first number in the answer equals an accepted number (relative
  tolerance 1e-6; "1,000" == "1000.0") (pass/fail);
- `choice`: the answer picks the accepted option, by its text or by its letter when the
  row lists `choices` ("B" or "B) Oslo" for the second) (pass/fail). The reply must be
  the option: "The answer is Oslo." scores 0 (past numbers keep this meaning);
- `choice_named`: as `choice`, and also a reply that names exactly one of the row's
  `choices` anywhere in its words ("The answer is Oslo.") when that option is accepted; a
  reply naming two options ("Oslo, not Lima") scores 0 (pass/fail). It needs the row's
  `choices`: without them it is `choice`;
- `module:function`: `function(prediction, gold, item) -> bool | float in [0, 1]`,
  `gold` the list of accepted answers, `item` the row as a dict (its other fields
  included). Graded unless the function has an attribute `binary = True`. It runs in
  processes of its own, each call within METRIC_TIMEOUT_S (metric_process.py): a call
  that raises, hangs or returns anything else is that item's `MetricError`.

The aggregation follows from the metric: graded metrics aggregate as a mean score
(`aggregation = "mean_score"`, paired bootstrap), pass/fail ones as a pass rate.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tether.errors import ConfigError
from tether.systems.compile.setting import Item
from tether.systems.compile.settings.metric_process import MetricError, metric_processes
from tether.systems.compile.settings.metrics import anls, exact_match, normalize_answer

__all__ = ["BUILTIN", "Metric", "MetricError", "choice", "choice_named", "f1", "numeric",
           "resolve_metric"]

_NUM = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+")


def f1(answer: str, golds: Sequence[str]) -> float:
    """SQuAD token F1 over normalized tokens, the best over `golds`."""
    pred = normalize_answer(answer).split()
    best = 0.0
    for gold in golds:
        ref = normalize_answer(gold).split()
        if not pred or not ref:
            best = max(best, float(pred == ref))
            continue
        common = sum((Counter(pred) & Counter(ref)).values())
        if common:
            precision, recall = common / len(pred), common / len(ref)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def _first_number(text: str) -> float | None:
    match = _NUM.search(str(text))
    if match is None:
        return None
    try:
        return float(match.group(0).replace(",", ""))
    except ValueError:
        return None


def numeric(answer: str, golds: Sequence[str]) -> float:
    """1.0 when the answer's first number equals an accepted number."""
    pred = _first_number(answer)
    if pred is None:
        return 0.0
    return float(any(g is not None and math.isclose(pred, g, rel_tol=1e-6, abs_tol=1e-9)
                     for g in map(_first_number, golds)))


_LETTER = re.compile(r"^\(?([A-Za-z])[).:]?(?:\s|$)")


def _accepted(golds: Sequence[str], options: Sequence[str]) -> set[str]:
    """The normalized accepted answers; a gold given as a letter names its option."""
    accepted = {normalize_answer(g) for g in golds}
    for k, option in enumerate(options):
        if normalize_answer(chr(ord("a") + k)) in accepted:
            accepted.add(normalize_answer(option))
    return accepted


def choice(answer: str, golds: Sequence[str], choices: Sequence[str] = ()) -> float:
    """1.0 when the answer picks an accepted option (by text, or by letter A, B, ...
    when `choices` lists the options in order)."""
    options = [str(c) for c in choices]
    accepted = _accepted(golds, options)
    text = str(answer).strip()
    letter = _LETTER.match(text)
    if letter and options:
        k = ord(letter.group(1).lower()) - ord("a")
        if 0 <= k < len(options) and normalize_answer(options[k]) in accepted:
            return 1.0
    return float(normalize_answer(text) in accepted)


def _named(text: str, phrase: str) -> bool:
    """Whether normalized `text` holds normalized `phrase` as whole words."""
    return bool(phrase) and f" {phrase} " in f" {text} "


def choice_named(answer: str, golds: Sequence[str], choices: Sequence[str] = ()) -> float:
    """`choice`, or 1.0 when the reply names exactly one of `choices` in its words and
    that option is accepted ("The answer is Oslo."). Naming letters in a sentence is
    not counted: "a" is also a word."""
    if choice(answer, golds, choices):
        return 1.0
    options = [str(c) for c in choices]
    text = normalize_answer(answer)
    named = {o for o in map(normalize_answer, options) if _named(text, o)}
    # an option whose words sit inside another named option ("york" in "new york") is
    # read as part of that one, not as a second option named
    named = {o for o in named if not any(o != other and _named(other, o) for other in named)}
    if len(named) != 1:
        return 0.0
    return float(named.pop() in _accepted(golds, options))


@dataclass(frozen=True)
class Metric:
    """A named metric: `score(prediction, golds, item)` in [0, 1]."""

    name: str
    fn: Callable[[str, list[str], Item], float]
    graded: bool
    #: a user's `module:function` (checked gold against gold when a setting loads)
    user: bool = False

    @property
    def aggregation(self) -> str:
        return "mean_score" if self.graded else "pass_rate"

    def score(self, answer: str, golds: list[str], item: Item) -> float:
        return self.fn(answer, golds, item)


def _choices(item: Item) -> Sequence[str]:
    # only a list names options (a CSV cell is one string, not a list of letters)
    listed = item.data.get("fields", {}).get("choices")
    return listed if isinstance(listed, list) else ()


def _row(item: Item) -> dict[str, Any]:
    return {"id": item.item_id, "question": item.question, **item.data.get("fields", {})}


BUILTIN: dict[str, Metric] = {
    "exact": Metric("exact", lambda a, g, i: exact_match(a, g), graded=False),
    "anls": Metric("anls", lambda a, g, i: anls(a, g), graded=True),
    "f1": Metric("f1", lambda a, g, i: f1(a, g), graded=True),
    "numeric": Metric("numeric", lambda a, g, i: numeric(a, g), graded=False),
    "choice": Metric("choice", lambda a, g, i: choice(
        a, g, i.data.get("fields", {}).get("choices") or ()), graded=False),
    "choice_named": Metric("choice_named", lambda a, g, i: choice_named(a, g, _choices(i)),
                           graded=False),
}


def _user_metric(spec: str) -> Metric:
    """`module:function`, loaded and called in processes of its own with a time limit
    (metric_process.py): a failing call is that item's MetricError."""
    processes = metric_processes(spec)

    def score(answer: str, golds: list[str], item: Item) -> float:
        try:
            return processes(answer, list(golds), _row(item))
        except MetricError as exc:
            raise MetricError(f"{exc} (item {item.item_id})") from None

    return Metric(spec, score, graded=not processes.binary, user=True)


def resolve_metric(name: str) -> Metric:
    """The metric `name`; ConfigError naming the choices otherwise."""
    if name in BUILTIN:
        return BUILTIN[name]
    if ":" in name:
        return _user_metric(name)
    raise ConfigError(f"unknown metric {name!r}",
                      hint=f"metrics: {', '.join(BUILTIN)}, or module:function")
