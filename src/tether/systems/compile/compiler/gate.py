"""The strict validation gate with the bare floor.

A proposal replaces the incumbent only if it is admissible and its unrounded validation
mean is strictly higher than the incumbent's; a tie keeps the incumbent. The first
incumbent is the bare harness, so a build where nothing beats bare deploys bare (the
seed's MiniCPM-V on DocVQA), and no build ever deploys below bare on validation.

Infra errors are never scored, so a mean over fewer items could beat the floor only
because items went missing: a proposal with more validation infra errors than the bare
floor had is rejected whatever its mean (what a hook can cause is a scored hook_error,
systems/compile/runtime.py; what is left is the endpoint or the sandbox, which the floor met too).

A gate on fewer than MIN_GATE_ITEMS validation items still decides, but the compile says
so (`small_gate_warning`: on stderr as it starts, in its result's `warnings` and in the
report): there one item moves the mean by more than ten points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["MIN_GATE_ITEMS", "Decision", "Incumbent", "gate", "small_gate_warning"]

Decision = Literal["accept", "reject", "tie"]

#: the fewest validation items a gate decides on without a warning
MIN_GATE_ITEMS = 10


@dataclass(frozen=True)
class Incumbent:
    hash: str
    document: dict[str, Any]
    validation: float  # unrounded mean
    is_bare: bool


def gate(incumbent: Incumbent, admissible: bool, validation: float | None, *,
         infra_errors: int = 0, floor_infra_errors: int = 0) -> Decision:
    """accept (strictly higher), tie (equal: the incumbent stays) or reject; always
    reject when the proposal has more validation infra errors than the bare floor."""
    if not admissible or validation is None or infra_errors > floor_infra_errors:
        return "reject"
    if validation > incumbent.validation:
        return "accept"
    return "tie" if validation == incumbent.validation else "reject"


def small_gate_warning(items: int | None) -> str | None:
    """The warning for a gate deciding on `items` validation items, or None when there
    are at least MIN_GATE_ITEMS (or the count is unknown: a directory that never
    recorded it)."""
    if items is None or items >= MIN_GATE_ITEMS:
        return None
    if items <= 0:
        return "the validation gate decides on no item: every proposal is rejected"
    return (f"the validation gate decides on {items} item{'s' if items != 1 else ''}, "
            f"fewer than {MIN_GATE_ITEMS}: one item moves the mean by "
            f"{100 / items:.0f} points, so a selection may be chance "
            "(more rows, or a larger --validation)")
