"""minibpy on its own (no Blender needed): the bpy behaviours programs can see, the
executor's failure kinds, and the test-double render."""

from __future__ import annotations

import pytest

from tether.systems.scene.executor import RenderSettings
from tether.testing import minibpy
from tether.testing.minibpy.executor import MiniBpyExecutor


@pytest.fixture()
def bpy():
    minibpy.reset()
    return minibpy


def test_names_order_and_users_follow_blender(bpy) -> None:
    for n in ("b", "A", "a", "B", "Cube.010", "Cube.2"):
        bpy.data.meshes.new(n)
    assert [m.name for m in bpy.data.meshes] == ["A", "a", "b", "B", "Cube", "Cube.010",
                                                 "Cube.2"]
    assert bpy.data.meshes.new("Cube").name == "Cube.001"
    cube = bpy.data.objects["Cube"]
    mat = cube.active_material
    dup = cube.data.copy()
    assert (dup.users, mat.users) == (0, 2)  # the copied mesh's slot is a user
    twin = bpy.data.objects.new("Twin", cube.data)
    assert (cube.data.users, twin.users) == (2, 0)  # not linked to the scene yet


def test_values_are_clamped_and_stored_as_c_floats(bpy) -> None:
    cam = bpy.data.cameras["Camera"]
    cam.lens = 0.5
    assert cam.lens == 1.0
    bpy.data.objects["Cube"].location.x = 0.3
    assert bpy.data.objects["Cube"].location[0] == 0.30000001192092896
    with pytest.raises(TypeError):
        cam.lens = "a"
    with pytest.raises(ValueError):
        bpy.data.objects["Cube"].location = (1, 2)
    with pytest.raises(AttributeError):
        bpy.data.lights["Light"].nope = 1
    with pytest.raises(KeyError):
        bpy.data.objects["nope"]


def test_failures_are_results_and_changes_to_minibpy_are_undone() -> None:
    ex = MiniBpyExecutor()
    bad = ex.execute("x = = 1\n")
    assert bad.error["kind"] == "syntax" and bad.error["line"] == 1
    raised = ex.execute("import bpy\nbpy.data.cameras['Camera'].lens = 0.5\nraise ValueError\n")
    assert raised.error["kind"] == "raised" and raised.error["line"] == 3
    assert [e["readback"] for e in raised.events] == [1.0]
    for src in ("import bpy\nbpy.ops.render.render()\n", "import sys\nsys.exit(0)\n"):
        assert ex.execute(src).error["kind"] == "unsupported"
    patched = ex.execute("import bpy\nbpy.types.Object.extra = 1\nbpy.app = None\n")
    assert not patched.ok and patched.error["kind"] == "contaminated"
    assert patched.contaminated and patched.worker_replaced and patched.state is None
    assert patched.events == []
    assert not hasattr(minibpy.types.Object, "extra") and minibpy.app is not None
    assert ex.execute("import bpy\nassert not hasattr(bpy.types.Object, 'extra')\n").ok


@pytest.mark.parametrize("extra", ["", "bpy.data.objects['Cube']['f'] = lambda: 1\n"])
def test_every_execution_starts_from_the_base_script_s_scene(extra: str) -> None:
    """The built base is kept pickled and loaded afresh per execution; a base that cannot
    be pickled (a function in an ID property) is rebuilt per execution instead."""
    ex = MiniBpyExecutor(base_script="import bpy\nbpy.data.objects['Cube'].location.x = 5\n"
                         + extra)
    program = ("import bpy\ncube = bpy.data.objects['Cube']\ncube.location.x += 1\n"
               "bpy.data.objects.new('Extra', cube.data)\ncube.data.materials[0].name = 'M'\n")
    first, second = ex.execute(program), ex.execute(program)
    assert bool(ex._base) is not bool(extra)
    cell = 'bpy.data.objects["Cube"].location'
    assert first.state["cells"][cell][0] == second.state["cells"][cell][0] == 6.0
    assert first.state == second.state and first.events == second.events
    assert "Extra.001" not in second.state["structure"]["objects"]


def test_the_test_double_render_is_deterministic_and_follows_the_scene() -> None:
    ex = MiniBpyExecutor()
    settings = RenderSettings(size=32, samples=1)
    a = ex.execute("import bpy\n", render=settings)
    b = ex.execute("import bpy\n", render=settings)
    assert a.render_png[:4] == b"\x89PNG" and a.render_png == b.render_png
    assert a.overrides == [{"path": "scene.render.engine", "from": "BLENDER_EEVEE_NEXT",
                            "to": "CYCLES"}]
    red = ex.execute("import bpy\nbpy.data.materials['Material'].node_tree.nodes"
                     "['Principled BSDF'].inputs[0].default_value = (1, 0, 0, 1)\n",
                     render=settings)
    moved = ex.execute("import bpy\nbpy.data.objects['Cube'].location.x = 1\n", render=settings)
    assert len({a.render_png, red.render_png, moved.render_png}) == 3
    nocam = ex.execute("import bpy\nbpy.data.objects.remove(bpy.data.objects['Camera'])\n",
                       render=settings)
    assert not nocam.ok and nocam.error["kind"] == "render"


CUBE_X = 'bpy.data.objects["Cube"].location'


def test_persistent_mode_carries_each_successful_scene_to_the_next() -> None:
    """The same sequence (and the same expected cells) as SceneExecutor's persistent test
    on real bpy (tests/systems/scene/test_executor.py)."""
    first = "import bpy\nbpy.data.objects['Cube'].location.x = 3\n"
    second = "import bpy\nbpy.data.objects['Cube'].location.y += 1\n"
    ex = MiniBpyExecutor(persistent=True)
    a = ex.execute(first)
    assert a.ok and a.persisted
    b = ex.execute(second)  # sees the first's edit (afresh it would be [0, 1, 0])
    assert b.persisted and b.state["cells"][CUBE_X] == [3.0, 1.0, 0.0]
    bad = ex.execute("import bpy\nbpy.data.objects['Cube'].location.z = 9\nraise ValueError\n")
    assert not bad.ok and not bad.persisted
    c = ex.execute("import bpy\nbpy.data.objects['Cube'].scale.x = 2\n",
                   render=RenderSettings(size=8, samples=1))
    assert c.persisted and c.state["cells"][CUBE_X] == [3.0, 1.0, 0.0]
    dirty = ex.execute("import bpy\nbpy.types.Object.tether_p = 1\n")
    assert dirty.contaminated and not dirty.persisted
    d = ex.execute("x = 1\n")
    assert d.state["cells"][CUBE_X] == [3.0, 1.0, 0.0]
    assert d.state["cells"]['bpy.data.objects["Cube"].scale'] == [2.0, 1.0, 1.0]
    # Kept before its render: c's engine override to Cycles is not in the kept scene.
    e = ex.execute("x = 1\n", render=RenderSettings(size=8, samples=1))
    assert [o["from"] for o in e.overrides] == ["BLENDER_EEVEE_NEXT"]
    ex.forget()
    assert ex.execute("x = 1\n").state["cells"][CUBE_X] == [0.0, 0.0, 0.0]
    fresh = MiniBpyExecutor()
    assert fresh.execute(first).persisted is False
    assert fresh.execute(second).state["cells"][CUBE_X] == [0.0, 1.0, 0.0]
