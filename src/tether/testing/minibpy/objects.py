"""Objects of the minibpy test double and what hangs off them: modifiers (a NODES one
keys its inputs by its group's interface identifiers) and material slots. Defaults, hard
ranges and class names are those of Blender 4.2; what each one does is only what the
scene suite's programs use."""

from __future__ import annotations

import copy as _copy
import math
from typing import Any

from tether.testing.minibpy.ids import Camera, Key, Light, Material, Mesh, ShapeKey
from tether.testing.minibpy.nodes import NodeTree
from tether.testing.minibpy.structs import (
    ID,
    ArrayProp,
    BoolProp,
    IntProp,
    bpy_prop_collection,
    bpy_struct,
)  # fmt: skip
from tether.testing.minibpy.values import (
    Euler,
    Vector,
    as_floats,
    bpy_prop_array,
    f32,
    view,
)  # fmt: skip


class Modifier(bpy_struct):
    """A modifier; a NODES one keys its inputs by the group interface's identifiers."""

    show_viewport = BoolProp(True)
    show_render = BoolProp(True)

    def __init__(self, obj: Object, name: str, type: str) -> None:  # noqa: A002
        super().__init__(obj, f'modifiers["{name}"]')
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_inputs", {})
        object.__setattr__(self, "_group", None)

    @property
    def node_group(self) -> NodeTree | None:
        return self._group

    @node_group.setter
    def node_group(self, group: NodeTree | None) -> None:
        object.__setattr__(self, "_group", group)
        object.__setattr__(self, "_inputs", group.inputs_for_modifier() if group else {})

    def _sync(self) -> dict[str, Any]:
        if self._group is not None:  # sockets added after binding appear, as after an update
            for k, v in self._group.inputs_for_modifier().items():
                self._inputs.setdefault(k, v)
        return self._inputs

    def __getitem__(self, key: str) -> Any:
        inputs = self._sync()
        if key not in inputs:
            raise KeyError(f'bpy_struct[key]: key "{key}" not found')
        value = inputs[key]
        return view(bpy_prop_array, value) if isinstance(value, list) else value

    def __setitem__(self, key: str, value: Any) -> None:
        inputs = self._sync()
        old = inputs.get(key)
        if isinstance(old, float) and isinstance(value, int | float) \
                and not isinstance(value, bool):
            inputs[key] = f32(value)  # the input keeps its float type (stored as a C float)
        elif isinstance(old, list):
            inputs[key] = as_floats(value, len(old), -math.inf, math.inf)
        elif old is not None and type(old) is not type(value):
            kind = {int: "Int", bool: "Bool", str: "String"}.get(type(old), "")
            raise TypeError(f"Cannot assign a '{type(value).__name__}' value to the existing "
                            f"'{key}' {kind} IDProperty")
        else:
            inputs[key] = value

    def keys(self) -> list[str]:
        return list(self._sync())

    def items(self) -> list[tuple[str, Any]]:
        return [(k, self[k]) for k in self._sync()]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self._sync() else default


class Modifiers(bpy_prop_collection):
    def __init__(self, obj: Object) -> None:
        super().__init__()
        self._obj = obj

    def new(self, name: str, type: str) -> Modifier:  # noqa: A002 (bpy's keyword)
        base, n = name, 1
        while name in self:
            name, n = f"{base}.{n:03d}", n + 1
        mod = Modifier(self._obj, name, type)
        self._items.append(mod)
        return mod

    def remove(self, mod: Modifier) -> None:
        self._items.remove(mod)


class MaterialSlot(bpy_struct):
    link = "DATA"

    def __init__(self, obj: Object, index: int) -> None:
        super().__init__(obj, f"material_slots[{index}]")
        object.__setattr__(self, "_index", index)

    @property
    def material(self) -> Material | None:
        return self._owner.data.materials[self._index]

    @material.setter
    def material(self, mat: Material | None) -> None:  # link DATA: the mesh's slot changes
        self._owner.data.materials[self._index] = mat

    @property
    def name(self) -> str:
        return self.material.name if self.material else ""


class Object(ID):
    id_type, _data_name = "OBJECT", "objects"
    location = ArrayProp(Vector, (0.0, 0.0, 0.0))
    rotation_euler = ArrayProp(Euler, (0.0, 0.0, 0.0))
    scale = ArrayProp(Vector, (1.0, 1.0, 1.0))
    hide_render = BoolProp(False)
    hide_viewport = BoolProp(False)
    active_material_index = IntProp(0, lo=0)
    parent: Object | None = None
    def __init__(self, main: Any, name: str, data: ID | None) -> None:
        super().__init__(main, name)
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "modifiers", Modifiers(self))

    @property
    def type(self) -> str:
        return _type_of(self._data)

    @property
    def data(self) -> ID | None:
        return self._data

    @data.setter
    def data(self, value: ID | None) -> None:
        if value is None or self._data is None or _type_of(value) != self.type:
            raise TypeError(f"bpy_struct: item.attr = val: Object.data cannot assign "
                            f"{type(value).__name__} to a {self.type} object")
        object.__setattr__(self, "_data", value)

    @property
    def material_slots(self) -> bpy_prop_collection:
        slots = bpy_prop_collection()
        if isinstance(self._data, Mesh):
            slots._items = [MaterialSlot(self, i) for i in range(len(self._data.materials))]
        return slots

    @property
    def active_material(self) -> Material | None:
        slots = self.material_slots
        return slots[self.active_material_index].material if len(slots) else None

    @active_material.setter
    def active_material(self, mat: Material | None) -> None:
        if not isinstance(self._data, Mesh):
            return
        mats = self._data.materials
        if len(mats) <= self.active_material_index:  # bpy adds the slot
            mats.append(mat)
        else:
            mats[self.active_material_index] = mat

    def shape_key_add(self, name: str = "Key", from_mix: bool = True) -> ShapeKey:
        mesh = self._data
        if not isinstance(mesh, Mesh):
            raise RuntimeError("minibpy: shape keys exist on meshes only")
        if mesh.shape_keys is None:
            key = Key(self._main, "Key")
            self._main.collection("shape_keys").add(key, "Key")
            object.__setattr__(key, "user", mesh)
            object.__setattr__(mesh, "shape_keys", key)
        blocks = mesh.shape_keys.key_blocks
        base, n = name, 1
        while name in blocks:
            name, n = f"{base}.{n:03d}", n + 1
        # A new key starts at the basis shape (the mix of keys at their values is the
        # basis while every value is 0, as right after a base script adds them).
        coords = blocks[0]._coords if len(blocks) else [list(v) for v in mesh.vertices]
        block = ShapeKey(mesh.shape_keys, name, coords)
        blocks._items.append(block)
        return block

    def update_tag(self, refresh: Any = None) -> None:
        """Nothing to re-evaluate on the test double (bpy tags the object for update)."""

    def _copy_into(self, dup: Any) -> None:
        mods = Modifiers(dup)
        for m in self.modifiers:
            new = mods.new(m.name, m.type)
            object.__setattr__(new, "_group", m._group)
            object.__setattr__(new, "_inputs", _copy.deepcopy(m._inputs))
        object.__setattr__(dup, "modifiers", mods)


def _type_of(data: ID | None) -> str:
    kinds = {Mesh: "MESH", Light: "LIGHT", Camera: "CAMERA"}
    return next((t for cls, t in kinds.items() if isinstance(data, cls)), "EMPTY")
