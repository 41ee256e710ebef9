"""Helpers of the compiler tests: a compile on the toy setting with scripted doubles."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.core import TrialRecord
from tether.systems.compile.compiler import CompileConfig, Compiler
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.scoring import SplitScore
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


@dataclass
class Recorded:
    """What a compile's run directory recorded of one build (read, then closed)."""

    rounds: list[dict[str, Any]]
    teacher_calls: list[dict[str, Any]]
    gepa_teacher_calls: list[dict[str, Any]]
    selected: dict[str, Any] | None
    test: dict[str, Any] | None
    oneshot: dict[str, Any] | None
    student_calls: list[dict[str, Any]]
    trials: list[TrialRecord]
    scores: dict[tuple[str, str], SplitScore]

    def teacher_call(self, key: str) -> dict[str, Any]:
        return next(c for c in self.teacher_calls if c["key"] == key)


def recorded(out: Path, build: int = 0) -> Recorded:
    with CompileRun.read(out) as run:
        records = run.build(build)
        trials = run.store.trials()
        groups = {(str(t.extra["split"]), str(t.extra["key"])) for t in trials
                  if not t.extra.get("scope")}
        scores = {g: s for g in groups if (s := run.split_score(*g)) is not None}
        return Recorded(records.rounds(), records.teacher_calls(),
                        records.gepa_store().teacher_calls(), records.selected(),
                        records.test(), records.oneshot(), run.student_calls(), trials, scores)


def rounds_of(out: Path, build: int = 0) -> list[dict[str, Any]]:
    return recorded(out, build).rounds


def forget_events(out: Path, kinds: set[str]) -> None:
    """TEST ONLY: the compile as if killed before it recorded events of `kinds`: their rows
    leave the store and their lines the log (a resume would take them back from it)."""
    import json
    import sqlite3

    with sqlite3.connect(out / "run.sqlite") as db:
        db.executemany("DELETE FROM events WHERE kind = ?", [(k,) for k in kinds])
    log = out / "events.jsonl"
    kept = [line for line in log.read_text().splitlines()
            if json.loads(line)["kind"] not in kinds]
    log.write_text("".join(line + "\n" for line in kept))


def toy_run(out: Path, **sizes: int) -> CompileRun:
    """A new compile's run directory on toy (`sizes`: the splits), nothing scored yet:
    for tests of its parts (the scorer, the teacher) without a whole compile."""
    from tether.systems.compile.compiler.build import compile_tasks
    from tether.systems.compile.settings.toy import ToySetting

    config = toy_config(out, **sizes)
    toy = ToySetting()
    tasks = compile_tasks(toy, toy.splits(config.seed, config.sizes), config)
    return CompileRun.create(out, config.model_dump(), tasks)
