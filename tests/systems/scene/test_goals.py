"""BlenderGym as published, on real Blender: a supplied goal image is the goal (over
goal.py) and programs are scored against it at its resolution, non-square included; a
folder named like BlenderGym's tasks gets its family from the name, and `tasks check`
says so."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

pytest.importorskip("bpy")

from tether.systems.scene.blendergym import load_blendergym_task  # noqa: E402
from tether.systems.scene.check import check_task  # noqa: E402
from tether.systems.scene.executor import RenderSettings  # noqa: E402
from tether.systems.scene.goals import goal_views, score_program  # noqa: E402
from tether.systems.scene.instrument import SceneRenderInstrument  # noqa: E402
from tether.systems.scene.scenes import TaskScenes  # noqa: E402
from tether.systems.scene.tasks import bundled_tasks_dir, load_task, png_rgb  # noqa: E402


@pytest.fixture(scope="module")
def scenes(tmp_path_factory, bwrap) -> Iterator[TaskScenes]:
    with TaskScenes(tmp_path_factory.mktemp("scene-cache")) as s:
        yield s


def test_a_supplied_goal_image_is_the_goal_at_its_resolution(scenes, tmp_path) -> None:
    src = load_task(bundled_tasks_dir() / "placement_box_back")
    wide = RenderSettings(size=48, height=32, samples=src.render.samples, seed=0)
    image, _ = scenes.render(src, src.goal, wide)
    assert png_rgb(image).shape == (32, 48, 3)  # a non-square render
    folder = tmp_path / "placement12"  # BlenderGym's naming: no task.json
    (folder / "renders" / "goal").mkdir(parents=True)
    shutil.copyfile(scenes.base(src), folder / "blender_file.blend")
    (folder / "renders" / "goal" / "render1.png").write_bytes(image)
    (folder / "start.py").write_text(src.start)
    (folder / "goal.py").write_text(src.start)  # a goal program that is NOT the goal image
    task = load_blendergym_task(folder)
    assert (task.family, task.family_from) == ("placement", "folder name")
    (view,) = goal_views(scenes, task, task.render)
    assert view.goal == image and view.supplied == (48, 32)
    assert view.settings(task.render) == wide  # the image's resolution, the task's samples
    scores, failed, _ = score_program(scenes, task, src.goal, task.render)
    assert failed is None and scores.pl == 0.0 and not scores.resized
    assert scores.size == (48, 32)
    start, _, _ = score_program(scenes, task, src.start, task.render)
    assert start.pl > 1e-4  # goal.py (the start program here) is not what is scored against
    checked = check_task(scenes, task)
    assert checked.ok, checked.problems
    assert (checked.details["family"], checked.details["family_from"]) == ("placement",
                                                                          "folder name")
    paper = SceneRenderInstrument(SceneRenderInstrument.Params(preset="paper"), scenes=scenes)
    assert (paper.size, paper.samples) == (512, 512)  # the paper's settings, named
