"""The scene system's one door to the minibpy test double (`tether.testing.minibpy`).

minibpy imitates the part of bpy that tether's scene programs use. Two features run a
task on it: `check_task`'s minibpy side (a bundled task must build the same state on
bpy and on the double that the refiner tests use) and `tether scene trace --backend
minibpy`. The double lives in `tether.testing`, above the systems, so it is reached here
by module name, never by an import the layers would forbid.
"""

from __future__ import annotations

import importlib
from typing import Any

MINIBPY = "tether.testing.minibpy"


def minibpy_executor() -> Any:
    """The MiniBpyExecutor class (a SceneExecutor's interface, run in-process)."""
    return importlib.import_module(f"{MINIBPY}.executor").MiniBpyExecutor


def state_differences(ours: Any, theirs: Any) -> list[str]:
    """Where two built states differ (minibpy's comparison, paths of differing cells)."""
    found: list[str] = importlib.import_module(f"{MINIBPY}.compare").differences(ours, theirs)
    return found
