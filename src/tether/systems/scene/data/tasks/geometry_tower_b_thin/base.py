"""Base scene of tether's scene suite, family geometry: two towers (TowerA, TowerB), each
with a geometry-nodes modifier (Shape) using ONE node group (Stack) with inputs Height
and Width.

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
group = bpy.data.node_groups.new("Stack", "GeometryNodeTree")
group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
height = group.interface.new_socket("Height", in_out="INPUT", socket_type="NodeSocketFloat")
height.default_value = 1.0
width = group.interface.new_socket("Width", in_out="INPUT", socket_type="NodeSocketFloat")
width.default_value = 1.0
group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
nodes = group.nodes
gin = nodes.new("NodeGroupInput")
gout = nodes.new("NodeGroupOutput")
transform = nodes.new("GeometryNodeTransform")
scale = nodes.new("ShaderNodeCombineXYZ")
group.links.new(gin.outputs["Geometry"], transform.inputs["Geometry"])
group.links.new(gin.outputs["Width"], scale.inputs["X"])
group.links.new(gin.outputs["Width"], scale.inputs["Y"])
group.links.new(gin.outputs["Height"], scale.inputs["Z"])
group.links.new(scale.outputs["Vector"], transform.inputs["Scale"])
group.links.new(transform.outputs["Geometry"], gout.inputs["Geometry"])
stone = material("Stone", (0.7, 0.6, 0.4))
for name, x in (("TowerA", -1.5), ("TowerB", 1.5)):
    tower = obj(name, mesh(name, cube, lift=0.5), (x, 0.0, 0.0), stone)
    tower.modifiers.new("Shape", "NODES").node_group = group
