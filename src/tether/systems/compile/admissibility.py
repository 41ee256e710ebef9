"""Admissibility: what a harness must pass before it is ever scored.

    report = check_harness(document, setting)      # AdmissibilityReport
    report.admissible, report.hash, report.violations   # [Violation(check, detail)]

The checks, in order (a later one is skipped when an earlier one fails, since it could
not run meaningfully):
1. `schema`: known keys only (tether-harness/1), the setting named matches, prompts
   <= 8,000 characters each, hooks <= 20,000 characters together, decode.max_tokens
   <= 1,024, templates with only {field} braces naming known fields (an observation
   field of the enabled resources or a var the route hook can set: prompt_fields.py),
   an `answer` prompt when there is no route hook.
2. `hooks`: the AST whitelist (hook_ast.py).
3. `hardcoded`: no hook string literal and no prompt text names an inventory entity or
   a probe/validation gold answer (answer_audit.py). Test gold is never read here.
4. `smoke`: 10 probe items with the smoke student (a scripted test double: no model
   calls, it answers every call with the item's first gold answer): hook errors at
   most 20%, empty answers (abstentions included) below 50%.
5. `determinism`: the smoke run again, items in reverse order on the same worker, and
   once more in a fresh worker with the items shuffled, gives identical hook outputs,
   statuses and answers (each hook call runs in a fork that keeps nothing: runtime.py;
   the passes catch what a fork still shares, such as what a process's history or
   addresses decide).

Checks 3-5 need gold answers (the audit looks for them, the smoke student answers
with them). A deployment on a user's data (`tether harness apply`) runs them on its
labelled rows only, and with none, not at all (`gold=False`); there the data's fields,
not the setting's name, decide whether the harness fits (`named_setting=False`). The
report lists the checks that ran (`checks`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import ValidationError

from tether.errors import TetherError
from tether.systems.compile.answer_audit import REFUSAL, audit_findings
from tether.systems.compile.harness import Harness, TemplateError, template_fields
from tether.systems.compile.hook_ast import check_hook_sources
from tether.systems.compile.prompt_fields import unknown_fields
from tether.systems.compile.runtime import HarnessRuntime, ItemOutcome, StudentFn
from tether.systems.compile.setting import (
    Item,
    Setting,
    fitted_sizes,
    item_count,
    same_setting,
)

__all__ = ["CHECKS", "GOLD_CHECKS", "MAX_HOOK_CHARS", "MAX_PROMPT_CHARS", "MAX_TOKENS",
           "SMOKE_ITEMS", "AdmissibilityReport", "SmokeError", "Violation", "check_harness",
           "smoke_student"]

MAX_PROMPT_CHARS = 8_000
MAX_HOOK_CHARS = 20_000
MAX_TOKENS = 1_024
SMOKE_ITEMS = 10
MAX_HOOK_ERROR_SHARE = 0.20
MAX_EMPTY_SHARE = 0.50  # exclusive
#: every check, in the order they run; those that need gold answers
CHECKS = ("schema", "hooks", "hardcoded", "smoke", "determinism")
GOLD_CHECKS = ("hardcoded", "smoke", "determinism")


class SmokeError(TetherError):
    """The smoke run hit an infrastructure failure: the harness could not be judged."""


@dataclass(frozen=True)
class Violation:
    """`detail` is what the teacher may read; `finding`, when set, the full findings for
    the user (hard-coded answers: each term, its place and its item), never shown to it."""

    check: str  # schema | hooks | hardcoded | smoke | determinism
    detail: str
    finding: str = ""


@dataclass
class AdmissibilityReport:
    hash: str | None  # None when the document is not a harness at all
    violations: list[Violation] = field(default_factory=list)
    smoke: list[dict[str, Any]] = field(default_factory=list)  # the first run's outcomes
    #: the checks that ran, in order (a later one is not run once one fails, nor one
    #: that needs gold without it)
    checks: list[str] = field(default_factory=list)

    @property
    def admissible(self) -> bool:
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        return {"admissible": self.admissible, "hash": self.hash, "checks": self.checks,
                "violations": [asdict(v) for v in self.violations]}


def smoke_student(setting: Setting, item: Item) -> StudentFn:
    """Test double for the smoke run: every call gets the item's first gold answer."""
    reply = (setting.gold(item) or [""])[0]
    return lambda prompt, image: reply


