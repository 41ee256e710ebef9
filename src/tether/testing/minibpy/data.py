"""bpy.data and bpy.context of the minibpy test double, and Blender's factory scene.

ID collections iterate in Blender's order (names compared case-insensitively, ties in
creation order), new names take Blender's `.001` suffix (the lowest number not used by
the same base name), and `users` is counted from the references that exist (objects ->
data, mesh slots -> materials, modifiers -> node groups, scenes -> worlds and objects).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from tether.testing.minibpy import ids, objects
from tether.testing.minibpy.nodes import NodeTree
from tether.testing.minibpy.structs import ID, bpy_prop_collection

_SEQ = itertools.count()
_SUFFIX = re.compile(r"^(.*)\.(\d+)$")


class IDCollection(bpy_prop_collection):
    """One bpy.data collection (bpy_prop_collection of IDs, with new / remove)."""

    def __init__(self, main: BlendData, name: str) -> None:
        super().__init__()
        self._main, self._name = main, name

    def _list(self) -> list[Any]:
        return self._main.sorted(self._items)

    def add(self, block: ID, wanted: str) -> ID:
        object.__setattr__(block, "_name", self._main.unique(self, wanted, None))
        object.__setattr__(block, "_seq", next(_SEQ))
        object.__setattr__(block, "_main", self._main)
        self._items.append(block)
        return block

    def remove(self, block: ID, do_unlink: bool = True) -> None:
        self._items.remove(block)
        for scene in self._main.scenes:
            if block in scene.collection.objects._items:
                scene.collection.objects._items.remove(block)
            if scene.camera is block:
                object.__setattr__(scene, "camera", None)

    # new() per collection, with bpy's signatures
    def new(self, name: str, *args: Any, **kw: Any) -> Any:
        m = self._main
        if self._name == "objects":
            data = args[0] if args else kw.get("object_data")
            block: ID = objects.Object(m, name, data)
        elif self._name == "meshes":
            block = ids.Mesh(m, name)
        elif self._name == "lights":
            kind = args[0] if args else kw.get("type", "POINT")
            block = ids.Light.KINDS[kind](m, name)
        elif self._name == "cameras":
            block = ids.Camera(m, name)
        elif self._name == "materials":
            block = ids.Material(m, name)
        elif self._name == "worlds":
            block = ids.World(m, name)
        elif self._name == "node_groups":
            block = NodeTree(m, name, args[0] if args else kw.get("type", "GeometryNodeTree"))
        else:
            raise RuntimeError(f"minibpy: bpy.data.{self._name}.new is not implemented")
        return self.add(block, name)


class BlendData:
    COLLECTIONS = ("objects", "meshes", "lights", "cameras", "materials", "worlds",
                   "node_groups", "shape_keys", "scenes")

    def __init__(self) -> None:
        for name in self.COLLECTIONS:
            setattr(self, name, IDCollection(self, name))

    def collection(self, name: str) -> IDCollection:
        return getattr(self, name)

    @staticmethod
    def sorted(items: list[Any]) -> list[Any]:
        return sorted(items, key=lambda b: (b._name.lower(), b._seq))

    def unique(self, coll: IDCollection, wanted: str, block: ID | None) -> str:
        taken = {b._name for b in coll._items if b is not block}
        if wanted not in taken:
            return wanted
        match = _SUFFIX.match(wanted)
        base = match.group(1) if match else wanted
        used = set()
        for name in taken:
            if name == base:
                used.add(0)
            m = _SUFFIX.match(name)
            if m and m.group(1) == base:
                used.add(int(m.group(2)))
        n = next(i for i in itertools.count(1) if i not in used)
        return f"{base}.{n:03d}"

    def rename(self, block: ID, wanted: str) -> None:
        coll = self.collection(block._data_name)
        object.__setattr__(block, "_name", self.unique(coll, wanted, block))
        object.__setattr__(block, "_seq", next(_SEQ))  # re-sorted after its equals

    def users_of(self, block: ID) -> int:
        if isinstance(block, objects.Object):
            return sum(block in s.collection.objects._items for s in self.scenes._items)
        if isinstance(block, ids.Mesh | ids.Light | ids.Camera):
            return sum(o._data is block for o in self.objects._items)
        if isinstance(block, ids.Material):
            return sum(mat is block for m in self.meshes._items for mat in m.materials._items)
        if isinstance(block, NodeTree):
            return sum(mod._group is block for o in self.objects._items for mod in o.modifiers)
        if isinstance(block, ids.Key):
            return sum(m.shape_keys is block for m in self.meshes._items)
        if isinstance(block, ids.World):
            return sum(s.world is block for s in self.scenes._items)
        return 1  # scenes: the window's


class Context:
    def __init__(self, main: BlendData, scene: ids.Scene) -> None:
        self._main, self.scene = main, scene

    @property
    def collection(self) -> Any:
        return self.scene.collection


CUBE_VERTICES = [(x, y, z) for x in (1.0, -1.0) for y in (1.0, -1.0) for z in (1.0, -1.0)]
CUBE_FACES = [(0, 4, 6, 2), (3, 2, 6, 7), (7, 6, 4, 5), (5, 1, 3, 7), (1, 0, 2, 3), (5, 4, 0, 1)]


def factory(empty: bool = False) -> tuple[BlendData, Context]:
    """Blender 4.2's factory start-up scene (values as read from bpy); with `empty`, the
    factory's empty file: the scene "Scene" alone (no world, camera or objects)."""
    main = BlendData()
    scene = main.scenes.add(ids.Scene(main, "Scene"), "Scene")
    if empty:
        return main, Context(main, scene)
    world = main.worlds.new("World")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs[0].default_value = (
        0.05087608844041824, 0.05087608844041824, 0.05087608844041824, 1.0)
    object.__setattr__(scene, "world", world)
    mesh = main.meshes.new("Cube")
    mesh.from_pydata(CUBE_VERTICES, [], CUBE_FACES)
    mat = main.materials.new("Material")
    mat.use_nodes = True
    mat.node_tree.nodes["Principled BSDF"].inputs["IOR"].default_value = 1.45  # start-up file
    mesh.materials.append(mat)
    dots = main.materials.new("Dots Stroke")
    object.__setattr__(dots, "is_grease_pencil", True)
    light = main.lights.new("Light", "POINT")
    light.energy = 1000.0
    light.shadow_soft_size = 0.1
    cam = main.cameras.new("Camera")
    cam.clip_end = 100.0
    for name, data, loc, rot in (
        ("Cube", mesh, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
        ("Light", light, (4.076245307922363, 1.0054539442062378, 5.903861999511719),
         (0.6503279805183411, 0.055217113345861435, 1.8663908243179321)),
        ("Camera", cam, (7.358891487121582, -6.925790786743164, 4.958309173583984),
         (1.1093189716339111, 0.0, 0.8149281740188599)),
    ):
        obj = main.objects.new(name, data)
        obj.location, obj.rotation_euler = loc, rot
        scene.collection.objects.link(obj)
    scene.camera = main.objects["Camera"]
    return main, Context(main, scene)
