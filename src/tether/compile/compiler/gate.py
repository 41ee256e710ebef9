"""The strict validation gate with the bare floor.

A proposal replaces the incumbent only if it is admissible and its unrounded validation
mean is strictly higher than the incumbent's; a tie keeps the incumbent. The first
incumbent is the bare harness, so a build where nothing beats bare deploys bare (the
seed's MiniCPM-V on DocVQA), and no build ever deploys below bare on validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Decision", "Incumbent", "gate"]

Decision = Literal["accept", "reject", "tie"]


@dataclass(frozen=True)
class Incumbent:
    hash: str
    document: dict[str, Any]
    validation: float  # unrounded mean
    is_bare: bool


def gate(incumbent: Incumbent, admissible: bool, validation: float | None) -> Decision:
    """accept (strictly higher), tie (equal: the incumbent stays) or reject."""
    if not admissible or validation is None:
        return "reject"
    if validation > incumbent.validation:
        return "accept"
    return "tie" if validation == incumbent.validation else "reject"
