"""Non-light recovery on plain-dict records: Eq. 7, owner-local writes, the local copy."""

from __future__ import annotations

from tether.systems.scene.refiner import recovery

from .states import BLUE, RED, SOCKET, event, record

PAINT = ["materials", "Paint"]
LEFT_X = 'bpy.data.objects["Left"].location'


def test_eq7_latest_displaced_write_of_a_plain_cell() -> None:
    events = [event(["objects", "Left"], "location", 5.0, "Left", 0),
              event(["objects", "Left"], "location", 7.0, "Left", 0),
              event(["objects", "Left"], "location", -1.0, "Left", 0)]
    raw = record(events=events)  # final x = -1: 7 is the latest displaced value
    assert recovery.displaced(raw) == {("objects", "Left", "location", 0, None): (7.0, 1)}
    cand = recovery.build("recovery_current", raw, raw)
    assert cand is not None
    assert cand.patch == "import bpy\nbpy.data.objects['Left'].location[0] = 7.0\n"
    assert cand.written == {(LEFT_X, 0)} and cand.copies == set()
    assert cand.program.startswith("import bpy\n\n# tether refine: recovery_current\n")


def test_a_write_with_no_readback_is_no_evidence() -> None:
    e = event(["objects", "Left"], "location", 5.0, "Left", 0)
    e["readback"] = None
    assert recovery.displaced(record(events=[e])) == {}


def test_owner_local_writes_to_a_shared_material_get_a_local_copy() -> None:
    events = [event(PAINT, SOCKET, RED, via="Right"), event(PAINT, SOCKET, BLUE, via="Left")]
    raw = record(events=events)  # Paint ends blue on both: Right's red was displaced
    assert recovery.displaced(raw) == {("materials", "Paint", SOCKET, None, "Right"): (RED, 0)}
    cand = recovery.build("recovery_current", raw, raw)
    assert cand is not None
    slot = "bpy.data.objects['Right'].material_slots[0].material"
    assert cand.patch == (f"import bpy\n{slot} = {slot}.copy()\n"
                          f"{slot}.{SOCKET} = (0.8, 0.05, 0.05, 1.0)\n")
    assert cand.copies == {("Right", "material_slots[0].material")} and cand.written == set()
    (end,) = cand.endpoints
    assert (end.owner, end.binding, end.value) == ("Right", "material_slots[0].material", RED)


def test_an_owner_whose_last_request_holds_is_not_displaced() -> None:
    events = [event(PAINT, SOCKET, RED, via="Left"), event(PAINT, SOCKET, BLUE, via="Left")]
    assert recovery.displaced(record(events=events)) == {}


def test_initial_recovery_needs_a_target_in_raw_and_skips_what_raw_realizes() -> None:
    z0 = record(events=[event(["objects", "Left"], "location", 5.0, "Left", 0),
                        event(["objects", "Left"], "location", -1.0, "Left", 0)])
    raw = record()
    cand = recovery.build("recovery_initial", raw, z0)
    assert cand is not None and cand.patch.endswith("location[0] = 5.0\n")
    realized = record(cells={LEFT_X: [5.0, 0.0, 0.0]})
    assert recovery.build("recovery_initial", realized, z0) is None  # raw already has it
    assert recovery.build("recovery_initial", record(ok=False), z0) is None  # no raw state


def test_a_truncated_trace_is_no_evidence() -> None:
    raw = record(events=[event(["objects", "Left"], "location", 7.0, "Left", 0)])
    assert recovery.displaced(raw)
    raw.execution.truncated = True
    assert recovery.displaced(raw) == {}


def test_plain_and_owner_local_writes_are_separate_groups() -> None:
    events = [event(PAINT, SOCKET, RED, via="Right"), event(PAINT, SOCKET, BLUE)]  # by name
    assert recovery.displaced(record(events=events)) == {
        ("materials", "Paint", SOCKET, None, "Right"): (RED, 0)}  # the by-name write holds
