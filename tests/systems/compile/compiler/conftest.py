"""Helpers of the compiler tests: a compile on the toy setting with scripted doubles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.systems.compile.compiler import CompileConfig, Compiler
from tether.systems.compile.compiler.store import BuildDir
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher

TEACHER_SPEC = "scripted:tether.testing.scripted_teacher:competent"
STUDENT_SPEC = "scripted:tether.testing.scripted_teacher:student"


def toy_config(out: Path, **fields: Any) -> CompileConfig:
    base: dict[str, Any] = {"setting": "toy", "teacher": TEACHER_SPEC, "student": STUDENT_SPEC,
                            "probe": 6, "validation": 6, "test": 8, "rounds": 2,
                            "out": str(out)}
    base.update(fields)
    return CompileConfig(**base)


def compile_toy(out: Path, plan: dict[str, Any], **fields: Any) -> tuple[dict[str, Any],
                                                                          ScriptedTeacher]:
    """Run one compile on toy with a scripted teacher following `plan`."""
    teacher = ScriptedTeacher(plan)
    compiler = Compiler(toy_config(out, **fields), teacher=ScriptedModel(teacher.script),
                        student=ScriptedModel(ScriptedStudent({}).script))
    return compiler.run(), teacher


def decisions(result: dict[str, Any]) -> list[str]:
    return [r["decision"] for r in result["rounds"]]


def rounds_of(out: Path, build: int = 0) -> list[dict[str, Any]]:
    return BuildDir(out).build(build).rounds()
