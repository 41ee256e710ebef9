"""Data blocks of the minibpy test double: objects, meshes, lights, cameras, materials,
worlds, shape keys, modifiers, scenes. Defaults, hard ranges and class names are those of
Blender 4.2 (read from bpy.types.*.bl_rna); what each one does is only what the scene
suite's programs use."""

from __future__ import annotations

import copy as _copy
import math
from typing import Any

from tether.scene.minibpy.nodes import NodeTree, shader_tree
from tether.scene.minibpy.structs import (
    ID,
    ArrayProp,
    BoolProp,
    EnumProp,
    FloatProp,
    IntProp,
    bpy_prop_collection,
    bpy_struct,
)  # fmt: skip
from tether.scene.minibpy.values import (
    Color,
    Euler,
    Vector,
    as_bool,
    as_floats,
    bpy_prop_array,
    f32,
    view,
)  # fmt: skip

PI = 3.1415927410125732
PRINCIPLED = (("ShaderNodeOutputMaterial", "Material Output"),
              ("ShaderNodeBsdfPrincipled", "Principled BSDF"))
PRINCIPLED_LINKS = (("Principled BSDF", "BSDF", "Material Output", "Surface"),)


class MeshVertex(tuple):
    """A vertex: its coordinates (a tuple, as the rasterizer reads them) and `.co`."""

    @property
    def co(self) -> tuple[float, ...]:
        return tuple(self)


class Mesh(ID):
    id_type, _data_name = "MESH", "meshes"

    def __init__(self, main: Any, name: str) -> None:
        super().__init__(main, name)
        object.__setattr__(self, "vertices", [])
        object.__setattr__(self, "polygons", [])
        object.__setattr__(self, "materials", MeshMaterials(self))
        object.__setattr__(self, "shape_keys", None)

    def from_pydata(self, vertices: Any, edges: Any, faces: Any, **_: Any) -> None:
        object.__setattr__(self, "vertices", [MeshVertex(f32(c) for c in v)
                                                   for v in vertices])
        object.__setattr__(self, "polygons", [tuple(f) for f in faces])

    def update(self, **_: Any) -> None:
        pass

    def _copy_into(self, dup: Any) -> None:
        object.__setattr__(dup, "vertices", list(self.vertices))
        object.__setattr__(dup, "polygons", list(self.polygons))
        mats = MeshMaterials(dup)
        mats._items = list(self.materials._items)
        object.__setattr__(dup, "materials", mats)
        if self.shape_keys is not None:
            key = self.shape_keys.copy()
            object.__setattr__(key, "user", dup)
            object.__setattr__(dup, "shape_keys", key)


class MeshMaterials(bpy_prop_collection):
    """mesh.materials: slots holding a Material or None (each one a user of it)."""

    def __init__(self, mesh: Mesh) -> None:
        super().__init__()
        self._mesh = mesh

    def append(self, material: Material | None) -> None:
        self._items.append(material)

    def pop(self, index: int = -1) -> Any:
        return self._items.pop(index)

    def clear(self) -> None:
        self._items.clear()

    def __setitem__(self, index: int, material: Material | None) -> None:
        self[index]  # noqa: B018 (bounds check with bpy's error)
        self._items[index] = material


class Light(ID):
    id_type, _data_name = "LIGHT", "lights"
    energy = FloatProp(10.0)
    color = ArrayProp(Color, (1.0, 1.0, 1.0), lo=0.0)
    shadow_soft_size = FloatProp(0.0, lo=0.0)
    use_nodes = BoolProp(False)
    node_tree = None
    KINDS: dict[str, type] = {}

    @property
    def type(self) -> str:
        return next(k for k, cls in Light.KINDS.items() if cls is type(self))

    @type.setter
    def type(self, value: str) -> None:
        if value not in Light.KINDS:
            raise TypeError(f'bpy_struct: item.attr = val: enum "{value}" not found in '
                            f"{tuple(Light.KINDS)!r}")
        object.__setattr__(self, "__class__", Light.KINDS[value])  # bpy refines the type


class PointLight(Light):
    pass


class SunLight(Light):
    angle = FloatProp(0.009180432185530663, lo=0.0, hi=PI)


class SpotLight(Light):
    spot_size = FloatProp(0.7853981852531433, lo=0.01745329238474369, hi=PI)
    spot_blend = FloatProp(0.15000000596046448, lo=0.0, hi=1.0)


class AreaLight(Light):
    size = FloatProp(0.25, lo=0.0)


Light.KINDS.update(POINT=PointLight, SUN=SunLight, SPOT=SpotLight, AREA=AreaLight)


class Camera(ID):
    id_type, _data_name = "CAMERA", "cameras"
    type = EnumProp("PERSP", ("PERSP", "ORTHO", "PANO"))
    lens = FloatProp(50.0, lo=1.0)  # Blender clamps the focal length at 1 mm
    sensor_width = FloatProp(36.0, lo=1.0)
    sensor_height = FloatProp(24.0, lo=1.0)
    shift_x = FloatProp(0.0)
    shift_y = FloatProp(0.0)
    clip_start = FloatProp(0.1, lo=9.999999974752427e-07)
    clip_end = FloatProp(1000.0, lo=9.999999974752427e-07)


