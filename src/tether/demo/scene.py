"""`tether demo`'s scene section: one bundled example of a displaced write and the refiner's
repair, rendered small (the task's 64x64, 8 samples) on real Blender.

The example program is tether's own, labelled as such, not a model's output: it paints
the right cube of `material_right_red` red through the material both cubes share, then
re-asserts the left cube's blue through the same shared material, so the later write
displaces the earlier one (both cubes end blue: the request for Right is lost). The
VETR refiner (tether.systems.scene.refiner) repairs it. Start / raw /
delivered / goal renders and their PL against the goal go into the run's meta
(`scene_demo`) and from there into the report.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from rich.console import Console
from rich.table import Table

from tether.runs import RunStore

TASK = "material_right_red"
EXAMPLE = '''import bpy

# tether's demo example (not a model's output): Right and Left share the material
# "Paint". Right is painted red, then Left's blue is re-asserted through the same
# material, which displaces the red: both cubes end blue.
right = bpy.data.objects["Right"]
bsdf = right.active_material.node_tree.nodes["Principled BSDF"]
bsdf.inputs["Base Color"].default_value = (0.8, 0.05, 0.05, 1.0)
left = bpy.data.objects["Left"]
left.active_material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (
    0.1, 0.2, 0.8, 1.0)
'''


def _pl(png: bytes | None, goal: bytes) -> float | None:
    from tether.systems.scene import png_rgb, score

    return None if png is None else score(png_rgb(png), png_rgb(goal)).pl


def scene_demo(store: RunStore) -> dict[str, Any]:
    """Run the example and refine it; store the renders as blobs."""
    from tether.systems.scene import SceneRecord, TaskScenes, bundled_tasks_dir, load_task, refine

    task = load_task(bundled_tasks_dir() / TASK)
    row: dict[str, Any] = {"task": TASK, "program": EXAMPLE, "label": "example program "
                           "(bundled with tether, not a model's output)"}
    with TaskScenes() as scenes:
        settings = task.render
        assert task.goal is not None  # the demo's task has a goal program
        goal, _ = scenes.render(task, task.goal, settings)
        start, _ = scenes.render(task, task.start, settings)
        assert goal is not None and start is not None, "the bundled task's programs render"
        base = scenes.staged(task)
        run = scenes.executor.execute
        initial = SceneRecord(task.start, run(task.start, render=settings, base=base))
        refinement = refine(EXAMPLE, executor=scenes.executor, previous=initial,
                            initial=initial, render=settings, base=base)
        raw = refinement.raw
        delivered = refinement.delivered
        row.update(accepted=refinement.accepted, executions=refinement.executions,
                   delivered_program=delivered.program if delivered else None)
        delivered_png = delivered.execution.render_png if delivered else None
    renders = {"start": start, "raw": raw.execution.render_png, "delivered": delivered_png,
               "goal": goal}
    row["pl"] = {k: _pl(v, goal) for k, v in renders.items()}
    row["renders"] = {k: (store.put_blob(v) if v else None) for k, v in renders.items()}
    return row


def run_scene_demo(console: Console, store: RunStore) -> dict[str, Any] | None:
    """The demo's scene section (its row, as stored in the run's meta); skipped with a line,
    and None, when bpy is not installed."""
    if importlib.util.find_spec("bpy") is None:
        console.print("scene demo skipped: bpy (Blender as a Python module) is not installed")
        return None
    row = scene_demo(store)
    store.set_meta("scene_demo", row)
    table = Table(title=f"scene: a displaced write and its repair ({TASK}, {row['label']})")
    for col in ("render", "PL vs goal"):
        table.add_column(col)
    for name in ("start", "raw", "delivered", "goal"):
        pl = row["pl"][name]
        table.add_row(name, "-" if pl is None else f"{pl:.5f}")
    console.print(table)
    console.print(f"refiner: accepted {row['accepted']}, {row['executions']} executions "
                  "beyond the raw one")
    return row

