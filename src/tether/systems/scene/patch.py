"""The patch dialect: state cells compiled into a scene program that runs on bpy and minibpy.

A repair is a list of CellWrite (a state cell key as state.py makes it, e.g.
`bpy.data.objects["Cube"].location`, an optional component index, the value, and
optionally the one object the write is for). compile_patch turns it into program text:

    import bpy
    bpy.data.objects['Cube'].location[0] = 2.0
    bpy.data.objects['Lamp'].data = bpy.data.objects['Lamp'].data.copy()
    bpy.data.objects['Lamp'].data.energy = 75.0

A write `only_for` an object whose data block is shared (users > 1 in the state's
bindings, or a material in a slot of a shared mesh: Blender counts one user per mesh)
becomes copy-and-rebind: the object gets its own copy (of its mesh first when the slot's
mesh is shared, since slots live on the mesh), then the
write goes through the object, so the other users keep their values. A shape key of a
shared mesh is written after copying the mesh (a key lives on its mesh and is copied with
it). Unshared blocks are written directly by name.

Output is deterministic: plain writes sorted by (cell, index), then one block per object
sorted by name. Floats are written as the shortest decimal that reads back as the same
C float (RNA floats are 32-bit in Blender and minibpy: 0.30000001192092896 is written
0.3), so the text depends only on the stored values and is byte-identical whichever
backend's state it came from. Non-finite values are refused.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

_CELL = re.compile(r'^bpy\.data\.(\w+)\["((?:[^"\\]|\\.)*)"\]\.(.+)$')


@dataclass(frozen=True)
class CellWrite:
    cell: str  # bpy.data.<collection>["<name>"].<path>, as state.capture keys it
    value: Any
    index: int | None = None
    only_for: str | None = None  # an object: write to its own copy of the data block


def parse_cell(cell: str) -> tuple[str, str, str]:
    """(collection, name, path) of a state cell key."""
    m = _CELL.match(cell)
    if m is None:
        raise ValueError(f"not a state cell: {cell!r}")
    name = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
    return m.group(1), name, m.group(3)


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def format_value(value: Any) -> str:
    """Python text for a cell value (floats as the shortest text of their C float)."""
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a patch cannot write a non-finite value: {value!r}")
        text = str(np.float32(value))
        if _f32(float(text)) != _f32(value):  # double rounding: exact text instead
            text = repr(_f32(value))
        return text
    if isinstance(value, Mapping) and list(value) == ["id"]:
        collection, name = value["id"]
        return f"bpy.data.{collection}[{name!r}]"
    if isinstance(value, list | tuple):
        items = ", ".join(format_value(v) for v in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    raise ValueError(f"a patch cannot write a {type(value).__name__}: {value!r}")


def _users(state: Mapping[str, Any], obj: str, collection: str, name: str) -> tuple[str, int]:
    """(path, users) of the binding from object obj to the block."""
    for b in state.get("bindings", ()):
        if b["from"] == ["objects", obj] and b["to"] == [collection, name]:
            return b["path"], b["users"]
    raise ValueError(f"object {obj!r} is not bound to {collection}[{name!r}] in the state")


def _target(w: CellWrite) -> str:
    return "" if w.index is None else f"[{w.index}]"


def compile_patch(writes: Iterable[CellWrite], state: Mapping[str, Any] | None = None) -> str:
    """The program text of writes (state: needed for `only_for`, to see what is shared)."""
    plain: list[tuple[tuple, str]] = []
    blocks: dict[str, dict[str, Any]] = {}
    seen: set[tuple] = set()
    for w in writes:
        collection, name, path = parse_cell(w.cell)
        key = (w.cell, -1 if w.index is None else w.index, w.only_for or "")
        if key in seen:
            raise ValueError(f"two writes to {w.cell}{_target(w)}")
        seen.add(key)
        value = format_value(w.value)
        if w.only_for is None:
            line = f"bpy.data.{collection}[{name!r}].{path}{_target(w)} = {value}"
            plain.append((key, line))
            continue
        if state is None:
            raise ValueError("a write only_for one object needs the state (its bindings)")
        via, users = _users(state, w.only_for, collection, name)
        obj = f"bpy.data.objects[{w.only_for!r}]"
        block = blocks.setdefault(w.only_for, {"copies": {}, "lines": []})
        mesh_users = 0
        if via.startswith("material_slots"):  # slots live on the mesh: a shared mesh
            mesh_users = next((b["users"] for b in state["bindings"]  # shares them too
                               if b["from"] == ["objects", w.only_for] and b["path"] == "data"), 0)
        if via == "data.shape_keys":  # a key lives on its mesh: copying the mesh copies it
            if users > 1:
                block["copies"]["data"] = f"{obj}.data = {obj}.data.copy()"
                line = f"{obj}.{via}.{path}{_target(w)} = {value}"
            else:
                line = f"bpy.data.{collection}[{name!r}].{path}{_target(w)} = {value}"
        elif users > 1 or mesh_users > 1:
            if mesh_users > 1:
                block["copies"]["data"] = f"{obj}.data = {obj}.data.copy()"
            block["copies"][via] = f"{obj}.{via} = {obj}.{via}.copy()"
            line = f"{obj}.{via}.{path}{_target(w)} = {value}"
        else:
            line = f"bpy.data.{collection}[{name!r}].{path}{_target(w)} = {value}"
        block["lines"].append((key, line))
    out = ["import bpy"] + [line for _, line in sorted(plain)]
    for obj_name in sorted(blocks):
        copies = blocks[obj_name]["copies"]
        out += [copies[k] for k in sorted(copies, key=lambda k: (k != "data", k))]
        out += [line for _, line in sorted(blocks[obj_name]["lines"])]
    return "\n".join(out) + "\n"


def diff_writes(current: Mapping[str, Any], target: Mapping[str, Any]) -> list[CellWrite]:
    """Whole-cell writes that take current's cells to target's (cells both states have;
    values compared as C floats)."""
    out = []
    for cell, value in sorted(target["cells"].items()):
        if cell in current["cells"] and not _same(current["cells"][cell], value):
            out.append(CellWrite(cell, value))
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return _f32(a) == _f32(b)
    return a == b
