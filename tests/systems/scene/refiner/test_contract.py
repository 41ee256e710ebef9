"""Valid_h's predicates on plain-dict records: each check fails and passes."""

from __future__ import annotations

import copy

from tether.systems.scene.executor import Execution
from tether.systems.scene.refiner import projection
from tether.systems.scene.refiner.contract import readable, valid

from .states import SOCKET, png, record

FILL_E = 'bpy.data.lights["Fill"].energy'


def candidate():
    prev = record()
    raw = record(cells={FILL_E: 200.0})
    cand = projection.build("projection_half", raw, prev)
    assert cand is not None
    return cand


def run(cells=None, state=None, **kw) -> Execution:
    return record(cells=cells, state=state, **kw).execution


def test_the_compiled_state_passes_every_check() -> None:
    ok, checks = valid(candidate(), run({FILL_E: 150.0}))
    assert ok and all(c["ok"] for c in checks.values())
    assert checks["endpoints"]["values"][0]["observed"] == [150.0, 150.0, 150.0]
    assert checks["preservation"]["checked"] == 9  # 11 cells less the written energy, colour


def test_an_unrealized_or_unknown_endpoint_fails() -> None:
    ok, checks = valid(candidate(), run({FILL_E: 149.0}))
    assert not ok and not checks["endpoints"]["ok"]
    ok, checks = valid(candidate(), run(ok=False))
    assert not ok and checks["executed"] == {"ok": False, "error": None}
    assert checks["preservation"]["ok"] is False  # no state: unknown, never true


def test_a_moved_protected_object_fails_preservation_and_frames() -> None:
    ok, checks = valid(candidate(), run({FILL_E: 150.0,
                                         'bpy.data.objects["Left"].location': [5.0, 0, 0]}))
    assert not ok and checks["frames"]["changed"] == 1 and checks["preservation"]["changed"] == 1
    ok, checks = valid(candidate(), run({FILL_E: 150.0,
                                         f'bpy.data.materials["Paint"].{SOCKET}': [0, 0, 0, 1]}))
    assert not ok and checks["frames"]["ok"] and not checks["preservation"]["ok"]


def test_a_rebinding_or_a_new_block_outside_the_permitted_copies_fails() -> None:
    state = copy.deepcopy(run({FILL_E: 150.0}).state)
    state["bindings"][5]["to"] = ["lights", "Key.001"]  # KeyR rebound to a copy
    state["cells"]['bpy.data.lights["Key.001"].energy'] = 200.0
    ok, checks = valid(candidate(), run(state=state))
    assert not ok and not checks["bindings"]["ok"] and checks["scope"]["new"] == [
        ["lights", "Key.001"]]


def test_structure_and_render_context_and_render() -> None:
    state = copy.deepcopy(run({FILL_E: 150.0}).state)
    state["structure"]["links"]["materials"]["Paint"] = []
    ok, checks = valid(candidate(), run(state=state))
    assert not ok and checks["structure"]["changed"] == ["links materials['Paint']"]
    ex = run({FILL_E: 150.0})
    ex.overrides = [{"path": "scene.render.engine", "from": "BLENDER_EEVEE_NEXT", "to": "CYCLES"}]
    assert valid(candidate(), ex)[0]  # the executor's own switch is the render context
    ex.overrides.append({"path": "scene.render.fps", "from": 24, "to": 30})
    assert not valid(candidate(), ex)[0]
    assert readable(png()) and not readable(b"\x89PNG\r\n\x1a\nbroken") and not readable(None)


def test_a_permitted_copy_passes_and_must_equal_its_original_but_for_its_endpoints() -> None:
    prev = record()
    state = copy.deepcopy(prev.execution.state)
    state["bindings"][4]["to"] = ["lights", "Key.001"]  # KeyL got its own copy, switched off
    state["cells"].update({'bpy.data.lights["Key.001"].energy': 0.0,
                           'bpy.data.lights["Key.001"].color': [1.0, 1.0, 1.0],
                           'bpy.data.lights["Key.001"].size': 1.0})
    raw = record(state=state)
    full = projection.build("projection_full", raw, prev)
    assert full is not None and full.copies == {("KeyL", "data")}
    ok, checks = valid(full, raw.execution)
    assert ok, checks
    assert checks["scope"]["copies"] == [[["lights", "Key.001"], ["lights", "Key"]]]
    state["cells"]['bpy.data.lights["Key.001"].size'] = 3.0
    ok, checks = valid(full, record(state=state).execution)
    assert not ok and checks["scope"]["copy_differs"] == ['bpy.data.lights["Key.001"].size']
