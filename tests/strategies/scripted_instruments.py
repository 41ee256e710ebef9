"""Scripted test instruments (test doubles) for strategy tests.

`scripted_partial` gives partial scores: a task lists `data["expect_all"]` tokens and
the score is the fraction present in the artifact, with one defect (expected vs
actual) per missing token. `scripted_lint` reports every line containing "TODO".
Neither observes anything real; they exist so loops can be tested without a sandbox.
"""

from __future__ import annotations

from tether.core.artifact import Artifact
from tether.core.observation import Defect, Observation
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, register_instrument


@register_instrument("scripted_partial")
class ScriptedPartial:
    name = "scripted_partial"
    version = "1"
    grounded = True

    def __init__(self, key: str = "expect_all") -> None:
        self.key = key

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        wanted = list(task.data.get(self.key, []))
        missing = [w for w in wanted if w not in artifact.text]
        defects = [Defect(kind="check_failed", message=f"check for {w!r} failed",
                          location=f"check {i}", evidence={"expected": w, "actual": "absent"})
                   for i, w in enumerate(missing)]
        score = 1.0 - len(missing) / len(wanted) if wanted else 1.0
        return Observation(instrument=self.name, version=self.version, grounded=True,
                           score=score, passed=not missing, defects=defects)


@register_instrument("scripted_lint")
class ScriptedLint:
    name = "scripted_lint"
    version = "1"
    grounded = True

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        defects = [Defect(kind="lint", message="TODO left in code", location=f"line {n}")
                   for n, line in enumerate(artifact.text.splitlines(), 1) if "TODO" in line]
        return Observation(instrument=self.name, version=self.version, grounded=True,
                           score=0.0 if defects else 1.0, passed=not defects, defects=defects)


@register_instrument("scripted_broken")
class ScriptedBroken:
    """Always fails as an instrument (sandbox down): an error, never a score."""

    name = "scripted_broken"
    version = "1"
    grounded = True

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        raise RuntimeError("scripted sandbox failure")
