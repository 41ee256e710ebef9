"""Comparing what the two backends capture: equal, floats within float32 tolerance.

minibpy stores RNA values as C floats exactly as Blender does, so cells, bindings and
traces are equal bit for bit on the suite; the one place arithmetic differs is generated
geometry (minibpy computes UV-sphere vertices in float64 then rounds, Blender in float
arithmetic), so mesh bounds may differ by a few units in the last place of a C float.
"""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-6  # a few units in the last place of a C float (2**-23 ~ 1.2e-7)


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where a and b differ: floats beyond float32 tolerance, anything else at all (dict
    key order included: the state capture's order is part of its output)."""
    if isinstance(a, float) or isinstance(b, float):
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
        if numeric and math.isclose(a, b, rel_tol=REL_TOL, abs_tol=REL_TOL):
            return []
        return [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            extra = sorted(set(a) ^ set(b))
            if not extra:
                return [f"{path}: key order differs"]
            more = f" and {len(extra) - 3} more" if len(extra) > 3 else ""
            return [f"{path}: keys {extra[:3]}{more} are on one side only"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}.{k}")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]
