"""Data blocks of the minibpy test double: meshes, lights, cameras, materials, worlds,
shape keys, scenes (objects, modifiers and material slots are in objects.py). Defaults,
hard ranges and class names are those of Blender 4.2 (read from bpy.types.*.bl_rna); what
each one does is only what the scene suite's programs use."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tether.testing.minibpy.nodes import NodeTree, shader_tree
from tether.testing.minibpy.structs import (
    ID,
    ArrayProp,
    BoolProp,
    EnumProp,
    FloatProp,
    IntProp,
    bpy_prop_collection,
    bpy_struct,
)  # fmt: skip
from tether.testing.minibpy.values import (
    Color,
    Vector,
    as_bool,
    as_floats,
    bpy_prop_array,
    f32,
    view,
)  # fmt: skip

if TYPE_CHECKING:  # objects.py builds on these blocks; a scene only names the type
    from tether.testing.minibpy.objects import Object

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
