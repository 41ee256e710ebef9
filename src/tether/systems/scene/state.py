"""State capture S = (cells, bindings, structure) of the Blender scene a program left.

- cells: numeric values a repair could write, keyed by the statement that would write
  them, `bpy.data.<collection>["<name>"].<path>` (plus `[i]` never: arrays stay whole):
  object transforms and visibility, light energy / colour / size, camera lens / sensor /
  shift / clip, material and world node socket default values (sockets by index),
  geometry-node group socket default values (`bpy.data.node_groups["G"].nodes["N"]
  .inputs[i].default_value`: a group's own tree, shared by every modifier using it),
  shape-key values (`bpy.data.shape_keys["Key"].key_blocks["Key 1"].value`) and
  geometry-node modifier inputs (`...objects["Cube"].modifiers["GN"]["Socket_1"]`: the
  group interface's non-geometry inputs the modifier holds).
- bindings: object -> data, material slot -> material, object -> its mesh's shape keys
  (`data.shape_keys`, with the mesh's users count) and modifier -> node group, with
  the users count of the bound data block (a count above 1 means a write to it reaches
  other objects too).
- structure: the objects (type, parent, modifiers), meshes (vertex / face counts, users,
  bounds as [min xyz, max xyz] of the vertex coordinates, null without vertices) and
  the node links of every material, world and node group tree, as
  [from node, from socket identifier, to node, to socket identifier].

Stdlib and bpy only: the executor ships this file's text into its sandboxed worker.
"""

from __future__ import annotations

from typing import Any

OBJECT_CELLS = ("location", "rotation_euler", "scale", "hide_render", "hide_viewport")
LIGHT_CELLS = ("energy", "color", "shadow_soft_size", "size", "angle", "spot_size", "spot_blend")
CAMERA_CELLS = ("lens", "sensor_width", "shift_x", "shift_y", "clip_start", "clip_end")


def _key(collection: str, name: str, path: str) -> str:
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'bpy.data.{collection}["{quoted}"].{path}'


def _value(v: Any) -> Any:
    if isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return v
    try:
        return [_value(x) for x in v]
    except TypeError:
        return repr(v)


def _sockets(cells: dict[str, Any], collection: str, holder: Any) -> None:
    """Input socket defaults of the holder's embedded tree (a node group: its own)."""
    group = collection == "node_groups"
    tree = holder if group else getattr(holder, "node_tree", None)
    if tree is None:
        return
    prefix = "" if group else "node_tree."
    for node in tree.nodes:
        for i, socket in enumerate(node.inputs):
            if hasattr(socket, "default_value"):
                value = _value(socket.default_value)
                if not isinstance(value, str):
                    path = f'{prefix}nodes["{node.name}"].inputs[{i}].default_value'
                    cells[_key(collection, holder.name, path)] = value


def _modifier_inputs(cells: dict[str, Any], obj: Any, mod: Any) -> None:
    group = getattr(mod, "node_group", None)
    if group is None:
        return
    held = set(mod.keys())
    for item in group.interface.items_tree:  # panels have no in_out: skipped
        if getattr(item, "in_out", None) != "INPUT" or item.identifier not in held:
            continue
        value = _value(mod[item.identifier])
        if not isinstance(value, str):
            path = f'modifiers["{mod.name}"]["{item.identifier}"]'
            cells[_key("objects", obj.name, path)] = value


def _links(tree: Any) -> list[list[str]]:
    return [[link.from_node.name, link.from_socket.identifier,
             link.to_node.name, link.to_socket.identifier] for link in tree.links]


def _bounds(mesh: Any) -> list[list[float]] | None:
    coords = [tuple(v.co) for v in mesh.vertices]
    if not coords:
        return None
    return [[min(c[i] for c in coords) for i in range(3)],
            [max(c[i] for c in coords) for i in range(3)]]


def capture(bpy: Any) -> dict[str, Any]:
    """The scene state as plain JSON-able data (deterministic key order)."""
    data = bpy.data
    cells: dict[str, Any] = {}
    bindings: list[dict[str, Any]] = []
    objects: dict[str, Any] = {}
    for obj in data.objects:
        for prop in OBJECT_CELLS:
            cells[_key("objects", obj.name, prop)] = _value(getattr(obj, prop))
        info: dict[str, Any] = {
            "type": obj.type,
            "parent": obj.parent.name if obj.parent else None,
            "modifiers": [[m.name, m.type] for m in obj.modifiers],
        }
        if obj.data is not None:
            coll = _collection_of(obj.data)
            bindings.append({
                "from": ["objects", obj.name], "path": "data",
                "to": [coll, obj.data.name], "users": obj.data.users,
            })  # fmt: skip
        for i, slot in enumerate(obj.material_slots):
            if slot.material is not None:
                bindings.append({
                    "from": ["objects", obj.name], "path": f"material_slots[{i}].material",
                    "to": ["materials", slot.material.name], "users": slot.material.users,
                })  # fmt: skip
        keys = getattr(obj.data, "shape_keys", None) if obj.data is not None else None
        if keys is not None:  # a key lives on its mesh: shared exactly when the mesh is
            bindings.append({
                "from": ["objects", obj.name], "path": "data.shape_keys",
                "to": ["shape_keys", keys.name], "users": obj.data.users,
            })  # fmt: skip
        for mod in obj.modifiers:
            group = getattr(mod, "node_group", None)
            if group is not None:
                bindings.append({
                    "from": ["objects", obj.name], "path": f'modifiers["{mod.name}"].node_group',
                    "to": ["node_groups", group.name], "users": group.users,
                })  # fmt: skip
            _modifier_inputs(cells, obj, mod)
        objects[obj.name] = info
    for light in data.lights:
        for prop in LIGHT_CELLS:
            if hasattr(light, prop):
                cells[_key("lights", light.name, prop)] = _value(getattr(light, prop))
    for cam in data.cameras:
        for prop in CAMERA_CELLS:
            cells[_key("cameras", cam.name, prop)] = _value(getattr(cam, prop))
    for mat in data.materials:
        _sockets(cells, "materials", mat)
    for world in data.worlds:
        _sockets(cells, "worlds", world)
    for group in data.node_groups:
        _sockets(cells, "node_groups", group)
    for key in data.shape_keys:
        for block in key.key_blocks:
            path = f'key_blocks["{block.name}"].value'
            cells[_key("shape_keys", key.name, path)] = _value(block.value)
    meshes = {
        m.name: {"vertices": len(m.vertices), "faces": len(m.polygons), "users": m.users,
                 "bounds": _bounds(m)}
        for m in data.meshes
    }
    links: dict[str, dict[str, list[list[str]]]] = {}
    for collection in ("materials", "worlds", "node_groups"):
        for holder in getattr(data, collection):
            tree = holder if collection == "node_groups" else getattr(holder, "node_tree", None)
            if tree is not None:
                links.setdefault(collection, {})[holder.name] = _links(tree)
    return {
        "cells": dict(sorted(cells.items())),
        "bindings": bindings,
        "structure": {"objects": objects, "meshes": meshes, "links": links},
    }


def _collection_of(id_data: Any) -> str:
    kinds = {"MESH": "meshes", "LIGHT": "lights", "CAMERA": "cameras", "CURVE": "curves"}
    return kinds.get(id_data.id_type, id_data.id_type.lower())
