"""A refiner candidate: a compiled program with the contract it must satisfy.

An Endpoint is a required value of one cell. Written directly, it names the reference's
cell (`block`, `path`, `index`); written for one owner through a local copy (or checked
as an owner sees it), `owner` and `binding` say how to find the block in a state: the
block the object's binding points to there. `effect` endpoints are light effects: the
value required is phi(E, c) of the owner's light, not a cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner.spec import LIGHT_COLOR, LIGHT_ENERGY, phi


@dataclass(frozen=True)
class Endpoint:
    block: tuple[str, str]  # (collection, name) in the reference
    path: str  # the cell's path in the block ("energy", 'node_tree.nodes["X"]...')
    value: Any  # required value (a component when index is set; phi for effect)
    index: int | None = None
    owner: str | None = None  # an object: resolve the block through its binding
    binding: str | None = None  # that binding's path ("data", "material_slots[0].material")
    effect: bool = False  # a light effect phi(E, c), path is then "phi"


@dataclass
class Candidate:
    """One alternative's compiled program and its requirements (Valid_h's inputs)."""

    name: str
    program: str  # complete program: the reference program with the patch appended
    reference: SceneRecord  # raw for recovery, previous delivered for projection
    endpoints: list[Endpoint]
    # reference cells (key, component or None) the patch writes directly
    written: set[tuple[str, int | None]] = field(default_factory=set)
    # (object, binding path) pairs the patch rebinds to a local copy
    copies: set[tuple[str, str]] = field(default_factory=set)
    scope: list[str] = field(default_factory=list)  # owners in scope (light channels)
    patch: str = ""  # the appended text alone (for display)


def cell_key(collection: str, name: str, path: str) -> str:
    """A state cell key, exactly as state.capture writes it."""
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'bpy.data.{collection}["{quoted}"].{path}'


def binding_to(state: Mapping[str, Any], obj: str, path: str) -> tuple[str, str] | None:
    """The block an object's binding `path` points to in a state, or None."""
    for b in state.get("bindings", ()):
        if b["from"] == ["objects", obj] and b["path"] == path:
            return b["to"][0], b["to"][1]
    return None


def bindings_of(state: Mapping[str, Any], obj: str, block: tuple[str, str]) -> list[dict]:
    return [b for b in state.get("bindings", ())
            if b["from"] == ["objects", obj] and tuple(b["to"]) == tuple(block)]


def users_of(state: Mapping[str, Any], block: tuple[str, str]) -> list[str]:
    """Objects bound to a block (sorted), whatever the binding path."""
    return sorted({b["from"][1] for b in state.get("bindings", ())
                   if tuple(b["to"]) == tuple(block) and b["from"][0] == "objects"})


def shared(state: Mapping[str, Any], obj: str, block: tuple[str, str]) -> str | None:
    """The binding path through which obj reaches a block that others share, else None.

    Shared: the block's users count is above 1, or (a material in a slot) the mesh
    holding the slot is shared. None also when obj is not bound to the block at all.
    """
    for b in bindings_of(state, obj, block):
        mesh_users = 0
        if b["path"].startswith("material_slots"):
            mesh_users = next((m["users"] for m in state["bindings"]
                               if m["from"] == ["objects", obj] and m["path"] == "data"), 0)
        if b["users"] > 1 or mesh_users > 1:
            return b["path"]
    return None


def value_at(state: Mapping[str, Any] | None, key: str, index: int | None) -> Any:
    """A cell's value (a component when index is set), None when not observed."""
    if state is None or key not in state.get("cells", {}):
        return None
    value = state["cells"][key]
    if index is None:
        return value
    if isinstance(value, list) and 0 <= index < len(value):
        return value[index]
    return None


def resolve(state: Mapping[str, Any] | None, e: Endpoint) -> tuple[str, str] | None:
    """The block an endpoint lives in, in a state (through the owner's binding if any)."""
    if state is None:
        return None
    if e.owner is not None and e.binding is not None:
        return binding_to(state, e.owner, e.binding)
    return e.block


def observed(state: Mapping[str, Any] | None, e: Endpoint) -> Any:
    """What a state realizes for an endpoint: its cell, or phi of the owner's light."""
    block = resolve(state, e)
    if block is None:
        return None
    if e.effect:
        energy = value_at(state, cell_key(*block, LIGHT_ENERGY), None)
        color = value_at(state, cell_key(*block, LIGHT_COLOR), None)
        if not isinstance(energy, int | float) or not isinstance(color, list):
            return None
        return phi(energy, color)
    return value_at(state, cell_key(*block, e.path), e.index)


def append_patch(program: str, patch: str, name: str) -> str:
    """The reference program with a patch appended (after all of its own writes)."""
    body = patch.split("\n", 1)[1] if patch.startswith("import bpy\n") else patch
    return f"{program.rstrip()}\n\n# tether refine: {name}\nimport bpy\n{body}"
