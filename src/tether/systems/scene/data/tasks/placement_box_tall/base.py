"""Base scene of tether's scene suite, family placement: a red box, a blue ball and a green
cone on a grey floor, lit by a sun.

Runs on Blender's empty factory file (`read_factory_settings(use_empty=True)`, which is
how tether runs it) and builds with the data API only, so two builds give the same scene.
The .blend is generated on first use and cached by this file's sha256, never committed.
"""

import bmesh
import bpy

scene = bpy.context.scene


def mesh(name, build, **kw):
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    build(bm, **kw)
    bm.to_mesh(me)
    bm.free()
    return me


def cube(bm, size=1.0, lift=0.0):
    bmesh.ops.create_cube(bm, size=size)
    for v in bm.verts:
        v.co.z += lift


def sphere(bm, radius=0.5):
    bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=radius)


def cone(bm, radius=0.5, depth=1.0):
    bmesh.ops.create_cone(bm, cap_ends=True, segments=24, radius1=radius, radius2=0.0,
                          depth=depth)


def grid(bm, size=8.0):
    bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=size / 2)


def obj(name, data, location=(0.0, 0.0, 0.0), material=None):
    o = bpy.data.objects.new(name, data)
    o.location = location
    if material is not None and not o.data.materials:
        o.data.materials.append(material)
    scene.collection.objects.link(o)
    return o


def material(name, color, roughness=0.5):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    bsdf = m.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    return m


world = bpy.data.worlds.new("World")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.6, 0.6, 0.65, 1.0)
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.5
scene.world = world
cam = obj("Camera", bpy.data.cameras.new("Camera"), (0.0, -6.0, 3.5))
cam.rotation_euler = (1.107, 0.0, 0.0)
cam.data.lens = 40.0
scene.camera = cam
obj("Floor", mesh("Floor", grid), material=material("FloorMat", (0.5, 0.5, 0.5), 0.9))

sun = obj("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.rotation_euler = (0.6, 0.2, 0.4)
sun.data.energy = 3.0
obj("Box", mesh("Box", cube), (0.0, 0.0, 0.5), material("Red", (0.8, 0.05, 0.05)))
obj("Ball", mesh("Ball", sphere), (1.8, 0.0, 0.5), material("Blue", (0.05, 0.1, 0.8)))
obj("Cone", mesh("Cone", cone), (-1.8, 0.0, 0.5), material("Green", (0.05, 0.6, 0.1)))
