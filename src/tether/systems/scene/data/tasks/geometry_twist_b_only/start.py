import bpy

mod = bpy.data.objects["TowerB"].modifiers["Shape"]
mod.node_group.nodes["Transform Geometry"].inputs["Rotation"].default_value = (0.0, 0.0, 0.0)
