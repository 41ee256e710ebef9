"""The report's baseline: the arm every comparison in the report is made against.

One rule, in this order of precedence (`choose_baseline`):

1. the arm named by `tether report --baseline`: an arm label exactly, else the one arm
   whose strategy or label it names (none or several is a usage error);
2. the first single-shot arm (strategy `single_shot`);
3. the first plain terminal-agent arm: strategy `agent` with one reply per turn (N = 1);
4. the run's first arm.

The choice is made once per report. A section that compares a subset of the trials (the
agent trials, the judged attempts) uses the report's baseline arm where the subset has
it, else the subset's own plain agent arm (rule 3), else it compares nothing
(`subset_baseline`).

A group of trials (an arm at a budget) is compared against the baseline arm of the same
model setup at the same budget; a baseline that ran at a single budget only
(single-shot usually does) serves every budget (`baseline_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from tether.core import WidthFacts, facts_of
from tether.errors import ConfigError
from tether.report.values import with_setup

if TYPE_CHECKING:
    from tether.report.section import TrialEntry

__all__ = ["baseline_key", "choose_baseline", "is_plain_agent", "subset_baseline"]


def is_plain_agent(entry: TrialEntry) -> bool:
    """A trial of the plain terminal agent: the `agent` strategy with N = 1."""
    if entry.record.spec.strategy != "agent":
        return False
    found = facts_of(entry.record.extra, WidthFacts)
    return found is None or found.n == 1


def _first_plain_agent(entries: Iterable[TrialEntry]) -> str | None:
    entries = list(entries)
    mixed = {e.strategy_arm for e in entries if not is_plain_agent(e)}
    return next((e.strategy_arm for e in entries if e.strategy_arm not in mixed), None)


def choose_baseline(entries: Sequence[TrialEntry], wanted: str | None) -> str:
    """The report's baseline strategy arm, by the module's rule (`wanted`: `--baseline`)."""
    arms = list(dict.fromkeys(e.strategy_arm for e in entries))
    if wanted is None:
        singles = [e.strategy_arm for e in entries if e.record.spec.strategy == "single_shot"]
        return singles[0] if singles else _first_plain_agent(entries) or arms[0]
    if wanted in arms:
        return wanted
    matches = list(dict.fromkeys(e.strategy_arm for e in entries
                                 if wanted in (e.record.spec.strategy, e.arm)))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ConfigError(f"--baseline {wanted!r} matches several arms: {', '.join(matches)}",
                          hint="pass one arm label exactly as the summary table shows it")
    raise ConfigError(f"--baseline {wanted!r} is not an arm of this run",
                      hint=f"arms in this run: {', '.join(arms)}")


def subset_baseline(entries: Iterable[TrialEntry], report_baseline: str) -> str | None:
    """The baseline strategy arm of a section's subset of the trials: the report's when
    the subset has it, else the subset's plain agent arm, else None."""
    entries = list(entries)
    if any(e.strategy_arm == report_baseline for e in entries):
        return report_baseline
    return _first_plain_agent(entries)


def baseline_key(groups: Mapping[tuple[str, str], Sequence[TrialEntry]], baseline: str,
                 group: Sequence[TrialEntry]) -> tuple[str, str] | None:
    """The (arm, budget) key in `groups` that `group` (one arm at one budget) is compared
    against: the baseline arm of the group's model setup at the group's budget, else at
    the baseline's only budget; None when there is neither. The baseline's own groups
    get their own key: callers skip them or show them as the reference."""
    first = group[0]
    arm = with_setup(baseline, first.setup)
    budgets = [b for (a, b) in groups if a == arm]
    if first.budget in budgets:
        return (arm, first.budget)
    return (arm, budgets[0]) if len(budgets) == 1 else None