class _HasNodes(ID):
    node_tree: NodeTree | None = None
    TREE: tuple = ()
    TREE_LINKS: tuple = ()

    @property
    def use_nodes(self) -> bool:
        return self._v.get("use_nodes", False)

    @use_nodes.setter
    def use_nodes(self, value: Any) -> None:
        self._v["use_nodes"] = as_bool(value, f"{type(self).__name__}.use_nodes")
        if self._v["use_nodes"] and self.node_tree is None:  # bpy builds the default tree
            object.__setattr__(self, "node_tree", shader_tree(self._main, self.TREE,
                                                              self.TREE_LINKS))

    def _copy_into(self, dup: Any) -> None:
        if self.node_tree is not None:
            object.__setattr__(dup, "node_tree", self.node_tree.clone())


class Material(_HasNodes):
    id_type, _data_name = "MATERIAL", "materials"
    TREE, TREE_LINKS = PRINCIPLED, PRINCIPLED_LINKS
    diffuse_color = ArrayProp(bpy_prop_array, (0.8, 0.8, 0.8, 1.0), lo=0.0, hi=1.0)
    is_grease_pencil = False


class World(_HasNodes):
    id_type, _data_name = "WORLD", "worlds"
    TREE = (("ShaderNodeOutputWorld", "World Output"), ("ShaderNodeBackground", "Background"))
    TREE_LINKS = (("Background", "Background", "World Output", "Surface"),)


class ShapeKeyPoint(bpy_struct):
    """One point of a shape key: `co`, a Vector view on the key's stored coordinates."""

    def __init__(self, block: ShapeKey, index: int, store: list[float]) -> None:
        super().__init__(block._owner, f'{block._path}.data[{index}]')
        object.__setattr__(self, "_store", store)

    @property
    def co(self) -> Vector:
        return view(Vector, self._store)

    @co.setter
    def co(self, value: Any) -> None:
        self._store[:] = as_floats(value, 3, -math.inf, math.inf)


class ShapeKey(bpy_struct):
    slider_min = FloatProp(0.0, lo=-10.0, hi=10.0)
    slider_max = FloatProp(1.0, lo=-10.0, hi=10.0)
    mute = BoolProp(False)

    def __init__(self, key: Key, name: str, coords: list[list[float]] | None = None) -> None:
        super().__init__(key, f'key_blocks["{name}"]')
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_coords", [list(c) for c in coords or []])

    @property
    def data(self) -> bpy_prop_collection:
        """The key's point coordinates (what a base script shapes: `p.co.z *= 1.8`)."""
        points = bpy_prop_collection()
        points._items = [ShapeKeyPoint(self, i, c) for i, c in enumerate(self._coords)]
        return points

    @property
    def value(self) -> float:
        return self._v.get("value", 0.0)

    @value.setter
    def value(self, v: Any) -> None:  # clamped to the slider range, as bpy does
        self._v["value"] = FloatProp(0.0, lo=self.slider_min, hi=self.slider_max).convert(self, v)


class Key(ID):
    id_type, _data_name = "KEY", "shape_keys"
    use_relative = True

    def __init__(self, main: Any, name: str) -> None:
        super().__init__(main, name)
        object.__setattr__(self, "key_blocks", bpy_prop_collection())
        object.__setattr__(self, "user", None)

    def _copy_into(self, dup: Any) -> None:
        blocks = bpy_prop_collection()
        for kb in self.key_blocks:
            new = ShapeKey(dup, kb.name, kb._coords)
            object.__setattr__(new, "_v", dict(kb._v))
            blocks._items.append(new)
        object.__setattr__(dup, "key_blocks", blocks)


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


class RenderSettings(bpy_struct):
    engine = EnumProp("BLENDER_EEVEE_NEXT", ("BLENDER_EEVEE_NEXT", "BLENDER_WORKBENCH",
                                             "CYCLES"))
    resolution_x = IntProp(1920, lo=4, hi=65536)
    resolution_y = IntProp(1080, lo=4, hi=65536)
    resolution_percentage = IntProp(100, lo=1, hi=32767)
    film_transparent = BoolProp(False)


class SceneObjects(bpy_prop_collection):
    def __init__(self, scene: Scene) -> None:
        super().__init__()
        self._scene = scene

    def _list(self) -> list[Any]:
        return self._scene._main.sorted(self._items)

    def link(self, obj: Object) -> None:
        if obj in self._items:
            raise RuntimeError(f"Object '{obj.name}' already in collection '{self._scene.name}'")
        self._items.append(obj)

    def unlink(self, obj: Object) -> None:
        self._items.remove(obj)


class SceneCollection(bpy_struct):
    def __init__(self, scene: Scene) -> None:
        super().__init__(scene, "collection")
        object.__setattr__(self, "objects", SceneObjects(scene))


class Scene(ID):
    id_type, _data_name = "SCENE", "scenes"
    camera: Object | None = None
    world: World | None = None
    node_tree = None

    def __init__(self, main: Any, name: str) -> None:
        super().__init__(main, name)
        object.__setattr__(self, "render", RenderSettings(self, "render"))
        object.__setattr__(self, "collection", SceneCollection(self))

    @property
    def objects(self) -> bpy_prop_collection:
        return self.collection.objects


def _type_of(data: ID | None) -> str:
    kinds = {Mesh: "MESH", Light: "LIGHT", Camera: "CAMERA"}
    return next((t for cls, t in kinds.items() if isinstance(data, cls)), "EMPTY")
