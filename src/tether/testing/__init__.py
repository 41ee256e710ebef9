"""Test doubles users may use in their own tests: scripted models, a scripted check, minibpy,
scripted teachers, students and scene roles. Each says it is a double in its name; product
code reaches them only through the model-spec and instrument registries and the scene
system's minibpy backend (tether.systems.scene.minibpy_backend).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.testing.minibpy.executor import MiniBpyExecutor as MiniBpyExecutor
    from tether.testing.scripted_check import ScriptedCheckInstrument as ScriptedCheckInstrument
    from tether.testing.scripted_leaking_teacher import (
        ScriptedLeakingTeacher as ScriptedLeakingTeacher,
    )
    from tether.testing.scripted_models import CallInfo as CallInfo, ScriptedModel as ScriptedModel
    from tether.testing.scripted_student import ScriptedStudent as ScriptedStudent
    from tether.testing.scripted_teacher import ScriptedTeacher as ScriptedTeacher

_HOMES: dict[str, str] = {
    "CallInfo": "tether.testing.scripted_models",
    "MiniBpyExecutor": "tether.testing.minibpy.executor",
    "ScriptedCheckInstrument": "tether.testing.scripted_check",
    "ScriptedLeakingTeacher": "tether.testing.scripted_leaking_teacher",
    "ScriptedModel": "tether.testing.scripted_models",
    "ScriptedStudent": "tether.testing.scripted_student",
    "ScriptedTeacher": "tether.testing.scripted_teacher",
}
__all__ = [
    "CallInfo",
    "MiniBpyExecutor",
    "ScriptedCheckInstrument",
    "ScriptedLeakingTeacher",
    "ScriptedModel",
    "ScriptedStudent",
    "ScriptedTeacher",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
