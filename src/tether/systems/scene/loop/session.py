"""One task's scene resources inside a trial: the warm executor, the base, the goal image,
z0, and the counts the report shows (executions, renders).

z0 = (p0, r0, S0, tau0) as the paper defines it: the start program executed once on the
base, traced and its state captured, WITHOUT a render; r0, the supplied start image
(goals.start_image: the task's shipped start render, else start.py's cached render), is
what the models are shown and is z0's render. The loop works in the task's first camera
view (goals.py); the metric scores every view.

Every execution of a trial (raw programs, the refiner's alternatives, the start program)
goes through `CountingExecutor`, so the counts include what the refiner spends without
the refiner knowing about them.

Persistent scene (the paper's scene-origin ablation, VIGA's convention "saving successful
scene updates"): instead of reopening a saved .blend, each submission runs as the chain
of the previously delivered programs followed by the new one, afresh from the base. For
deterministic programs this is the scene a persistent runner would hold, and the chain
is a plain program the `scene_render` metric can score afresh (a saved .blend could not
be). Error lines are reported relative to the submitted program.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.systems.scene.blendergym import load_any_task
from tether.systems.scene.executor import Execution, RenderSettings, SceneExecutor
from tether.systems.scene.goals import goal_views, start_image
from tether.systems.scene.record import Refinement, Refiner, SceneRecord
from tether.systems.scene.scenes import TaskScenes
from tether.systems.scene.tasks import SceneTask

CHAIN_SEPARATOR = "\n# --- tether: next saved scene update ---\n"


class CountingExecutor:
    """A SceneExecutor proxy that counts executions and the renders they produced."""

    def __init__(self, inner: SceneExecutor) -> None:
        self.inner = inner
        self.executions = 0
        self.renders = 0

    def execute(self, source: str, **kwargs: Any) -> Execution:
        result = self.inner.execute(source, **kwargs)
        self.executions += 1
        self.renders += int(result.render_png is not None)
        return result

    def __getattr__(self, name: str) -> Any:  # everything else as the real executor has it
        return getattr(self.inner, name)


@dataclass
class Outcome:
    """One submitted candidate after refinement. `generated`: the delivered record is a
    program the generator (or a repair of one) produced, not the start program z0."""

    refinement: Refinement
    generated: bool
    executions: int  # this submission's executions: the raw one plus the refiner's

    @property
    def delivered(self) -> SceneRecord | None:
        return self.refinement.delivered

    @property
    def rendered(self) -> bool:
        return self.delivered is not None and self.delivered.rendered


class SceneSession:
    """The scene side of one trial (see the module docstring)."""

    def __init__(self, task: Task, scenes: TaskScenes, *, size: int | None,
                 samples: int | None, persistent: bool) -> None:
        # size, samples, persistent: the strategy's params (none: the task's render)
        where = task.data.get("task_dir")
        if not where:
            raise ConfigError(f"task {task.key} names no task_dir: scene strategies run scene "
                              "tasks only", hint="use the `scene` suite or `blendergym:DIR`")
        self.task: SceneTask = load_any_task(Path(where))
        self.scenes = scenes
        base = self.task.render
        self.render = RenderSettings(size=size or base.size, samples=samples or base.samples,
                                     seed=base.seed)
        self.executor = CountingExecutor(scenes.executor)
        self.persistent = persistent
        self.started = time.monotonic()
        self.view = goal_views(scenes, self.task, self.render)[0]  # GoalUnavailable
        self.base = scenes.staged(self.task, self.view.camera)
        self.goal_png: bytes = self.view.goal
        # z0: the start program observed (traced, state captured) from the base, not
        # rendered; its render is the supplied start image r0.
        observed = self.executor.execute(self.task.start, render=None, base=self.base)
        if not observed.ok:
            error = observed.error or {}
            raise RuntimeError(f"the start program did not run: {error.get('kind')}: "
                               f"{error.get('message')}")
        r0 = start_image(scenes, self.task, self.render, self.view)
        if r0 is None:
            raise RuntimeError("the start program did not render (no start image r0)")
        self.start_png: bytes = r0
        self.initial = SceneRecord(self.task.start, replace(observed, render_png=r0))

    def execute(self, program: str) -> Execution:
        return self.executor.execute(program, render=self.render, base=self.base)

    def submitted(self, program: str, chain: str) -> str:
        """The program a submission runs: itself, or after the chain (persistent scene)."""
        if not self.persistent or not chain:
            return program
        return chain + CHAIN_SEPARATOR + program

    def submit(self, program: str, refiner: Refiner, previous: SceneRecord,
               previous_generated: bool, chain: str = "") -> Outcome:
        """Execute and refine one candidate against the previous delivered record."""
        before = self.executor.executions
        # CountingExecutor wraps a SceneExecutor and offers the same execute (duck typed)
        refinement = refiner(self.submitted(program, chain), executor=self.executor,  # type: ignore[arg-type]
                             previous=previous, initial=self.initial, render=self.render,
                             base=self.base)
        spent = self.executor.executions - before
        if refinement.accepted == "previous":
            generated = previous_generated
        else:
            generated = refinement.accepted != "none" and refinement.delivered is not None
        return Outcome(refinement, generated, spent)

    def error_line(self, program: str, chain: str, line: int | None) -> int | None:
        """An error's line in the generator's own program (the chain shifts it)."""
        if line is None or not self.persistent or not chain:
            return line
        shift = len((chain + CHAIN_SEPARATOR).splitlines())
        return line - shift if line > shift else line

    def elapsed(self) -> float:
        return time.monotonic() - self.started
