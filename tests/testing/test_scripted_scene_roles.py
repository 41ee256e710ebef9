"""The scripted VETR roles (test doubles) recognise a bundled task and edit once."""

from __future__ import annotations

from tether.models.base import GenerateParams
from tether.systems.scene.tasks import bundled_tasks_dir, load_task
from tether.testing.scripted_models import CallInfo
from tether.testing.scripted_scene_roles import DISPLACING, displacing_generator

INFO = CallInfo(0, 0, GenerateParams(), "generator")


def prompt(task_id: str) -> list[dict]:
    task = load_task(bundled_tasks_dir() / task_id)
    return [{"role": "user", "content": f"Edit the scene.\n{task.description}"}]


def test_a_shared_data_task_gets_the_displacing_edit_then_end() -> None:
    messages = prompt("material_right_red")
    reply = displacing_generator(messages, INFO)
    # The scripted generator asks for the verifier on its one edit (verify on request).
    assert reply.startswith("ACTION: edit verify\n```python\n")
    assert DISPLACING["material_right_red"] in reply
    follow_up = [*messages, {"role": "assistant", "content": reply},
                 {"role": "user", "content": "Here is the render."}]
    assert displacing_generator(follow_up, INFO) == "ACTION: end"


def test_other_tasks_get_their_goal_program() -> None:
    task = load_task(bundled_tasks_dir() / "placement_box_back")
    assert task.goal in displacing_generator(prompt("placement_box_back"), INFO)
    assert "placement_box_back" not in DISPLACING
