"""The projection scope `keep_other_writes`: which writes of a submission a candidate built
on the previous delivered program would drop.

Projection compiles the light effect into the previous delivered program, so whatever
else the submission changed is lost (the paper's Algorithm 1 intends this: projection
retains the previous program's other state). A submission that is already right, say a
cube moved and a light dimmed, is then delivered with the cube back and the light at
half its change. Under `keep_other_writes` a projection is eligible only when the
submission and the previous record agree outside the light channel it projects, so the
projected program keeps every write of the submission there by construction.

What is compared (`other_writes`), everything the execution evidence shows:
- captured cells (≃), except the energy and colour of the light data of the owners in
  the projection's scope (the channel), a cell present on one side only included;
- bindings (object -> block) and structure (objects, mesh counts and bounds, node links);
- attributed writes to properties the state does not capture (a render setting, a node's
  own property): the submission's last value per property must be the previous
  program's last value there;
- writes the tracer could not attribute (`unresolved`), and a truncated trace: their
  effect is unknown, so they count as other writes unless the previous record has the
  same unresolved targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner.candidate import binding_to, cell_key
from tether.systems.scene.refiner.spec import LIGHT_PROPS, VALUE_KINDS, agree

MAX_LISTED = 5  # differences named in an outcome (all are counted)


def other_writes(raw: SceneRecord, previous: SceneRecord, owners: list[str]) -> list[str]:
    """What the submission changed outside the light channel of `owners`, relative to the
    previous record; empty when a projection would drop none of its writes."""
    now, before = raw.execution.state, previous.execution.state
    if now is None or before is None:
        return ["a state was not observed"]
    if raw.execution.truncated:
        return ["the submission's trace is truncated (its writes are not all known)"]
    channel = {cell_key(*block, prop) for state in (now, before) for obj in owners
               if (block := binding_to(state, obj, "data")) is not None
               for prop in LIGHT_PROPS}
    out = [key for key in sorted(set(now["cells"]) | set(before["cells"]))
           if key not in channel and not _same(now["cells"].get(key), before["cells"].get(key))]
    out += _bindings(now, before) + _structure(now, before)
    out += _uncaptured(raw, previous, set(now["cells"]))
    mine = {(u.get("target"), u.get("reason")) for u in raw.execution.unresolved}
    theirs = {(u.get("target"), u.get("reason")) for u in previous.execution.unresolved}
    out += [f"an unattributed write to {t} ({r})" for t, r in sorted(mine - theirs, key=str)]
    return out


def describe(found: list[str]) -> str:
    """The differences as an outcome's words: the first few, then how many more."""
    listed = ", ".join(found[:MAX_LISTED])
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    return f"{listed}{more}"


def _same(a: Any, b: Any) -> bool:
    return agree(a, b) or (a == b and a is not None and not isinstance(a, float))


def _bindings(now: Mapping[str, Any], before: Mapping[str, Any]) -> list[str]:
    def pairs(state: Mapping[str, Any]) -> set[tuple[str, str, str, str]]:
        return {(b["from"][1], b["path"], b["to"][0], b["to"][1]) for b in state["bindings"]}

    changed = pairs(now) ^ pairs(before)
    return [f"the binding {obj}.{path}" for obj, path in sorted({(o, p) for o, p, _, _ in changed})]


def _structure(now: Mapping[str, Any], before: Mapping[str, Any]) -> list[str]:
    out = []
    a, b = now["structure"], before["structure"]
    if a["objects"] != b["objects"]:
        out.append("the objects (type, parent, modifiers)")
    shape = lambda m: None if m is None else {k: v for k, v in m.items() if k != "users"}  # noqa: E731
    for name in sorted(set(a["meshes"]) | set(b["meshes"])):
        if shape(a["meshes"].get(name)) != shape(b["meshes"].get(name)):
            out.append(f"the mesh {name}")
    if a["links"] != b["links"]:
        out.append("the node links")
    return out


def _last_values(record: SceneRecord, captured: set[str]) -> dict[tuple[str, ...], Any]:
    """The last observed value per uncaptured (owner, path, component) the trace wrote."""
    out: dict[tuple[str, ...], Any] = {}
    for e in record.execution.events:
        collection, name = e["owner"]
        key = cell_key(collection, name, e["path"])
        if e["kind"] in VALUE_KINDS and key not in captured:
            out[(key, str(e["index"]))] = e["readback"]
    return out


def _uncaptured(raw: SceneRecord, previous: SceneRecord, captured: set[str]) -> list[str]:
    mine, theirs = _last_values(raw, captured), _last_values(previous, captured)
    return [key + ("" if index == "None" else f"[{index}]")
            for (key, index), value in sorted(mine.items())
            if (key, index) not in theirs or not _same(value, theirs[(key, index)])]
