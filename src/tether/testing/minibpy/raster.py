"""The minibpy TEST DOUBLE's "render": a crude, deterministic numpy drawing, not Cycles.

Each visible mesh object is a shaded ellipse filling the image-space extent of its
vertices projected through the scene camera (lens, sensor width, shift, clip range).
The vertices are the mesh's with the shape keys mixed in at their values, then each
geometry-node modifier's Transform Geometry nodes applied (translation, rotation and
scale, each its socket's default or, when linked, the modifier's value of a group input
feeding it directly or through a Combine XYZ: no other node is evaluated), then the
object's scale, rotation and location. Its colour is the Principled BSDF base colour of
its first material lit by the lights' energy and colour over distance squared plus the
world background, plus the emission colour times strength. It exists only so that
renders differ when the scene differs (start and goal of every bundled task, tested) and
two renders of one scene are identical; it must never be scored as a Blender render.
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any

import numpy as np

LIGHT_GAIN = 0.15  # a 1000 W light 6 m away gives about 0.3: mid-grey, not saturated
EMISSION_GAIN = 0.1  # strength 5 of an orange emission: clearly brighter, not white


def _rotation(euler: Any) -> np.ndarray:
    x, y, z = (float(v) for v in euler)
    rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
    return rz @ ry @ rx  # Blender's XYZ Euler order


def _principled(obj: Any) -> Any:
    for slot in obj.material_slots:
        mat = slot.material
        if mat is not None and mat.node_tree is not None:
            for node in mat.node_tree.nodes:
                if node.bl_idname == "ShaderNodeBsdfPrincipled":
                    return node
    return None


def _colours(obj: Any) -> tuple[np.ndarray, np.ndarray]:
    """(base colour, emitted colour) of the object's first material."""
    bsdf = _principled(obj)
    if bsdf is not None:
        inputs = bsdf.inputs
        emit = np.zeros(3)
        if "Emission Color" in inputs and "Emission Strength" in inputs:
            emit = (np.array(list(inputs["Emission Color"].default_value)[:3])
                    * float(inputs["Emission Strength"].default_value) * EMISSION_GAIN)
        return np.array(list(inputs[0].default_value)[:3]), emit
    for slot in obj.material_slots:
        if slot.material is not None:
            return np.array(list(slot.material.diffuse_color)[:3]), np.zeros(3)
    return np.array([0.8, 0.8, 0.8]), np.zeros(3)


def _mixed(mesh: Any) -> np.ndarray:
    """The mesh's vertices with its shape keys mixed in (relative to the first key)."""
    verts = np.array([tuple(v) for v in mesh.vertices], dtype=np.float64).reshape(-1, 3)
    keys = mesh.shape_keys
    if keys is not None and len(keys.key_blocks) > 1:
        blocks = list(keys.key_blocks)
        basis = np.array(blocks[0]._coords, dtype=np.float64).reshape(-1, 3)
        for kb in blocks[1:]:
            if not kb.mute and kb.value and len(kb._coords) == len(verts):
                verts = verts + kb.value * (np.array(kb._coords).reshape(-1, 3) - basis)
    return verts


def _node_transforms(obj: Any, verts: np.ndarray) -> np.ndarray:
    """Transform Geometry nodes of the object's node groups applied to the vertices."""
    for mod in obj.modifiers:
        group = getattr(mod, "node_group", None)
        if group is None or not mod.show_render:
            continue
        feeds = {id(link.to_socket): link for link in group.links}
        for node in group.nodes:
            if node.bl_idname != "GeometryNodeTransform":
                continue
            scale = _socket(node.inputs["Scale"], mod, feeds, 1.0)
            rot = _rotation(_socket(node.inputs["Rotation"], mod, feeds, 0.0))
            verts = (verts * scale) @ rot.T + _socket(node.inputs["Translation"], mod, feeds,
                                                      0.0)
    return verts


