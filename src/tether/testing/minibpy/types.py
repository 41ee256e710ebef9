"""bpy.types of the minibpy test double: the classes isinstance checks need."""

from tether.testing.minibpy.ids import (
    AreaLight,
    Camera,
    Key,
    Light,
    Material,
    Mesh,
    PointLight,
    RenderSettings,
    Scene,
    ShapeKey,
    SpotLight,
    SunLight,
    World,
)
from tether.testing.minibpy.nodes import Node, NodeLink, NodeSocket, NodeTree
from tether.testing.minibpy.objects import MaterialSlot, Modifier, Object
from tether.testing.minibpy.structs import ID, bpy_prop_collection, bpy_struct
from tether.testing.minibpy.values import bpy_prop_array

__all__ = [
    "ID", "AreaLight", "Camera", "Key", "Light", "Material", "MaterialSlot", "Mesh", "Modifier",
    "Node", "NodeLink", "NodeSocket", "NodeTree", "Object", "PointLight", "RenderSettings",
    "Scene", "ShapeKey", "SpotLight", "SunLight", "World", "bpy_prop_array",
    "bpy_prop_collection", "bpy_struct",
]  # fmt: skip
