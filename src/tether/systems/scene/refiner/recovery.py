"""Non-light recovery: restore displaced writes (the paper's Eq. 7) in the raw program.

For a source execution s (the raw one, or the initial reference z0) and a supported
non-light cell (a captured cell whose block is not a light's data), the displaced values
are the writes whose read-back value does not agree with s's final value; the latest one
is the hypothesis. A write requested through an object (`via`) into a block that object
shares with others is owner-local: that object's own latest request, when it disagrees
with the final value, is restored on a local copy (copy-and-rebind), so the other users
keep theirs. All eligible cells of one source form one candidate, compiled into the raw
program and checked against the raw record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.systems.scene.patch import CellWrite, compile_patch
from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner.candidate import (
    Candidate,
    Endpoint,
    append_patch,
    binding_to,
    cell_key,
    observed,
    shared,
    value_at,
)  # fmt: skip
from tether.systems.scene.refiner.spec import VALUE_KINDS, agree

Group = tuple[str, str, str, int | None, str | None]  # collection, name, path, index, owner


def displaced(record: SceneRecord) -> dict[Group, tuple[Any, int]]:
    """Per cell (and owner, for owner-local writes to shared blocks): (value, event number)
    of the latest displaced write in the record's trace."""
    ex = record.execution
    state = ex.state
    if state is None or ex.truncated:
        return {}  # a truncated trace may miss the later writes: incomplete, no evidence
    writes: dict[Group, list[tuple[Any, int]]] = {}
    for i, e in enumerate(ex.events):
        coll, name = e["owner"]
        if e["kind"] not in VALUE_KINDS or coll == "lights" or e["readback"] is None:
            continue  # light data is the light channel's; no readback is no evidence
        key = cell_key(coll, name, e["path"])
        if key not in state["cells"]:
            continue  # not a supported (captured) cell
        via = e.get("via")
        local = via and coll != "objects" and shared(state, via[1], (coll, name))
        owner = via[1] if local and via else None  # local is truthy only with a via
        writes.setdefault((coll, name, e["path"], e["index"], owner), []).append(
            (e["readback"], i))
    out = {}
    for group, seen in writes.items():
        coll, name, path, index, owner = group
        final = value_at(state, cell_key(coll, name, path), index)
        if owner is None:
            # Eq. 7: the latest write of the group whose value differs from the final one.
            differing = [(v, i) for v, i in seen if not agree(v, final)]
            if differing:
                out[group] = differing[-1]
        elif not agree(seen[-1][0], final):
            out[group] = seen[-1]  # the owner's own last request, displaced by another's
    return out


def build(name: str, raw: SceneRecord, source: SceneRecord) -> Candidate | None:
    """The recovery candidate of one source (raw for current, z0 for initial), or None
    when the evidence is missing or no eligible cell is left."""
    state = raw.execution.state
    if not raw.execution.ok or state is None or not source.execution.ok:
        return None
    writes: list[CellWrite] = []
    endpoints: list[Endpoint] = []
    written: set[tuple[str, int | None]] = set()
    copies: set[tuple[str, str]] = set()
    for (coll, block, path, index, owner), (value, _) in sorted(
            displaced(source).items(), key=lambda kv: kv[1][1]):
        key = cell_key(coll, block, path)
        if key not in state["cells"]:
            continue  # no resolvable target in the raw program
        via = shared(state, owner, (coll, block)) if owner is not None else None
        if owner is not None and via is None:
            # Owner matching: the object must still reach the same block, shared, in raw.
            if binding_to_block(state, owner, (coll, block)) is None:
                continue
            owner = None  # no longer shared in raw: a direct write restores it
        end = Endpoint((coll, block), path, value, index, owner, via)
        if agree(observed(state, end), value):
            continue  # raw already realizes it: nothing to restore
        endpoints.append(end)
        writes.append(CellWrite(key, value, index, owner))
        if owner is None:
            written.add((key, index))
        else:
            assert via is not None  # an owner is kept only where shared() found its via
            copies.add((owner, via))
            if via == "data.shape_keys" or (via.startswith("material_slots")
                                            and _mesh_shared(state, owner)):
                copies.add((owner, "data"))
    if not writes:
        return None
    try:
        patch = compile_patch(writes, state)
    except ValueError:
        return None  # not compilable (a value the dialect cannot write): unsupported
    return Candidate(name, append_patch(raw.program, patch, name), raw, endpoints, written,
                     copies, patch=patch)


def binding_to_block(state: Mapping[str, Any], obj: str, block: tuple[str, str]) -> str | None:
    for b in state.get("bindings", ()):
        if b["from"] == ["objects", obj] and tuple(b["to"]) == tuple(block):
            return b["path"]
    return None


def _mesh_shared(state: Mapping[str, Any], obj: str) -> bool:
    data = binding_to(state, obj, "data")
    return data is not None and any(
        b["path"] == "data" and tuple(b["to"]) == data and b["users"] > 1
        for b in state["bindings"])
