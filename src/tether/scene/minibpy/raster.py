"""The minibpy TEST DOUBLE's "render": a crude, deterministic numpy drawing, not Cycles.

Each visible mesh object is a shaded disc at its centre projected through the scene
camera (lens, sensor width, shift, clip range), its radius from the mesh bounds and the
object scale (grown by shape-key values and float geometry-node inputs), its colour the
Principled BSDF base colour of its first material lit by the point lights' energy and
colour over distance squared plus the world background. It exists only so that renders
differ when the scene differs and two renders of one scene are identical; it must never
be scored as if it were a Blender render.
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any

import numpy as np

LIGHT_GAIN = 0.15  # a 1000 W light 6 m away gives about 0.3: mid-grey, not saturated


def _rotation(euler: Any) -> np.ndarray:
    x, y, z = (float(v) for v in euler)
    rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
    return rz @ ry @ rx  # Blender's XYZ Euler order


def _base_colour(obj: Any) -> np.ndarray:
    for slot in obj.material_slots:
        mat = slot.material
        if mat is not None and mat.node_tree is not None:
            for node in mat.node_tree.nodes:
                if node.bl_idname == "ShaderNodeBsdfPrincipled":
                    return np.array(list(node.inputs[0].default_value)[:3])
        if mat is not None:
            return np.array(list(mat.diffuse_color)[:3])
    return np.array([0.8, 0.8, 0.8])


def _growth(obj: Any) -> float:
    grow = 1.0
    keys = obj.data.shape_keys
    if keys is not None:
        grow += 0.25 * sum(kb.value for kb in list(keys.key_blocks)[1:])
    for mod in obj.modifiers:
        for k, v in mod.items():
            if isinstance(v, float) and not k.endswith(("_use_attribute", "_attribute_name")):
                grow += 0.1 * max(-5.0, min(5.0, v))
    return max(grow, 0.05)


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
    discs = []
    for obj in scene.objects:
        if obj.type != "MESH" or obj.hide_render:
            continue
        centre = np.array(list(obj.location))
        c = cam_rot.T @ (centre - cam_loc)
        depth = -c[2]
        if not cam.data.clip_start < depth < cam.data.clip_end:
            continue
        verts = np.array(obj.data.vertices) if obj.data.vertices else np.ones((1, 3)) * 0.5
        radius = float(np.abs(verts).max()) * max(abs(float(s)) for s in obj.scale)
        radius *= _growth(obj)
        light = np.zeros(3)
        for pos, data in lights:
            d2 = float(((pos - centre) ** 2).sum()) + 1.0
            light += LIGHT_GAIN * data.energy * np.array(list(data.color)) / (4 * math.pi * d2)
        shade = _base_colour(obj) * (ambient + light)
        u = (0.5 + f * c[0] / depth + cam.data.shift_x) * size
        v = (0.5 - f * c[1] / depth - cam.data.shift_y) * size
        discs.append((depth, u, v, f * radius / depth * size, shade))
    yy, xx = np.mgrid[0:size, 0:size] + 0.5
    for _, u, v, r, shade in sorted(discs, key=lambda d: -d[0]):  # far to near
        d2 = ((xx - u) ** 2 + (yy - v) ** 2) / max(r * r, 1e-9)
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
