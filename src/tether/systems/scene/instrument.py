"""The `scene_render` instrument: render a scene program on its task's base and score it
against the goal render with the Appendix L metrics (score = PL, lower is better).

The task names its directory in `task.data["task_dir"]` (tether's layout or BlenderGym's).
The goal is the task's supplied goal image (the program rendered at that image's
resolution), else goal.py rendered here with the task's settings and cached (goals.py);
a task with camera views Camera1 / Camera2 is scored in each and the metrics averaged.
A program that fails to run or render scores the worst PL, 1.0 (images lie in [0, 1]),
with the execution's error as a defect, so a failing artifact is never averaged out of
the mean.
Spec options: `scene_render;size=64;samples=8;preset=paper;tolerance=0.0001;clip=PATH;
lpips=PATH` (size/samples override the task's; preset=paper is the paper's 512 samples at
512 px, executor.RENDER_PRESETS, size/samples still override it; `passed` is PL <=
tolerance; clip / lpips name the ONNX networks of N-CLIP and LPIPS, else $TETHER_CLIP_ONNX
/ $TETHER_LPIPS_ONNX: learned.py).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.errors import ConfigError
from tether.instruments import InstrumentEnv, register_instrument
from tether.systems.scene.blendergym import load_any_task
from tether.systems.scene.executor import RENDER_PRESETS, RenderSettings
from tether.systems.scene.goals import score_program
from tether.systems.scene.learned import LearnedMetrics
from tether.systems.scene.scenes import TaskScenes
from tether.systems.scene.tasks import RENDER_TOLERANCE_PL

WORST_PL = 1.0
_SCENES: TaskScenes | None = None
_SCENES_PID: int | None = None
_LOCK = threading.Lock()


def shared_scenes() -> TaskScenes:
    """One warm TaskScenes per process (the executor is not shared across a fork)."""
    global _SCENES, _SCENES_PID
    with _LOCK:
        if _SCENES is None or _SCENES_PID != os.getpid():
            _SCENES, _SCENES_PID = TaskScenes(), os.getpid()
        return _SCENES


@register_instrument("scene_render")
class SceneRenderInstrument:
    name: ClassVar[str] = "scene_render"
    # 2: goal images, camera views averaged, N-CLIP / LPIPS when configured
    # 3: a supplied goal image is the goal (over goal.py), programs scored against it are
    # rendered at its resolution; preset=paper
    version: ClassVar[str] = "3"
    grounded: ClassVar[bool] = True
    higher_is_better = False

    class Params(params.Params):
        """Spec options (`scenes`, a warm executor callers share in code, is none)."""

        size: params.Count | None = Field(None, description="render size (default: the "
                                                            "task's)")
        samples: params.Count | None = Field(None, description="render samples (default: "
                                                               "the task's)")
        preset: Literal["task", "paper"] = Field(
            "task", description="render settings: the task's, or the paper's (512 samples "
                                "at 512 px: minutes a render on 2 CPU cores)")
        tolerance: float = Field(RENDER_TOLERANCE_PL, ge=0, allow_inf_nan=False,
                                 description="pixel-loss tolerance of a pass")
        clip: str | None = Field(None, description="a CLIP model for N-CLIP (optional)")
        lpips: str | None = Field(None, description="an LPIPS network (optional)")

    def __init__(self, params: Params | None = None, *,
                 scenes: TaskScenes | None = None) -> None:
        self.params = p = params if params is not None else self.Params()
        named = RENDER_PRESETS.get(p.preset, {})
        # a preset names the render; size and samples given beside it still win
        self.size = p.size or named.get("size")
        self.samples = p.samples or named.get("samples")
        self._scenes = scenes
        self.learned = LearnedMetrics.configured(p.clip, p.lpips)

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        where = task.data.get("task_dir")
        if not where:
            raise ConfigError(f"task {task.key} names no task_dir for scene_render")
        scene_task = load_any_task(Path(where))
        base = scene_task.render
        settings = RenderSettings(size=self.size or base.size,
                                  samples=self.samples or base.samples,
                                  seed=base.seed)
        scenes = self._scenes or shared_scenes()
        scores, failed, views = score_program(scenes, scene_task, artifact.text, settings,
                                              self.learned)
        raw: dict[str, Any] = {"size": settings.size, "samples": settings.samples,
                               "preset": self.params.preset,
                               "view_cameras": [v.label for v in views],
                               "goal": "image" if any(v.supplied for v in views) else "program",
                               "render_sizes": [[(r := v.settings(settings)).size,
                                                 r.height or r.size] for v in views]}
        if scores is None:
            assert failed is not None
            raw["overrides"] = failed.overrides
            error = failed.error or {}
            raw["execution"] = error
            return Observation(
                instrument=self.name, version=self.version, grounded=True, score=WORST_PL,
                passed=False, higher_is_better=False, aggregation="mean_score", raw=raw,
                defects=[Defect(kind=f"execution_{error.get('kind')}",
                                message=str(error.get("message", ""))[:500],
                                location=f"line {error.get('line')}")],
            )  # fmt: skip
        raw.update(scores.to_json())
        return Observation(instrument=self.name, version=self.version, grounded=True,
                           score=scores.pl, passed=scores.pl <= self.params.tolerance,
                           higher_is_better=False, aggregation="mean_score", raw=raw)
