"""TEST DOUBLES: scripted generator, verifier and judge for the VETR loop. Not models.

`displacing_generator` stands in for a generator that makes the mistake the refiner
exists for: on the bundled tasks whose edit touches shared data it writes the target
*and then re-asserts the other user's value through the other object*, so the later
write displaces the earlier one in the shared block (the right cube's red is repainted
blue through the left cube's shared material, and so on). On every other task it submits
the task's own goal program. It recognises the task by the description in its prompt,
edits once, then ends. With it, `vetr` with the refiner on and off differ only in what
the refiner does with the same submissions (the shipped experiment `vetr_refiner_scripted`).

    scripted:tether.testing.scripted_scene_roles:displacing_generator
    scripted:tether.testing.scripted_scene_roles:approving_verifier
    scripted:tether.testing.scripted_scene_roles:first_judge
"""

from __future__ import annotations

from functools import cache

from tether.models import Message, text_of
from tether.systems.scene import bundled_task_dirs, load_task
from tether.testing.scripted_models import CallInfo

_ROTATION = 'nodes["Transform Geometry"].inputs["Rotation"].default_value'
_BASE_COLOR = 'node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value'

#: the displacing edit per shared-data task: the target first, then the other user's
#: start value re-asserted through the other object (which shares the block)
DISPLACING: dict[str, str] = {
    "material_right_red": (
        "import bpy\n"
        f"bpy.data.objects['Right'].active_material.{_BASE_COLOR} = (0.8, 0.05, 0.05, 1.0)\n"
        f"bpy.data.objects['Left'].active_material.{_BASE_COLOR} = (0.1, 0.2, 0.8, 1.0)\n"
    ),
    "lighting_key_left_off": (
        "import bpy\n"
        "bpy.data.objects['KeyL'].data.energy = 0.0\n"
        "bpy.data.objects['KeyR'].data.energy = 200.0\n"
    ),
    "blendshape_twin_only": (
        "import bpy\n"
        "bpy.data.objects['Twin'].data.shape_keys.key_blocks['Stretch'].value = 1.0\n"
        "bpy.data.objects['Face'].data.shape_keys.key_blocks['Stretch'].value = 0.0\n"
    ),
    "geometry_twist_b_only": (
        "import math\nimport bpy\n"
        f"bpy.data.objects['TowerB'].modifiers['Shape'].node_group.{_ROTATION} = "
        "(0.0, 0.0, math.pi / 4)\n"
        f"bpy.data.objects['TowerA'].modifiers['Shape'].node_group.{_ROTATION} = "
        "(0.0, 0.0, 0.0)\n"
    ),
}


@cache
def _tasks() -> tuple[tuple[str, str, str], ...]:
    """(id, first description line, goal program) of every bundled task."""
    out = []
    for d in bundled_task_dirs():
        t = load_task(d)
        assert t.goal is not None  # every bundled task has a goal program
        out.append((t.id, t.description.strip().splitlines()[0], t.goal))
    return tuple(out)


def _task_of(messages: list[Message]) -> tuple[str, str]:
    text = "\n".join(text_of(m) for m in messages)
    for task_id, first_line, goal in _tasks():
        if first_line in text:
            return task_id, goal
    raise ValueError("displacing_generator: no bundled task's description in the prompt")


def displacing_generator(messages: list[Message], info: CallInfo) -> str:
    if any(m.get("role") == "assistant" for m in messages):  # it has edited: done
        return "ACTION: end"
    task_id, goal = _task_of(messages)
    program = DISPLACING.get(task_id, goal)
    return f"ACTION: edit verify\n```python\n{program}```"


def approving_verifier(messages: list[Message], info: CallInfo) -> str:
    return "The render is close to the goal."


def first_judge(messages: list[Message], info: CallInfo) -> str:
    return "A"
