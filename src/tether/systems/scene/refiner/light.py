"""The light channel: light recovery (owner-local requests displaced by shared writes),
and the owner rule that compiles it and projection (projection.py) alike.

Owners are light objects; an owner's tuple is (energy, colour) of the light data its
`data` binding points to. compile_owners writes required tuples with compatible sharing
kept: owners of one block that all need one tuple write the block directly; otherwise
each group of owners needing one tuple gets one local copy (the first owner by name
copies, the others are rebound to that copy) and the owners left out keep the block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.systems.scene.patch import format_value
from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner.candidate import (
    Candidate,
    Endpoint,
    append_patch,
    binding_to,
    cell_key,
    observed,
    users_of,
    value_at,
)  # fmt: skip
from tether.systems.scene.refiner.spec import (
    LIGHT_COLOR,
    LIGHT_ENERGY,
    LIGHT_PROPS,
    VALUE_KINDS,
    agree,
)  # fmt: skip

Tuple = tuple[float, list[float]]


def light_of(state: Mapping[str, Any] | None, obj: str) -> tuple[tuple[str, str], Tuple] | None:
    """(block, (energy, colour)) of a light object in a state, None when not observed."""
    if state is None:
        return None
    block = binding_to(state, obj, "data")
    if block is None or block[0] != "lights":
        return None
    energy = value_at(state, cell_key(*block, LIGHT_ENERGY), None)
    color = value_at(state, cell_key(*block, LIGHT_COLOR), None)
    if not isinstance(energy, int | float) or not isinstance(color, list):
        return None
    return block, (float(energy), list(color))


def requests(record: SceneRecord) -> dict[str, dict[str, Any]]:
    """Owner-local light requests displaced by a later write through another requester.

    Walks the trace in order: an energy / colour write via object O is O's request (a
    component write updates O's requested colour); a binding event on O's `data` resets
    O's requests (it now owns other data). A request is displaced when a later write to
    the same block and property came through another object or none. Returns, per owner
    with at least one displaced request, {prop: value} of all of its requests.
    """
    if record.execution.truncated:
        return {}  # incomplete observations: no evidence (later writes may be missing)
    events = record.execution.events
    asked: dict[str, dict[str, tuple[Any, tuple[str, str], int]]] = {}
    for i, e in enumerate(events):
        via = e.get("via")
        if e["kind"] == "binding" and e["owner"][0] == "objects" and e["path"] == "data":
            asked.pop(e["owner"][1], None)
            continue
        if (e["kind"] not in VALUE_KINDS or e["owner"][0] != "lights"
                or e["path"] not in LIGHT_PROPS or not via or e["readback"] is None):
            continue
        mine = asked.setdefault(via[1], {})
        value = e["readback"]
        if e["index"] is not None:  # one component of the colour
            if e["path"] != LIGHT_COLOR:
                continue
            held = mine.get(LIGHT_COLOR)
            if held is None or not isinstance(held[0], list):
                continue  # the other components were never requested: not a tuple
            color = list(held[0])
            color[e["index"]] = value
            value = color
        mine[e["path"]] = (value, tuple(e["owner"]), i)
    out: dict[str, dict[str, Any]] = {}
    for obj, props in asked.items():
        if any(_overwritten(events, block, prop, i, obj) for prop, (_, block, i) in props.items()):
            out[obj] = {prop: v for prop, (v, _, _) in props.items()}
    return out


def _overwritten(events: list[dict], block: tuple[str, str], prop: str, after: int,
                 obj: str) -> bool:
    for e in events[after + 1:]:
        if (e["kind"] in VALUE_KINDS and tuple(e["owner"]) == block and e["path"] == prop
                and (e.get("via") or [None, None])[1] != obj):
            return True
    return False


def build_recovery(name: str, raw: SceneRecord, source: SceneRecord) -> Candidate | None:
    """Light recovery from a source's requests, compiled into the raw program."""
    state = raw.execution.state
    if not raw.execution.ok or state is None or not source.execution.ok:
        return None
    required: dict[str, Tuple] = {}
    for obj, props in sorted(requests(source).items()):
        here = light_of(state, obj)
        if here is None:
            continue  # owner matching: the object must be a light in the raw state
        _, (energy, color) = here
        required[obj] = (float(props.get(LIGHT_ENERGY, energy)),
                         list(props.get(LIGHT_COLOR, color))[:3])
    if not required:
        return None
    return compile_owners(name, raw, required, effect=False)


def compile_owners(name: str, reference: SceneRecord, required: dict[str, Tuple], *,
                   effect: bool, effects: dict[str, list[float]] | None = None) -> Candidate:
    """Write required (energy, colour) tuples per owner into the reference program."""
    state = reference.execution.state
    assert state is not None
    lines: list[str] = []
    endpoints: list[Endpoint] = []
    written: set[tuple[str, int | None]] = set()
    copies: set[tuple[str, str]] = set()
    by_block: dict[tuple[str, str], list[str]] = {}
    for obj in sorted(required):
        here = light_of(state, obj)
        assert here is not None
        by_block.setdefault(here[0], []).append(obj)
    for block in sorted(by_block):
        owners = by_block[block]
        groups: list[list[str]] = []
        for obj in owners:  # owners needing one tuple, in name order
            for g in groups:
                if _same_tuple(required[g[0]], required[obj]):
                    g.append(obj)
                    break
            else:
                groups.append([obj])
        # a light group's owners are those light_of found a light for
        current = light_of(state, owners[0])[1]  # type: ignore[index]
        direct = len(groups) == 1 and owners == users_of(state, block)
        for g in groups:
            energy, color = required[g[0]]
            if direct:
                target = f"bpy.data.lights[{block[1]!r}]"
                written |= {(cell_key(*block, p), None) for p in LIGHT_PROPS}
            elif _same_tuple(current, required[g[0]]):
                target = None  # this group's tuple is the block's: it keeps the block
            else:
                first = f"bpy.data.objects[{g[0]!r}]"
                lines.append(f"{first}.data = {first}.data.copy()")
                target = f"{first}.data"
                copies |= {(obj, "data") for obj in g}
                lines += [f"bpy.data.objects[{o!r}].data = {target}" for o in g[1:]]
            if target is not None:
                lines.append(f"{target}.energy = {format_value(energy)}")
                lines.append(f"{target}.color = {format_value(color)}")
            for obj in g:
                if effect:
                    endpoints.append(Endpoint(block, "phi", (effects or {})[obj], None, obj,
                                              "data", effect=True))
                else:
                    endpoints.append(Endpoint(block, LIGHT_ENERGY, energy, None, obj, "data"))
                    endpoints.append(Endpoint(block, LIGHT_COLOR, color, None, obj, "data"))
    patch = "import bpy\n" + "\n".join(lines) + ("\n" if lines else "")
    return Candidate(name, append_patch(reference.program, patch, name), reference, endpoints,
                     written, copies, scope=sorted(required), patch=patch)


def _same_tuple(a: Tuple, b: Tuple) -> bool:
    return agree(a[0], b[0]) and agree(list(a[1])[:3], list(b[1])[:3])


def realized(candidate: Candidate, record: SceneRecord) -> bool:
    """The endpoint-match predicate on a record: every endpoint agrees there."""
    state = record.execution.state
    return bool(candidate.endpoints) and all(
        agree(observed(state, e), e.value) for e in candidate.endpoints)
