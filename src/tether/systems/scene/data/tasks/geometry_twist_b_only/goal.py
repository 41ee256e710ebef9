import math

import bpy

mod = bpy.data.objects["TowerB"].modifiers["Shape"]
mod.node_group = mod.node_group.copy()
rotation = mod.node_group.nodes["Transform Geometry"].inputs["Rotation"]
rotation.default_value = (0.0, 0.0, math.pi / 4)
