"""What a scene task is judged against, per camera view, and a program scored over them.

A task (the paper's (B, p0, r0, y*)) has one view per camera its base renders through
(TaskScenes.views: BlenderGym's Camera1 / Camera2, else the base's scene.camera). Each
view's goal y* is the supplied `renders/goal/render<i>.png` when the task has one (the
benchmark's goal, as published: it wins over goal.py, whose render on bpy 4.2 differs from
a 3.6 render), else the goal program's render through it; a view with neither is not
scored. A program scored against a supplied image is rendered at that image's resolution
(`View.settings`), so nothing is resized. Its start image r0 is the supplied
`renders/start/render<i>.png`, else start.py's render (cached: a reference image, not an
observation of the loop).

The host loop works in the first view (the paper's wrapper renders Camera1); the metric
scores every view with a goal and averages (metrics.mean_scores).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tether.errors import ConfigError
from tether.systems.scene.executor import Execution, RenderSettings
from tether.systems.scene.metrics import mean_scores, score
from tether.systems.scene.tasks import SceneTask, png_rgb

if TYPE_CHECKING:
    from tether.systems.scene.learned import LearnedMetrics
    from tether.systems.scene.metrics import SceneScores
    from tether.systems.scene.scenes import TaskScenes


class GoalUnavailable(RuntimeError):
    """The goal program does not render: the task is broken, not the artifact."""


@dataclass(frozen=True)
class View:
    number: int  # 1-based: render<number>.png
    camera: str | None  # None: the base's own scene.camera
    goal: bytes  # the goal image, PNG bytes
    supplied: tuple[int, int] | None = None  # (width, height) of a supplied goal image

    @property
    def label(self) -> str:
        return self.camera or "scene.camera"

    def settings(self, base: RenderSettings) -> RenderSettings:
        """The settings a program is rendered with to be scored in this view: a supplied
        goal image's resolution, else `base`."""
        if self.supplied is None:
            return base
        width, height = self.supplied
        return replace(base, size=width, height=None if height == width else height)


def goal_views(scenes: TaskScenes, task: SceneTask, settings: RenderSettings) -> list[View]:
    """Every view of the task that has a goal (see the module docstring)."""
    out = []
    for number, camera in enumerate(scenes.views(task), 1):
        if number in task.goal_images:
            image = task.goal_images[number].read_bytes()
            height, width = png_rgb(image).shape[:2]  # ConfigError: not an image
            out.append(View(number, camera, image, (width, height)))
            continue
        if task.goal is None:
            continue
        png, run = scenes.render(task, task.goal, settings, camera=camera)
        if png is None:
            error = (run.error if run else None) or {}
            raise GoalUnavailable(f"the goal program did not render: {error.get('kind')}: "
                                  f"{error.get('message')}")
        out.append(View(number, camera, png))
    if not out:
        raise ConfigError(f"{task.dir}: no goal: neither goal.py nor renders/goal/render1.png")
    return out


def start_image(scenes: TaskScenes, task: SceneTask, settings: RenderSettings,
                view: View) -> bytes | None:
    """r0 of a view: the supplied start image, else start.py's cached render (None when
    it does not render)."""
    shipped = task.start_images.get(view.number)
    if shipped is not None:
        return shipped.read_bytes()
    png, _ = scenes.render(task, task.start, settings, camera=view.camera)
    return png


def score_program(scenes: TaskScenes, task: SceneTask, program: str, settings: RenderSettings,
                  learned: LearnedMetrics | None = None
                  ) -> tuple[SceneScores | None, Execution | None, list[View]]:
    """(mean scores over the views, None or the failed execution, the views). A program
    that fails in any view fails: it has no score."""
    views = goal_views(scenes, task, settings)
    per_view = []
    for view in views:
        result = scenes.run(task, program, render=view.settings(settings), trace=False,
                            camera=view.camera)
        if not result.ok or result.render_png is None:
            return None, result, views
        per_view.append(score(png_rgb(result.render_png), png_rgb(view.goal), learned))
    return mean_scores(per_view), None, views