def _socket(sock: Any, mod: Any, feeds: dict[int, Any], fallback: float) -> np.ndarray:
    """A vector input's value: its default, or what feeds it when that is a group input
    (the modifier's value for it) or a Combine XYZ of such; else `fallback` (the double
    evaluates nothing more)."""
    link = feeds.get(id(sock))
    if link is None:
        value = sock.default_value
        return np.broadcast_to(np.array(list(value) if hasattr(value, "__len__") else value,
                                        dtype=np.float64), (3,))
    source = link.from_node
    if source.bl_idname == "NodeGroupInput":
        value = mod.get(link.from_socket.identifier)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return np.full(3, float(value))
        return np.array(value, dtype=np.float64) if isinstance(value, list) \
            else np.full(3, fallback)
    if source.bl_idname == "ShaderNodeCombineXYZ":
        return np.array([_socket(source.inputs[a], mod, feeds, fallback)[0] for a in "XYZ"])
    return np.full(3, fallback)


def render(bpy: Any, size: int) -> np.ndarray:
    """An RGB uint8 image (size x size) of bpy.context.scene."""
    scene = bpy.context.scene
    world = scene.world
    ambient = np.array([0.05, 0.05, 0.05])
    if world is not None and world.node_tree is not None and "Background" in world.node_tree.nodes:
        bg = world.node_tree.nodes["Background"].inputs
        ambient = np.array(list(bg[0].default_value)[:3]) * float(bg[1].default_value)
    img = np.tile(ambient.clip(0, 1), (size, size, 1))
    cam = scene.camera
    cam_rot = _rotation(cam.rotation_euler)
    cam_loc = np.array(list(cam.location))
    f = cam.data.lens / cam.data.sensor_width
    lights = [(np.array(list(o.location)), o.data) for o in scene.objects
              if o.type == "LIGHT" and not o.hide_render]
    shapes = []
    for obj in scene.objects:
        if obj.type != "MESH" or obj.hide_render:
            continue
        centre = np.array(list(obj.location))
        c = cam_rot.T @ (centre - cam_loc)
        depth = -c[2]
        if not cam.data.clip_start < depth < cam.data.clip_end:
            continue
        local = _node_transforms(obj, _mixed(obj.data)) if obj.data.vertices else \
            np.zeros((1, 3))
        world_verts = (local * np.array(list(obj.scale))) @ _rotation(obj.rotation_euler).T
        cam_verts = (world_verts + centre - cam_loc) @ cam_rot  # rows: camera coordinates
        vdepth = np.maximum(-cam_verts[:, 2], 1e-3)
        us = (0.5 + f * cam_verts[:, 0] / vdepth + cam.data.shift_x) * size
        vs = (0.5 - f * cam_verts[:, 1] / vdepth - cam.data.shift_y) * size
        u, v = (us.min() + us.max()) / 2, (vs.min() + vs.max()) / 2
        ru = max((us.max() - us.min()) / 2, 0.5)
        rv = max((vs.max() - vs.min()) / 2, 0.5)
        light = np.zeros(3)
        for pos, data in lights:
            d2 = float(((pos - centre) ** 2).sum()) + 1.0
            light += LIGHT_GAIN * data.energy * np.array(list(data.color)) / (4 * math.pi * d2)
        base, emit = _colours(obj)
        shapes.append((depth, u, v, ru, rv, base * (ambient + light) + emit))
    yy, xx = np.mgrid[0:size, 0:size] + 0.5
    for _, u, v, ru, rv, shade in sorted(shapes, key=lambda d: -d[0]):  # far to near
        d2 = ((xx - u) / ru) ** 2 + ((yy - v) / rv) ** 2
        inside = d2 <= 1.0
        falloff = (1.0 - 0.4 * d2)[..., None]  # brighter centre: a hint of form
        img = np.where(inside[..., None], shade * falloff, img)
    tone = 1.0 - np.exp(-2.0 * np.clip(img, 0, None))  # a fixed tone curve into [0, 1)
    return (tone * 255.0 + 0.5).astype(np.uint8)


def png_bytes(rgb: np.ndarray) -> bytes:
    """A PNG file of an RGB uint8 image (zlib level 9, no metadata: deterministic)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(
            ">I", zlib.crc32(tag + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def render_png(bpy: Any, size: int) -> bytes:
    return png_bytes(render(bpy, size))
