"""The Blender executor: real bpy in a warm bwrap worker, afresh per program."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("bpy")

from tether.systems.scene.executor import RenderSettings, SceneExecutor  # noqa: E402

CUBE_X = 'bpy.data.objects["Cube"].location'


@pytest.fixture(scope="module")
def ex(bwrap) -> Iterator[SceneExecutor]:
    with SceneExecutor(sandbox=bwrap, timeout_s=60) as executor:
        yield executor


def test_every_execution_starts_from_the_base_scene(ex: SceneExecutor) -> None:
    first = ex.execute("import bpy\nbpy.data.objects['Cube'].location.x = 3\n")
    assert first.ok and first.state["cells"][CUBE_X] == [3.0, 0.0, 0.0]
    second = ex.execute("import bpy\nbpy.data.objects['Cube'].location.y += 1\n")
    assert second.state["cells"][CUBE_X] == [0.0, 1.0, 0.0]  # not [3, 1, 0]
    assert set(second.state["structure"]["objects"]) == {"Camera", "Cube", "Light"}
    assert not second.worker_replaced and ex.worker.restarts == 0


def test_a_raising_program_reports_its_error_and_what_came_before(ex: SceneExecutor) -> None:
    r = ex.execute("import bpy\nbpy.data.cameras['Camera'].lens = 0.5\nraise ValueError('x')\n")
    assert not r.ok and r.error["kind"] == "raised" and r.error["line"] == 3
    assert [(e["path"], e["readback"]) for e in r.events] == [("lens", 1.0)]
    assert r.state["cells"]['bpy.data.cameras["Camera"].lens'] == 1.0
    bad = ex.execute("x = = 1\n")
    assert bad.error["kind"] == "syntax" and bad.error["line"] == 1


def test_renders_and_quits_are_unsupported_and_the_worker_lives(ex: SceneExecutor) -> None:
    assert ex.execute("x = 1\n").ok  # a started worker
    pid = ex.worker.pid
    for source in ("import bpy\nbpy.ops.render.render()\n",
                   "import bpy\ntry:\n    bpy.ops.wm.quit_blender()\nexcept Exception:\n    pass\n",
                   "import sys\nsys.exit(0)\n"):
        r = ex.execute(source)
        assert not r.ok and r.error["kind"] == "unsupported", source
    assert ex.worker.pid == pid and ex.execute("x = 1\n").ok


def test_a_registered_property_is_invisible_to_the_next_program(ex: SceneExecutor) -> None:
    r = ex.execute("import bpy\nbpy.types.Object.tether_x = bpy.props.FloatProperty()\n")
    assert not r.ok and r.error["kind"] == "contaminated" and r.worker_replaced
    assert "type Object" in r.contaminated and r.state is None  # its evidence is not used
    after = ex.execute("import bpy\nassert not hasattr(bpy.types.Object, 'tether_x')\n")
    assert after.ok and not after.contaminated
    patched = ex.execute("import bpy\nbpy.path.abspath = lambda p, **k: 'patched'\n")
    assert patched.worker_replaced and "bpy.path" in patched.contaminated
    clean = ex.execute("import bpy\nassert bpy.path.abspath('//x') != 'patched'\n")
    assert clean.ok


def test_a_timeout_replaces_the_worker(ex: SceneExecutor) -> None:
    r = ex.execute("while True:\n    pass\n", timeout_s=5)
    assert not r.ok and r.error["kind"] == "timeout" and r.worker_replaced
    assert ex.execute("import bpy\nbpy.data.objects['Cube'].location.x = 1\n").ok


def test_cycles_render_with_engine_override_is_deterministic(ex: SceneExecutor) -> None:
    src = "import bpy\nbpy.context.scene.render.engine = 'BLENDER_WORKBENCH'\n"
    settings = RenderSettings(size=32, samples=4)
    a = ex.execute(src, render=settings)
    b = ex.execute(src, render=settings)
    assert a.ok and a.render_png is not None and a.render_png[:4] == b"\x89PNG"
    assert a.overrides == [{"path": "scene.render.engine", "from": "BLENDER_WORKBENCH",
                            "to": "CYCLES"}]
    assert a.render_png == b.render_png
    nocam = ex.execute("import bpy\nbpy.data.objects.remove(bpy.data.objects['Camera'])\n",
                       render=settings)
    assert not nocam.ok and nocam.error["kind"] == "render"


def test_persistent_mode_carries_each_successful_scene_to_the_next(bwrap) -> None:
    first = "import bpy\nbpy.data.objects['Cube'].location.x = 3\n"
    second = "import bpy\nbpy.data.objects['Cube'].location.y += 1\n"
    with SceneExecutor(sandbox=bwrap, timeout_s=60, persistent=True) as ex:
        a = ex.execute(first)
        assert a.ok and a.persisted
        b = ex.execute(second)  # sees the first's edit (afresh it would be [0, 1, 0])
        assert b.persisted and b.state["cells"][CUBE_X] == [3.0, 1.0, 0.0]
        # A failed program leaves the saved scene alone; its own edit is not kept.
        bad = ex.execute("import bpy\nbpy.data.objects['Cube'].location.z = 9\nraise ValueError\n")
        assert not bad.ok and not bad.persisted
        c = ex.execute("import bpy\nbpy.data.objects['Cube'].scale.x = 2\n")
        assert c.state["cells"][CUBE_X] == [3.0, 1.0, 0.0]
        assert c.state["cells"]['bpy.data.objects["Cube"].scale'] == [2.0, 1.0, 1.0]
        # The saved scene survives a replaced worker (here: a contaminating program).
        dirty = ex.execute("import bpy\nbpy.types.Object.tether_p = bpy.props.FloatProperty()\n")
        assert dirty.worker_replaced and not dirty.persisted
        d = ex.execute("x = 1\n")
        assert d.state["cells"][CUBE_X] == [3.0, 1.0, 0.0]
        ex.forget()
        assert ex.execute("x = 1\n").state["cells"][CUBE_X] == [0.0, 0.0, 0.0]
    # The default stays afresh: the second program does not see the first's edit.
    with SceneExecutor(sandbox=bwrap, timeout_s=60) as fresh:
        assert fresh.execute(first).persisted is False
        assert fresh.execute(second).state["cells"][CUBE_X] == [0.0, 1.0, 0.0]
