"""Light recovery and the owner rule on plain-dict records."""

from __future__ import annotations

from tether.systems.scene.refiner import light

from .states import event, record

KEY = ["lights", "Key"]


def test_requests_displaced_by_a_shared_write_and_reset_by_rebinding() -> None:
    events = [event(KEY, "energy", 0.0, via="KeyL"), event(KEY, "energy", 200.0, via="KeyR")]
    assert light.requests(record(events=events)) == {"KeyL": {"energy": 0.0}}
    rebound = [event(KEY, "energy", 0.0, via="KeyL"),
               event(["objects", "KeyL"], "data", {"id": KEY}, via="KeyL", kind="binding"),
               event(KEY, "energy", 200.0, via="KeyR")]
    assert light.requests(record(events=rebound)) == {}  # the reset drops KeyL's request
    by_name = [event(KEY, "energy", 0.0), event(KEY, "energy", 200.0, via="KeyR")]
    assert light.requests(record(events=by_name)) == {}  # no via: no one's request


def test_light_recovery_copies_for_the_displaced_owner_only() -> None:
    raw = record(events=[event(KEY, "energy", 0.0, via="KeyL"),
                         event(KEY, "energy", 200.0, via="KeyR")])
    cand = light.build_recovery("light_recovery_current", raw, raw)
    assert cand is not None
    obj = "bpy.data.objects['KeyL']"
    assert cand.patch == (f"import bpy\n{obj}.data = {obj}.data.copy()\n"
                          f"{obj}.data.energy = 0.0\n{obj}.data.color = (1.0, 1.0, 1.0)\n")
    assert cand.copies == {("KeyL", "data")} and cand.written == set()
    assert not light.realized(cand, raw)


def test_owners_of_one_block_needing_one_tuple_write_it_directly() -> None:
    cand = light.compile_owners("x", record(), {"KeyL": (50.0, [1.0, 1.0, 1.0]),
                                                "KeyR": (50.0, [1.0, 1.0, 1.0])}, effect=False)
    assert cand.patch == ("import bpy\nbpy.data.lights['Key'].energy = 50.0\n"
                          "bpy.data.lights['Key'].color = (1.0, 1.0, 1.0)\n")
    assert cand.copies == set()


def test_incompatible_owners_get_one_copy_per_tuple_group() -> None:
    cand = light.compile_owners("x", record(), {"KeyL": (50.0, [1.0, 1.0, 1.0]),
                                                "KeyR": (10.0, [1.0, 1.0, 1.0])}, effect=False)
    assert cand.patch.count(".data.copy()") == 2 and cand.copies == {("KeyL", "data"),
                                                                      ("KeyR", "data")}


def test_a_truncated_trace_has_no_light_requests() -> None:
    raw = record(events=[event(KEY, "energy", 0.0, via="KeyL"),
                         event(KEY, "energy", 200.0, via="KeyR")])
    raw.execution.truncated = True
    assert light.requests(raw) == {}