def check_harness(document: Any, setting: Setting, *, seed: int = 0,
                  sizes: Mapping[str, int] | None = None, named_setting: bool = True,
                  gold: bool = True) -> AdmissibilityReport:
    """Run checks 1-5 on a parsed harness document (see the module docstring).

    `sizes` default to the compile's defaults for this setting (fitted_sizes), so a
    small file's validation items are not taken for probe items here. `named_setting`
    false: the document may name another setting; `gold` false: checks 1-2 only.

    Raises SmokeError when the sandbox fails during the smoke run (not the harness's
    fault, so no verdict either way)."""
    try:
        harness = Harness.model_validate(document)
    except ValidationError as exc:
        return AdmissibilityReport(None, [
            Violation("schema", f"`{'.'.join(map(str, e['loc'])) or 'document'}`: "
                                f"{e['msg'][:1].lower()}{e['msg'][1:]}")
            for e in exc.errors()], checks=["schema"])
    report = AdmissibilityReport(harness.hash, _schema(harness, setting, named_setting),
                                 checks=["schema"])
    if report.violations:
        return report
    report.checks.append("hooks")
    hooks = check_hook_sources(harness.hooks.present())
    report.violations += [Violation("hooks", d) for d in hooks]
    if report.violations or not gold:
        return report
    report.checks += GOLD_CHECKS
    splits = setting.splits(seed, sizes or fitted_sizes(item_count(setting)))
    known = [*splits.get("probe", []), *splits.get("validation", [])]
    findings = audit_findings(harness, setting, known)
    if findings:  # one violation, one fixed sentence: see answer_audit.py
        report.violations.append(Violation("hardcoded", REFUSAL,
                                           "; ".join(f.full for f in findings)))
    probe = splits.get("probe", [])[:SMOKE_ITEMS]
    with HarnessRuntime(harness, setting) as runtime:
        first = _smoke(runtime, setting, probe)
        second = _smoke(runtime, setting, list(reversed(probe)))
    with HarnessRuntime(harness, setting) as fresh:
        third = _smoke(fresh, setting, shuffled(probe, seed))
    report.smoke = [o.to_json() for o in first]
    report.violations += _smoke_violations(first)
    report.violations += (_determinism(first, second, "reverse order, same worker")
                          or _determinism(first, third, "a fresh worker, shuffled order"))
    return report


def shuffled(items: list[Item], seed: int) -> list[Item]:
    """items in a seeded order unlike both the given one and its reverse (when the
    list is long enough to have such an order)."""
    order = list(items)
    random.Random(seed).shuffle(order)
    if len(order) > 2 and order in (items, items[::-1]):
        order = order[1:] + order[:1]
    return order


def _schema(harness: Harness, setting: Setting, named_setting: bool) -> list[Violation]:
    out: list[str] = []
    if named_setting and not same_setting(harness.setting, setting.name):
        out.append(f"setting: the harness is for {harness.setting!r}, checked on {setting.name!r}")
    for name, text in sorted(harness.prompts.items()):
        if len(text) > MAX_PROMPT_CHARS:
            out.append(f"prompts.{name}: {len(text)} characters (at most {MAX_PROMPT_CHARS})")
        try:
            template_fields(text)
        except TemplateError as exc:
            out.append(f"prompts.{name}: {exc}")
    out += unknown_fields(harness, setting)
    hook_chars = sum(len(src) for src in harness.hooks.present().values())
    if hook_chars > MAX_HOOK_CHARS:
        out.append(f"hooks: {hook_chars} characters in all (at most {MAX_HOOK_CHARS})")
    if harness.decode.max_tokens > MAX_TOKENS:
        out.append(f"decode.max_tokens: {harness.decode.max_tokens} (at most {MAX_TOKENS})")
    if harness.hooks.route is None and "answer" not in harness.prompts:
        out.append("prompts: no 'answer' prompt, and no route hook to name another")
    return [Violation("schema", d) for d in out]


def _smoke(runtime: HarnessRuntime, setting: Setting, items: list[Item]) -> list[ItemOutcome]:
    outcomes = [runtime.run_item(item, smoke_student(setting, item)) for item in items]
    broken = [o for o in outcomes if o.status == "infra_error"]
    if broken:
        raise SmokeError(f"smoke run: infrastructure failure on {broken[0].item_id}: "
                         f"{broken[0].error}", hint="is bubblewrap usable? tether sandbox exec")
    return outcomes


def _smoke_violations(outcomes: list[ItemOutcome]) -> list[Violation]:
    n = len(outcomes)
    if n == 0:
        return [Violation("smoke", "the setting has no probe items to run")]
    out = []
    errors = [o for o in outcomes if o.status == "hook_error"]
    if len(errors) > MAX_HOOK_ERROR_SHARE * n:
        out.append(Violation("smoke", f"hook errors on {len(errors)} of {n} probe items "
                             f"(at most {MAX_HOOK_ERROR_SHARE:.0%}); first: {errors[0].error}"))
    empty = [o for o in outcomes if o.status != "hook_error" and not (o.answer or "").strip()]
    if len(empty) >= MAX_EMPTY_SHARE * n:
        out.append(Violation("smoke", f"empty answers on {len(empty)} of {n} probe items "
                             f"(must be below {MAX_EMPTY_SHARE:.0%})"))
    return out


def _determinism(first: list[ItemOutcome], again_: list[ItemOutcome],
                 how: str) -> list[Violation]:
    again = {o.item_id: o for o in again_}
    for a in first:
        b = again[a.item_id]
        if (a.status, a.answer, a.hook_trace) != (b.status, b.answer, b.hook_trace):
            return [Violation("determinism", f"item {a.item_id}: the smoke run again "
                              f"({how}) gave different hook outputs")]
    return []
