"""tether's choices where the paper's Algorithm 1 leaves them open (mirrors SPEC.md).

Every constant here is named in SPEC.md with its reason; tests pin each one. Changing a
value changes tether's refiner specification, so change both files together.
"""

from __future__ import annotations

import math
from typing import Any

# The cap on additional executions per submitted program, failed ones included (the paper's).
MAX_EXTRA_EXECUTIONS = 6

# The fixed order of alternatives (the paper's listing).
ALTERNATIVES = (
    "recovery_current", "recovery_initial", "light_recovery_current", "light_recovery_initial",
    "projection_full", "projection_half",
)  # fmt: skip
PROJECTION_ALPHA = {"projection_full": 1.0, "projection_half": 0.5}

# Which candidates built on the previous delivered program (projection) are eligible.
# "paper": as Algorithm 1 states it (projection keeps the previous program's other state,
# so a submission's other writes are dropped by a projection). "keep_other_writes": a
# projection is eligible only when the submission wrote nothing outside the light channel
# it projects (scope.py), so a correct submission is never delivered worse. The paper's
# configs use "paper"; `tether scene refine` and user configs default to the other.
PROJECTION_SCOPES = ("paper", "keep_other_writes")
DEFAULT_PROJECTION_SCOPE = "keep_other_writes"

# Numerical agreement (≃): RNA floats are 32-bit, so two values agree when they are within
# an absolute 1e-5 plus a relative 1e-5 of each other (a few float32 ulps at the scales a
# scene uses); ints, bools and strings agree when equal; sequences componentwise with equal
# lengths. None (a missing observation) agrees with nothing, itself included.
AGREE_ATOL = 1e-5
AGREE_RTOL = 1e-5

# The light channel: the properties of an owner's tuple and phi(E, c) = E * c.
LIGHT_ENERGY, LIGHT_COLOR = "energy", "color"
LIGHT_PROPS = (LIGHT_ENERGY, LIGHT_COLOR)
# Admissible reconstructions: energy >= 0, every colour component in [0, 1] (Blender's soft
# range for a light colour; its hard range is unbounded above).
COLOR_MAX = 1.0

# Cells whose change the `frames` check reports (a subset of the preservation check).
FRAME_PATHS = ("location", "rotation_euler", "scale")

# Event kinds that are numerical write evidence (binding events are not values).
VALUE_KINDS = ("assign", "aug", "setattr")


def agree(a: Any, b: Any) -> bool:
    """The numerical agreement predicate ≃; unknown (None) never agrees."""
    if a is None or b is None:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        a, b = float(a), float(b)
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        return abs(a - b) <= AGREE_ATOL + AGREE_RTOL * max(abs(a), abs(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(agree(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def phi(energy: float, color: list[float]) -> list[float]:
    """The effective-value map phi(E, c) = E c (the paper's light effect)."""
    return [float(energy) * float(c) for c in color[:3]]


def reconstruct(u: list[float], energy: float) -> tuple[float, list[float]] | None:
    """An admissible (E, c) with phi(E, c) = u, from the interpolated energy `energy`.

    phi is not one-to-one ((E, c) and (2E, c/2) have one effect), so tether fixes the
    rule: keep the interpolated energy and take c = u / E; when a component of c would
    exceed COLOR_MAX, scale E up by that component and c down (E' = E max c, c' = c /
    max c). E = 0 realizes only u = 0 (kept with colour `None`: the reference's colour);
    any other u with E <= 0 is infeasible (None: the alternative cannot be compiled).
    """
    if any(x < 0 or not math.isfinite(x) for x in u) or not math.isfinite(energy):
        return None
    if energy <= 0:
        return (0.0, []) if all(agree(x, 0.0) for x in u) else None
    color = [x / energy for x in u]
    top = max(color)
    if top > COLOR_MAX:
        energy, color = energy * top, [c / top for c in color]
    return energy, color
